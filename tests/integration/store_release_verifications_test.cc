// lib/store/release_verifications against a real PostgreSQL: checks are appended and the newest
// is the Release's (the rows refuse UPDATE and DELETE, whoever asks); DeliveryEvidence finds a
// rollback's earlier Release and the promotion records of the Release's ChangeOrder in its
// Space, for a batch in one query.
#include <catch2/catch.hpp>
#include <pqxx/pqxx>

#include "harness/test_db.h"
#include "lib/ops/spaces.h"
#include "lib/ops/users.h"
#include "lib/store/migrations.h"
#include "lib/store/promotion_records.h"
#include "lib/store/release_verifications.h"
#include "lib/store/releases.h"
#include "lib/util/status_macros.h"
#include "lib/util/uuid.h"

namespace cub {
namespace {

struct Fixture {
  std::string url = testing::FreshDatabaseUrl("store_rver");
  std::unique_ptr<store::ConnectionPool> db;
  v1::Space space;
  v1::Target target;

  Fixture() {
    REQUIRE(store::ApplyMigrations(url).ok());
    db = std::make_unique<store::ConnectionPool>(testing::RuntimeUrl(url), 4);
    auto admin = ops::CreateUser(*db, store::NewUser{"admin", {}, true, false});
    REQUIRE(admin.ok());
    auto p = ops::Authenticate(*db, admin->token);
    REQUIRE(p.ok());
    v1::CreateSpaceRequest req;
    req.set_slug("prod");
    auto s = ops::CreateSpace(*db, *p, req);
    REQUIRE(s.ok());
    space = *s;
    auto t = store::InTransaction(*db, [&](store::Tx& tx) {
      return store::InsertTarget(tx, {space.space_id(), "oci", "Directory", {{"path", "/x"}}});
    });
    REQUIRE(t.ok());
    target = *t;
  }

  std::string Publish(const std::string& selector, const std::string& co_id = "",
                      const std::string& sealed = "") {
    auto id = store::InTransaction(*db, [&](store::Tx& tx) -> absl::StatusOr<std::string> {
      CUB_ASSIGN_OR_RETURN(int64_t num, store::LockNextReleaseNum(tx, space.space_id()));
      store::NewRelease r;
      r.space_id = space.space_id();
      r.space_slug = space.slug();
      r.target_id = target.target_id();
      r.target = "prod/oci";
      r.release_num = num;
      r.change_order_id = co_id;
      r.change_order = co_id.empty() ? "" : "base/fix";
      r.revision_selector = selector;
      r.bundle_digest = "sha256:" + std::string(64, 'a');
      r.published_at = "2026-01-01T00:00:00Z";
      r.provenance = "{}";
      r.sealed_approvals = sealed;
      return store::InsertRelease(tx, r);
    });
    REQUIRE(id.ok());
    return *id;
  }
};

TEST_CASE("Verifications are appended and the newest is the Release's", "[store]") {
  Fixture f;
  const std::string r1 = f.Publish("HeadRevisionNum");
  const std::string r2 = f.Publish("HeadRevisionNum");
  auto rec = store::WithTransaction(*f.db, [&](store::Tx& tx) -> absl::Status {
    CUB_RETURN_IF_ERROR(
        store::RecordVerifications(tx, {{r1, "sha256:1", "SignatureMissing", "no signature", ""}}));
    return store::RecordVerifications(tx, {{r1, "sha256:1", "Verified", "signed", "sha256:k"}});
  });
  REQUIRE(rec.ok());
  auto latest = store::InTransaction(*f.db, [&](store::Tx& tx) {
    return store::LatestVerifications(tx, {r1, r2});
  });
  REQUIRE(latest.ok());
  REQUIRE(latest->size() == 1);
  CHECK(latest->at(r1).reason() == "Verified");
  CHECK(latest->at(r1).key_id() == "sha256:k");
  CHECK(latest->at(r1).digest() == "sha256:1");
  CHECK_FALSE(latest->at(r1).checked_at().empty());

  auto bad = store::WithTransaction(*f.db, [&](store::Tx& tx) {
    return store::RecordVerifications(tx, {{r2, "", "Fine", "", ""}});
  });
  CHECK_FALSE(bad.ok());  // not a reason

  // Append-only, for the owner too.
  pqxx::connection owner(f.url);
  pqxx::work w(owner);
  CHECK_THROWS(w.exec("UPDATE release_verifications SET reason = 'Verified'"));
}

TEST_CASE("DeliveryEvidence finds a rollback's Release and the promotion records", "[store]") {
  Fixture f;
  const std::string co = NewUuid();
  const std::string r1 = f.Publish("HeadRevisionNum", co, "{\"sealed\":1}");
  const std::string r2 = f.Publish("HeadRevisionNum");
  const std::string r3 = f.Publish("Release:1");
  const std::string r4 = f.Publish("Release:9");  // no such Release
  auto ins = store::WithTransaction(*f.db, [&](store::Tx& tx) {
    store::NewPromotionRecord p;
    p.change_order_id = co;
    p.change_order = "base/fix";
    p.space_id = f.space.space_id();
    p.space_slug = "prod";
    p.promoted_by = "admin";
    p.at = "2026-01-01T00:00:00Z";
    p.statement_digest = "sha256:x";
    store::NewPromotionRecord second = p;
    p.envelope = "first";
    second.envelope = "second";
    second.at = "2026-01-02T00:00:00Z";
    return store::InsertPromotionRecords(tx, {second, p});
  });
  REQUIRE(ins.ok());
  auto ev = store::InTransaction(*f.db, [&](store::Tx& tx) {
    return store::DeliveryEvidence(tx, {r1, r2, r3, r4});
  });
  INFO(ev.status().ToString());
  REQUIRE(ev.ok());
  REQUIRE(ev->size() == 4);
  CHECK(ev->at(r1).promotion_records == std::vector<std::string>{"first", "second"});
  CHECK(ev->at(r1).rollback_release_id.empty());
  CHECK(ev->at(r2).promotion_records.empty());
  CHECK(ev->at(r3).rollback_release_id == r1);
  CHECK(ev->at(r3).rollback_release_num == 1);
  CHECK(ev->at(r3).rollback_change_order == "base/fix");
  CHECK(ev->at(r3).rollback_sealed);
  CHECK(ev->at(r4).rollback_release_id.empty());
}

}  // namespace
}  // namespace cub
