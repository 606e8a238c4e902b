// release_artifacts (migrations/0025) against a real PostgreSQL: an OCI Release's artifact is
// recorded in the statement that records it Delivered, read back on the Release, written once,
// and refused to the runtime and to the owner alike when changed.
#include <catch2/catch.hpp>
#include <pqxx/pqxx>

#include "harness/test_db.h"
#include "lib/ops/spaces.h"
#include "lib/ops/users.h"
#include "lib/store/deliveries.h"
#include "lib/store/migrations.h"
#include "lib/store/releases.h"
#include "lib/util/status_macros.h"

namespace cub {
namespace {

const std::string kDigest = "sha256:" + std::string(64, 'b');

struct Fixture {
  std::string url = testing::FreshDatabaseUrl("store_art");
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
      return store::InsertTarget(
          tx, {space.space_id(), "registry", "OCI", {{"repository", "r.example.com/cub"}}});
    });
    REQUIRE(t.ok());
    target = *t;
  }

  std::string Publish() {
    auto id = store::InTransaction(*db, [&](store::Tx& tx) -> absl::StatusOr<std::string> {
      CUB_ASSIGN_OR_RETURN(int64_t num, store::LockNextReleaseNum(tx, space.space_id()));
      store::NewRelease r;
      r.space_id = space.space_id();
      r.space_slug = space.slug();
      r.target_id = target.target_id();
      r.target = "dev/registry";
      r.release_num = num;
      r.bundle_digest = "sha256:" + std::string(64, 'a');
      r.published_at = "2026-01-01T00:00:00Z";
      r.provenance = "{}";
      return store::InsertRelease(tx, r);
    });
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

  absl::StatusOr<int> Deliver(const std::vector<store::DeliveredRow>& rows) {
    return store::InTransaction(*db,
                                [&](store::Tx& tx) { return store::RecordDelivered(tx, rows); });
  }

  // Runs `sql` as `conn_url`'s user; returns the error text, empty when it succeeded.
  static std::string Refusal(const std::string& conn_url, const std::string& sql) {
    try {
      pqxx::connection c(conn_url);
      pqxx::work w(c);
      w.exec(sql);
      w.commit();
      return "";
    } catch (const std::exception& e) {
      return e.what();
    }
  }
};

TEST_CASE("release_artifacts: recorded with the delivery, read on the Release, written once",
          "[store][db]") {
  Fixture f;
  const std::string oci = f.Publish(), plain = f.Publish();
  const std::string ref = "r.example.com/cub:dev-r1";
  auto n = f.Deliver({{oci, ref, "", kDigest, ref}, {plain, "/deploy/dev", "", "", ""}});
  REQUIRE(n.ok());
  CHECK(*n == 2);
  v1::Release r = f.Release(oci);
  CHECK(r.delivery_state() == "Delivered");
  CHECK(r.artifact_digest() == kDigest);
  CHECK(r.artifact_ref() == ref);
  CHECK(r.location() == ref);
  v1::Release p = f.Release(plain);
  CHECK(p.artifact_digest().empty());
  CHECK(p.artifact_ref().empty());

  // Recorded again (another cubd got there first): nothing changes, nothing fails.
  n = f.Deliver({{oci, ref, "", "sha256:" + std::string(64, 'c'), ref + "x"}});
  REQUIRE(n.ok());
  CHECK(*n == 0);
  CHECK(f.Release(oci).artifact_digest() == kDigest);

  const std::string runtime = testing::RuntimeUrl(f.url);
  CHECK_THAT(Fixture::Refusal(runtime, "UPDATE release_artifacts SET ref = 'x'"),
             Catch::Contains("permission denied"));
  CHECK_THAT(Fixture::Refusal(runtime, "DELETE FROM release_artifacts"),
             Catch::Contains("permission denied"));
  CHECK_THAT(Fixture::Refusal(f.url, "UPDATE release_artifacts SET ref = 'x'"),
             Catch::Contains("release_artifacts is append-only: UPDATE refused"));
  CHECK_THAT(Fixture::Refusal(f.url, "DELETE FROM release_artifacts"),
             Catch::Contains("release_artifacts is append-only: DELETE refused"));
  CHECK(f.Release(oci).artifact_ref() == ref);
}

TEST_CASE("release_artifacts: a malformed digest fails the whole record", "[store][db]") {
  Fixture f;
  const std::string id = f.Publish();
  auto n = f.Deliver({{id, "r.example.com/cub:dev-r1", "", "sha256:short", "r.example.com/cub"}});
  CHECK_FALSE(n.ok());
  // Not Delivered without its artifact.
  v1::Release r = f.Release(id);
  CHECK(r.delivery_state() == "Pending");
  CHECK(r.artifact_digest().empty());
}

}  // namespace
}  // namespace cub
