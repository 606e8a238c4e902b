// Signed promotion records against a real PostgreSQL (lib/ops/promotion_records.h): a promotion
// into a Stage of 1,000 Spaces x 10 Units signs 1,000 statements and writes them in one
// statement, each naming its Space's Units at their heads, and each verifies; the runtime role
// may not change them. Prints what recording costs at that size (no timed assertion).
#include <catch2/catch.hpp>
#include <chrono>
#include <cstdio>
#include <map>
#include <pqxx/pqxx>

#include "absl/strings/str_cat.h"
#include "harness/test_db.h"
#include "lib/ops/promotion_records.h"
#include "lib/sign/dsse.h"
#include "lib/sign/key_ring.h"
#include "lib/sign/statement.h"
#include "lib/store/migrations.h"
#include "lib/store/promotion_records.h"
#include "lib/util/json.h"

namespace cub {
namespace {

constexpr int kSpaces = 1000;
constexpr int kUnits = 10;

double MsSince(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

struct Fleet {
  std::string url = testing::FreshDatabaseUrl("promotion_records");
  std::unique_ptr<store::ConnectionPool> db;
  v1::PromoteResponse out;                     // every Space Promoted, with its Units
  std::map<std::string, std::string> hash_of;  // unit ID -> its head's data hash

  explicit Fleet(int spaces) {
    REQUIRE(store::ApplyMigrations(url).ok());
    pqxx::connection c(url);
    pqxx::work w(c);
    // Setup in bulk, as the owner: the Spaces, Units and head revisions a promotion left.
    w.exec(absl::StrCat(
        "INSERT INTO spaces (slug) SELECT 'prod-' || i FROM generate_series(1, ", spaces,
        ") i;"
        "INSERT INTO units (space_id, slug, head_revision_num)"
        " SELECT s.id, 'unit-' || j, 2 FROM spaces s, generate_series(1, ",
        kUnits,
        ") j;"
        "INSERT INTO revisions (unit_id, space_id, revision_num, data, data_hash)"
        " SELECT u.id, u.space_id, 2, 'kind: ConfigMap', 'sha256:' || md5(u.id::text) ||"
        " md5(u.slug) FROM units u;"));
    pqxx::result rows = w.exec(
        "SELECT s.id::text AS sid, s.slug AS space, u.id::text AS uid, u.slug AS unit,"
        " r.data_hash FROM spaces s JOIN units u ON u.space_id = s.id"
        " JOIN revisions r ON r.unit_id = u.id ORDER BY s.slug, u.slug");
    w.commit();
    v1::PromotedSpace* s = nullptr;
    for (const auto& row : rows) {
      if (s == nullptr || s->space_id() != row["sid"].as<std::string>()) {
        s = out.add_spaces();
        s->set_space_id(row["sid"].as<std::string>());
        s->set_space(row["space"].as<std::string>());
        s->set_status("Promoted");
      }
      v1::PromotedUnit* u = s->add_units();
      u->set_unit_id(row["uid"].as<std::string>());
      u->set_unit(row["unit"].as<std::string>());
      u->set_action("Upgraded");
      hash_of[u->unit_id()] = row["data_hash"].as<std::string>();
    }
    out.set_landed(out.spaces_size());
    db = std::make_unique<store::ConnectionPool>(testing::RuntimeUrl(url), 2);
  }
};

// Evidence of the size a gated Stage gives: a held finding per Space of a Stage of 20 before.
ops::PromotionEvidence Evidence() {
  ops::PromotionEvidence e;
  e.gates = {"Released", "Healthy", "two-approvers"};
  for (int i = 0; i < 20; ++i) {
    ops::GateFinding g;
    g.stage = "prod";
    g.gate = "Healthy";
    g.kind = std::string(ops::kGateBuiltin);
    g.space = absl::StrCat("staging-", i);
    g.space_id = absl::StrCat("00000000-0000-0000-0000-0000000000", i < 10 ? "0" : "", i);
    g.held = true;
    g.evidence_json =
        absl::StrCat(R"({"ReleaseNum":4,"BundleDigest":"sha256:)", std::string(64, 'e'),
                     R"(","Sync":"Synced","Health":"Healthy","StatusAt":"2026-12-01T17:00:00Z"})");
    e.findings.push_back(std::move(g));
  }
  return e;
}

TEST_CASE("a promotion into 1,000 Spaces: records signed one by one, written in one statement") {
  Fleet fleet(kSpaces);
  auto key = sign::SigningKey::Generate();
  REQUIRE(key.ok());
  ops::ResolvedChangeOrder rco;
  rco.base.set_slug("base");
  rco.co.id = "11111111-1111-1111-1111-111111111111";
  rco.co.slug = "v2";
  ops::Principal p;
  p.username = "alice";
  ops::PromoteBy by;
  by.keys = sign::FixedKeyRing(*key);
  v1::PromoteRequest req;
  req.set_force(true);
  req.set_force_reason("bench");
  fleet.out.add_overridden_gates("unable to promote to stage 'prod': requires two-approvers");
  const ops::PromotionEvidence evidence = Evidence();

  auto t0 = std::chrono::steady_clock::now();
  absl::Status s = store::WithTransaction(*fleet.db, [&](store::Tx& tx) {
    return ops::RecordPromotions(tx, p, rco, "prod", req, by, evidence, fleet.out);
  });
  const double total_ms = MsSince(t0);
  REQUIRE(s.ok());

  auto records = store::InTransaction(
      *fleet.db, [&](store::Tx& tx) { return store::ListPromotionRecords(tx, rco.co.id, ""); });
  REQUIRE(records.ok());
  REQUIRE(records->size() == kSpaces);
  size_t bytes = 0;
  for (const auto& r : *records) bytes += r.envelope().size();

  // The same work without the database: the statements and signatures alone.
  t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < kSpaces; ++i) {
    ops::PromotionRecordFacts f;
    f.space = absl::StrCat("prod-", i);
    f.evidence = &evidence;
    for (int j = 0; j < kUnits; ++j) f.units.push_back({"id", "u", "Upgraded", 2, "sha256:x"});
    sign::SignEnvelope(*key, sign::kInTotoPayloadType, ops::PromotionStatement(f)).ToJson();
  }
  const double sign_ms = MsSince(t0);
  std::printf(
      "promotion records, %d Spaces x %d Units, %zu findings each: RecordPromotions %.1f ms "
      "(statements and signatures alone %.1f ms), %.1f KB per envelope, %.1f MB in all\n",
      kSpaces, kUnits, evidence.findings.size(), total_ms, sign_ms, bytes / 1024.0 / kSpaces,
      bytes / 1024.0 / 1024.0);

  // Each names its Space's Units at their heads, and verifies.
  const v1::PromotedSpace& first = fleet.out.spaces(0);
  auto mine = store::InTransaction(*fleet.db, [&](store::Tx& tx) {
    return store::ListPromotionRecords(tx, rco.co.id, first.space());
  });
  REQUIRE(mine.ok());
  REQUIRE(mine->size() == 1);
  const v1::PromotionRecord& r = mine->at(0);
  CHECK(r.space_id() == first.space_id());
  CHECK(r.stage() == "prod");
  CHECK(r.promoted_by() == "alice");
  CHECK(r.forced());
  CHECK(ops::VerifyPromotionRecord(r, key->PublicKeyPem(), first.space_id(), rco.co.id).ok());
  auto env = sign::Envelope::FromJson(r.envelope());
  REQUIRE(env.ok());
  auto st = ParseJson(env->payload);
  REQUIRE(st.ok());
  REQUIRE((*st)["subject"].size() == kUnits + 1);
  const Json& unit = (*st)["predicate"]["Units"][0];
  CHECK(unit["RevisionNum"] == 2);
  CHECK(unit["DataHash"] == fleet.hash_of[unit["UnitID"].get<std::string>()]);
  CHECK((*st)["predicate"]["Gates"].size() == evidence.findings.size());
  CHECK((*st)["predicate"]["Gates"][0]["Evidence"]["Health"] == "Healthy");

  std::vector<std::string> checks;
  auto verified = store::InTransaction(*fleet.db, [&](store::Tx& tx) -> absl::StatusOr<bool> {
    auto keys = by.keys->Snapshot();
    REQUIRE(keys.ok());
    absl::Status v =
        ops::VerifyPromotionRecordsOf(tx, **keys, rco.co.id, first.space_id(), &checks);
    if (!v.ok()) return v;
    return true;
  });
  REQUIRE(verified.ok());
  REQUIRE(checks.size() == 1);
  CHECK_THAT(checks[0], Catch::Contains("verifies and names this space and change order"));

  SECTION("the runtime role may not change or remove them") {
    pqxx::connection c(testing::RuntimeUrl(fleet.url));
    for (const char* sql : {"UPDATE promotion_records SET forced = false",
                            "DELETE FROM promotion_records", "TRUNCATE promotion_records"}) {
      pqxx::work w(c);
      CHECK_THROWS_WITH(w.exec(sql),
                        Catch::Contains("permission denied for table promotion_records"));
    }
  }
}

TEST_CASE("nothing promoted, nothing recorded; no key, refused") {
  Fleet fleet(3);
  ops::ResolvedChangeOrder rco;
  rco.co.id = "11111111-1111-1111-1111-111111111111";
  ops::Principal p;
  v1::PromoteRequest req;
  v1::PromoteResponse already = fleet.out;
  for (auto& s : *already.mutable_spaces()) s.set_status("AlreadyPromoted");
  ops::PromoteBy none;  // no key: fine while there is nothing to sign
  CHECK(store::WithTransaction(*fleet.db, [&](store::Tx& tx) {
          return ops::RecordPromotions(tx, p, rco, "prod", req, none, {}, already);
        }).ok());
  absl::Status s = store::WithTransaction(*fleet.db, [&](store::Tx& tx) {
    return ops::RecordPromotions(tx, p, rco, "prod", req, none, {}, fleet.out);
  });
  CHECK(s.code() == absl::StatusCode::kInternal);
  auto records = store::InTransaction(
      *fleet.db, [&](store::Tx& tx) { return store::ListPromotionRecords(tx, rco.co.id, ""); });
  REQUIRE(records.ok());
  CHECK(records->empty());
}

}  // namespace
}  // namespace cub
