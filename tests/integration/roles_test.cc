// The two database roles against a real PostgreSQL: the checks `cubd serve` makes before
// serving (schema current, role unfit to alter records), and what the runtime role may not do.
#include "lib/store/roles.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <pqxx/pqxx>

#include "harness/test_db.h"
#include "lib/store/migrations.h"

namespace cub {
namespace {

// Runs `sql` as the role of `url`; returns the error message, or "" when it succeeded.
std::string Refusal(const std::string& url, const std::string& sql) {
  try {
    pqxx::connection c(url);
    pqxx::work w(c);
    w.exec(sql);
    w.commit();
    return "";
  } catch (const std::exception& e) {
    return e.what();
  }
}

TEST_CASE("serving needs a current schema") {
  std::string url = testing::FreshDatabaseUrl("roles_schema");
  absl::Status s = store::CheckSchemaCurrent(url);
  CHECK(s.code() == absl::StatusCode::kFailedPrecondition);
  CHECK_THAT(std::string(s.message()), Catch::Contains("cubd migrate"));
  std::vector<store::EmbeddedMigration> first(store::EmbeddedMigrations().begin(),
                                              store::EmbeddedMigrations().begin() + 1);
  REQUIRE(store::ApplyMigrations(url, first).ok());
  s = store::CheckSchemaCurrent(url);
  CHECK(s.code() == absl::StatusCode::kFailedPrecondition);
  CHECK_THAT(std::string(s.message()), Catch::Contains("0002_"));
  REQUIRE(store::ApplyMigrations(url).ok());
  CHECK(store::CheckSchemaCurrent(url).ok());
  // The runtime role may read whether it is current, not migrate.
  CHECK(store::CheckSchemaCurrent(testing::RuntimeUrl(url)).ok());
}

TEST_CASE("the owner may not serve; the runtime role may, and cannot alter records") {
  std::string url = testing::FreshDatabaseUrl("roles_runtime");
  REQUIRE(store::ApplyMigrations(url).ok());
  absl::Status owner = store::CheckRuntimeRole(url);
  CHECK(owner.code() == absl::StatusCode::kFailedPrecondition);
  CHECK_THAT(std::string(owner.message()), Catch::Contains("superuser"));
  const std::string rt = testing::RuntimeUrl(url);
  CHECK(store::CheckRuntimeRole(rt).ok());

  CHECK_THAT(Refusal(rt, "DELETE FROM revisions"), Catch::Contains("permission denied"));
  CHECK_THAT(Refusal(rt, "UPDATE releases SET description = 'x'"),
             Catch::Contains("permission denied"));
  CHECK_THAT(Refusal(rt, "TRUNCATE attestations CASCADE"), Catch::Contains("permission denied"));
  CHECK_THAT(Refusal(rt, "DROP TRIGGER revisions_append_only ON revisions"),
             Catch::Contains("must be owner"));
  CHECK_THAT(Refusal(rt, "ALTER TABLE revisions DISABLE TRIGGER ALL"),
             Catch::Contains("must be owner"));
  CHECK_THAT(Refusal(rt, "CREATE TABLE x (y int)"), Catch::Contains("permission denied"));
  CHECK_THAT(Refusal(rt, "SELECT cub_purge_space(gen_random_uuid(), 'r', 'me')"),
             Catch::Contains("permission denied"));
  // Even the owner is refused by the triggers.
  CHECK_THAT(Refusal(url, "TRUNCATE revisions"),
             Catch::Contains("revisions is append-only: TRUNCATE refused"));
  CHECK_THAT(Refusal(url, "TRUNCATE purges"), Catch::Contains("purges is append-only"));

  // A runtime role given more than it needs is refused.
  REQUIRE(Refusal(url, "GRANT UPDATE ON revisions TO cub_serve") == "");
  absl::Status widened = store::CheckRuntimeRole(rt);
  CHECK(widened.code() == absl::StatusCode::kFailedPrecondition);
  CHECK_THAT(std::string(widened.message()), Catch::Contains("revisions"));
  REQUIRE(Refusal(url, "REVOKE UPDATE ON revisions FROM cub_serve") == "");
  CHECK(store::CheckRuntimeRole(rt).ok());
}

TEST_CASE("a purge removes the records of a deleted space only, as the owner, and is recorded") {
  std::string url = testing::FreshDatabaseUrl("roles_purge");
  REQUIRE(store::ApplyMigrations(url).ok());
  REQUIRE(Refusal(url,
                  "INSERT INTO revisions (unit_id, space_id, revision_num, data, data_hash)"
                  " VALUES ('00000000-0000-0000-0000-000000000001',"
                  " '00000000-0000-0000-0000-0000000000aa', 1, 'x', 'h')") == "");
  CHECK(store::PurgeSpace(url, "00000000-0000-0000-0000-0000000000aa", "", "me").status().code() ==
        absl::StatusCode::kInvalidArgument);
  auto denied = store::PurgeSpace(testing::RuntimeUrl(url), "00000000-0000-0000-0000-0000000000aa",
                                  "why", "me");
  CHECK(denied.status().code() == absl::StatusCode::kPermissionDenied);
  CHECK_THAT(std::string(denied.status().message()), Catch::Contains("as the owner"));
  CHECK(store::PurgeSpace(url, "nope", "why", "me").status().code() == absl::StatusCode::kNotFound);
  auto purged = store::PurgeSpace(url, "00000000-0000-0000-0000-0000000000aa", "test data", "me");
  REQUIRE(purged.ok());
  CHECK_THAT(purged->removed, Catch::Contains("\"revisions\": 1"));
  pqxx::connection c(url);
  pqxx::work w(c);
  CHECK(w.exec1("SELECT count(*) FROM revisions")[0].as<int>() == 0);
  pqxx::row p = w.exec1("SELECT reason, requested_by, database_role FROM purges");
  CHECK(p[0].as<std::string>() == "test data");
  CHECK(p[1].as<std::string>() == "me");
  CHECK(p[2].as<std::string>() == "cub_test");
}

TEST_CASE("0012 keeps the releases of a database migrated before it readable by their names") {
  std::string url = testing::FreshDatabaseUrl("roles_upgrade");
  const auto& all = store::EmbeddedMigrations();
  auto at_0012 = std::find_if(all.begin(), all.end(), [](const store::EmbeddedMigration& m) {
    return std::string(m.name).rfind("0012_", 0) == 0;
  });
  REQUIRE(at_0012 != all.end());
  REQUIRE(store::ApplyMigrations(url, {all.begin(), at_0012}).ok());
  REQUIRE(
      Refusal(url,
              "INSERT INTO spaces (id, slug) VALUES ('00000000-0000-0000-0000-00000000000a',"
              " 'app'), ('00000000-0000-0000-0000-00000000000b', 'platform');"
              " INSERT INTO targets (id, space_id, slug, provider) VALUES"
              " ('00000000-0000-0000-0000-00000000000c', '00000000-0000-0000-0000-00000000000b',"
              " 'out', 'Directory');"
              " INSERT INTO releases (space_id, target_id, release_num, bundle_digest,"
              " provenance) VALUES ('00000000-0000-0000-0000-00000000000a',"
              " '00000000-0000-0000-0000-00000000000c', 1, 'sha256:00', '')") == "");
  REQUIRE(store::ApplyMigrations(url).ok());
  pqxx::connection c(url);
  pqxx::work w(c);
  pqxx::row r = w.exec1("SELECT space_slug, target FROM releases");
  CHECK(r[0].as<std::string>() == "app");
  CHECK(r[1].as<std::string>() == "platform/out");
}

}  // namespace
}  // namespace cub
