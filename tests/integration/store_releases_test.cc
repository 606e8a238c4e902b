// lib/store/releases against a real PostgreSQL: its functions return a Status for what the
// database refuses (they never throw), and the deployment facts it reads for the release status
// rules (lib/ops/release_status_rules.h) are what the history holds.
#include <catch2/catch.hpp>
#include <pqxx/pqxx>

#include "absl/strings/str_join.h"
#include "harness/test_db.h"
#include "lib/ops/spaces.h"
#include "lib/ops/users.h"
#include "lib/store/migrations.h"
#include "lib/store/releases.h"
#include "lib/util/status_macros.h"

namespace cub {
namespace {

struct Fixture {
  std::string url = testing::FreshDatabaseUrl("store_rel");
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
    req.set_slug("dev");
    auto s = ops::CreateSpace(*db, *p, req);
    REQUIRE(s.ok());
    space = *s;
    auto t = store::InTransaction(*db, [&](store::Tx& tx) {
      return store::InsertTarget(tx, {space.space_id(), "gitops", "Directory", {{"path", "/x"}}});
    });
    REQUIRE(t.ok());
    target = *t;
  }

  // Publishes Release `num` (rows only: no Unit, no signature) and returns its ID.
  std::string Publish(int64_t num) {
    store::NewRelease r;
    r.space_id = space.space_id();
    r.space_slug = space.slug();
    r.target_id = target.target_id();
    r.target = "dev/gitops";
    r.release_num = num;
    r.bundle_digest = "sha256:" + std::string(64, '0' + static_cast<char>(num));
    r.published_at = "2026-01-01T00:00:00Z";
    r.provenance = "{}";
    auto id = store::InTransaction(*db, [&](store::Tx& tx) { return store::InsertRelease(tx, r); });
    REQUIRE(id.ok());
    return *id;
  }

  v1::Release Release(const std::string& id) {
    auto r = store::InTransaction(*db, [&](store::Tx& tx) -> absl::StatusOr<v1::Release> {
      CUB_ASSIGN_OR_RETURN(auto found, store::FindReleaseByID(tx, id));
      if (!found) return absl::NotFoundError(id);
      return *found;
    });
    REQUIRE(r.ok());
    return *r;
  }

  store::DeploymentFacts Facts(const v1::Release& r) {
    auto f =
        store::InTransaction(*db, [&](store::Tx& tx) { return store::ReadDeploymentFacts(tx, r); });
    REQUIRE(f.ok());
    return *f;
  }

  // Runs `fn` in a transaction of its own, so that a statement the database refuses aborts
  // only that one.
  absl::Status Run(const std::function<absl::Status(store::Tx&)>& fn) {
    return store::WithTransaction(*db, fn);
  }
};

TEST_CASE("store releases: what the database refuses comes back as a status", "[store][db]") {
  Fixture f;
  const std::string id = f.Publish(1);

  // A Target slug taken in the Space: the unique constraint, as ALREADY_EXISTS.
  absl::Status dup = f.Run([&](store::Tx& tx) {
    return store::InsertTarget(tx, {f.space.space_id(), "gitops", "Directory", {}}).status();
  });
  CHECK(dup.code() == absl::StatusCode::kAlreadyExists);
  // A second Release of one number in one Space.
  store::NewRelease again;
  again.space_id = f.space.space_id();
  again.target_id = f.target.target_id();
  again.release_num = 1;
  again.published_at = "2026-01-01T00:00:00Z";
  absl::Status taken =
      f.Run([&](store::Tx& tx) { return store::InsertRelease(tx, again).status(); });
  CHECK(taken.code() == absl::StatusCode::kAlreadyExists);

  // A text that is no UUID, as INVALID_ARGUMENT.
  absl::Status bad_id =
      f.Run([&](store::Tx& tx) { return store::FindReleaseByID(tx, "not-a-uuid").status(); });
  CHECK(bad_id.code() == absl::StatusCode::kInvalidArgument);

  // cub_set_release_status checks the values it writes.
  absl::Status bad_sync = f.Run([&](store::Tx& tx) {
    return store::SetReleaseStatus(tx, id, {"Sinking", "Healthy", "", ""});
  });
  CHECK(bad_sync.code() == absl::StatusCode::kInvalidArgument);
  CHECK_THAT(std::string(bad_sync.message()), Catch::Contains("sync Sinking"));

  // The delivery is written once; the append-only trigger refuses a second one.
  REQUIRE(f.Run([&](store::Tx& tx) {
             return store::SetReleaseDelivery(tx, id, "/deploy/dev", "abc");
           }).ok());
  absl::Status twice =
      f.Run([&](store::Tx& tx) { return store::SetReleaseDelivery(tx, id, "/deploy/dev", "def"); });
  CHECK(twice.code() == absl::StatusCode::kFailedPrecondition);
  CHECK_THAT(std::string(twice.message()), Catch::Contains("written once"));
  CHECK(f.Release(id).commit() == "abc");

  // A deployment's healthy time is written once too.
  const std::string entry = f.Facts(f.Release(id)).entry_id;
  REQUIRE(f.Run([&](store::Tx& tx) { return store::MarkDeploymentHealthy(tx, entry); }).ok());
  absl::Status restamp =
      f.Run([&](store::Tx& tx) { return store::MarkDeploymentHealthy(tx, entry); });
  CHECK(restamp.code() == absl::StatusCode::kFailedPrecondition);
}

// The check migration 0029 put in place of the foreign key: once per statement, still refusing
// a row that names no Release, and the whole statement with it.
TEST_CASE("store releases: every release_units row names a Release", "[store][db]") {
  Fixture f;
  const std::string id = f.Publish(1);
  pqxx::connection c(testing::RuntimeUrl(f.url));
  auto insert = [&](const std::vector<std::string>& release_ids, const std::string& unit) {
    pqxx::work w(c);
    w.exec_params(
        "INSERT INTO release_units (release_id, unit_id, unit_slug, revision_num, data_hash,"
        " file_name) SELECT r::uuid, gen_random_uuid(), $2 || g, 1, 'h', $2 || g || '.yaml'"
        " FROM unnest($1::text[]) r, generate_series(1, 3) g",
        "{" + absl::StrJoin(release_ids, ",") + "}", unit);
    w.commit();
  };
  CHECK_NOTHROW(insert({id}, "web-"));
  const std::string none = "00000000-0000-0000-0000-000000000001";
  try {
    insert({id, none}, "db-");
    FAIL("a row naming no Release was inserted");
  } catch (const pqxx::foreign_key_violation& e) {
    CHECK_THAT(std::string(e.what()), Catch::Contains("release " + none + " does not exist"));
  }
  pqxx::work r(c);
  CHECK(r.exec1("SELECT count(*) FROM release_units")[0].as<int>() == 3);
}

TEST_CASE("store releases: the deployment facts follow the history", "[store][db]") {
  Fixture f;
  const v1::Release r1 = f.Release(f.Publish(1));

  store::DeploymentFacts facts = f.Facts(r1);
  CHECK_FALSE(facts.entry_id.empty());
  CHECK(facts.entry_open);
  CHECK_FALSE(facts.entry_healthy);
  CHECK(facts.space_open);
  CHECK_FALSE(facts.newer_release);

  REQUIRE(
      f.Run([&](store::Tx& tx) { return store::MarkDeploymentHealthy(tx, facts.entry_id); }).ok());
  CHECK(f.Facts(r1).entry_healthy);

  REQUIRE(f.Run([&](store::Tx& tx) {
             return store::EndDeployment(tx, facts.entry_id, "Degraded");
           }).ok());
  facts = f.Facts(r1);
  CHECK_FALSE(facts.entry_open);
  CHECK_FALSE(facts.space_open);
  CHECK_FALSE(facts.newer_release);

  // A recovery: a new entry, current and healthy.
  REQUIRE(f.Run([&](store::Tx& tx) { return store::OpenHealthyDeployment(tx, r1); }).ok());
  store::DeploymentFacts recovered = f.Facts(r1);
  CHECK(recovered.entry_id != facts.entry_id);
  CHECK(recovered.entry_open);
  CHECK(recovered.entry_healthy);

  // A newer publish supersedes it.
  const v1::Release r2 = f.Release(f.Publish(2));
  facts = f.Facts(r1);
  CHECK_FALSE(facts.entry_open);
  CHECK(facts.space_open);
  CHECK(facts.newer_release);
  CHECK(f.Facts(r2).entry_open);

  auto history = store::InTransaction(
      *f.db, [&](store::Tx& tx) { return store::DeploymentHistory(tx, f.space.space_id()); });
  REQUIRE(history.ok());
  REQUIRE(history->size() == 3);
  CHECK((*history)[0].release_num() == 2);
  CHECK((*history)[1].end_reason() == "Superseded");
  CHECK((*history)[1].healthy_at() != "");
  CHECK((*history)[2].end_reason() == "Degraded");
}

}  // namespace
}  // namespace cub
