// lib/store/identities against a real PostgreSQL, as the runtime role cubd serves as: a
// person's groups follow the newest token and never an older one, an unchanged login writes
// nothing, and the runtime may read workload mappings but not write them.
#include <catch2/catch.hpp>
#include <pqxx/pqxx>

#include "harness/test_db.h"
#include "lib/store/identities.h"
#include "lib/store/migrations.h"
#include "lib/store/pool.h"
#include "lib/store/users.h"

namespace cub {
namespace {

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

// The row version of the identity and of the user's groups: unchanged when nothing was written.
std::string Versions(const std::string& url, const std::string& user_id) {
  pqxx::connection c(url);
  pqxx::work w(c);
  return w
      .exec_params1(
          "SELECT (SELECT xmin::text FROM user_identities WHERE user_id = $1::uuid) || '/' ||"
          " coalesce((SELECT string_agg(xmin::text, ',' ORDER BY group_name) FROM user_groups"
          "           WHERE user_id = $1::uuid), '')",
          user_id)[0]
      .as<std::string>();
}

store::SyncedGroups Sync(store::ConnectionPool& db, const std::string& user_id,
                         const std::string& iat, const std::vector<std::string>& groups,
                         const std::string& email = "a@example.com") {
  auto r = store::InTransaction(db, [&](store::Tx& tx) {
    return store::SyncIdentity(tx, {user_id, "", "", email, iat}, groups);
  });
  REQUIRE(r.ok());
  return *r;
}

TEST_CASE("groups follow the newest token, and an unchanged login writes nothing") {
  const std::string url = testing::FreshDatabaseUrl("store_identities");
  REQUIRE(store::ApplyMigrations(url).ok());
  const std::string rt = testing::RuntimeUrl(url);
  store::ConnectionPool db(rt, 2);
  std::string user_id;
  REQUIRE(store::WithTransaction(db, [&](store::Tx& tx) -> absl::Status {
            auto u = store::InsertUser(tx, store::NewUser{"dex:alice", {"dex:a", "dex:b"}});
            if (!u.ok()) return u.status();
            user_id = u->user_id();
            return store::InsertIdentity(
                tx, {user_id, "https://idp", "sub-1", "a@example.com", "2026-12-01T10:00:00Z"});
          }).ok());
  auto found = store::InReadTransaction(
      db, [&](store::Tx& tx) { return store::FindIdentityUser(tx, "https://idp", "sub-1"); });
  REQUIRE(found.ok());
  CHECK(*found == user_id);
  auto none = store::InReadTransaction(
      db, [&](store::Tx& tx) { return store::FindIdentityUser(tx, "https://idp", "sub-2"); });
  REQUIRE(none.ok());
  CHECK(!none->has_value());

  const std::string before = Versions(url, user_id);
  // The same token again: nothing changes, nothing is written.
  auto same = Sync(db, user_id, "2026-12-01T10:00:00Z", {"dex:b", "dex:a"});
  CHECK(same.fresh);
  CHECK(same.groups == std::vector<std::string>{"dex:a", "dex:b"});
  CHECK(Versions(url, user_id) == before);

  // A newer token without dex:b removes it and adds dex:c.
  auto newer = Sync(db, user_id, "2026-12-01T11:00:00Z", {"dex:a", "dex:c"});
  CHECK(newer.fresh);
  CHECK(newer.groups == std::vector<std::string>{"dex:a", "dex:c"});
  // An older token (still valid) cannot bring dex:b back; the groups stay the newer token's.
  auto older = Sync(db, user_id, "2026-12-01T10:30:00Z", {"dex:a", "dex:b"});
  CHECK(!older.fresh);
  CHECK(older.groups == std::vector<std::string>{"dex:a", "dex:c"});
  // Nor can a token without iat, once one with it was seen.
  CHECK(!Sync(db, user_id, "", {"dex:b"}).fresh);
  auto user =
      store::InReadTransaction(db, [&](store::Tx& tx) { return store::FindUserById(tx, user_id); });
  REQUIRE(user.ok());
  REQUIRE(user->has_value());
  CHECK(std::vector<std::string>((*user)->groups().begin(), (*user)->groups().end()) ==
        std::vector<std::string>{"dex:a", "dex:c"});
  // A new email alone is written; every group removed is too.
  auto emptied = Sync(db, user_id, "2026-12-01T12:00:00Z", {}, "alice@example.org");
  CHECK(emptied.fresh);
  CHECK(emptied.groups.empty());
  pqxx::connection c(url);
  pqxx::work w(c);
  CHECK(w.exec_params1("SELECT email FROM user_identities WHERE user_id = $1::uuid", user_id)[0]
            .as<std::string>() == "alice@example.org");
  CHECK(w.exec_params1("SELECT count(*) FROM user_groups WHERE user_id = $1::uuid", user_id)[0]
            .as<int>() == 0);
}

TEST_CASE("workload mappings: written by the owner, read by the runtime") {
  const std::string url = testing::FreshDatabaseUrl("store_workloads");
  REQUIRE(store::ApplyMigrations(url).ok());
  store::ConnectionPool owner(url, 1);
  auto made = store::InTransaction(owner, [&](store::Tx& tx) -> absl::StatusOr<std::string> {
    auto u = store::InsertUser(tx, store::NewUser{"ci", {}, false, true});
    if (!u.ok()) return u.status();
    store::WorkloadIdentity w;
    w.user_id = u->user_id();
    w.issuer = "https://ci.example";
    w.audience = "cubd";
    w.subject_pattern = "repo:acme/*";
    w.claims = {{"repository", "acme/app"}, {"ref", "refs/heads/main"}};
    auto inserted = store::InsertWorkloadIdentity(tx, w);
    if (!inserted.ok()) return inserted.status();
    return inserted->id;
  });
  REQUIRE(made.ok());
  const std::string rt = testing::RuntimeUrl(url);
  store::ConnectionPool db(rt, 1);
  auto listed = store::InReadTransaction(
      db, [&](store::Tx& tx) { return store::ListWorkloadIdentities(tx, "https://ci.example"); });
  REQUIRE(listed.ok());
  REQUIRE(listed->size() == 1);
  CHECK((*listed)[0].username == "ci");
  CHECK((*listed)[0].subject_pattern == "repo:acme/*");
  CHECK((*listed)[0].claims.at("repository") == "acme/app");
  CHECK((*listed)[0].claims.at("ref") == "refs/heads/main");
  auto other = store::InReadTransaction(
      db, [&](store::Tx& tx) { return store::ListWorkloadIdentities(tx, "https://other"); });
  REQUIRE(other.ok());
  CHECK(other->empty());
  CHECK_THAT(Refusal(rt,
                     "INSERT INTO workload_identities (user_id, issuer, audience,"
                     " subject_pattern) SELECT id, 'https://evil', 'cubd', '*' FROM users"
                     " WHERE username = 'ci'"),
             Catch::Contains("permission denied"));
  CHECK_THAT(Refusal(rt, "UPDATE workload_identities SET subject_pattern = '*'"),
             Catch::Contains("permission denied"));
  CHECK_THAT(Refusal(rt, "DELETE FROM user_identities"), Catch::Contains("permission denied"));
  // It keeps email and groups current, but cannot repoint an identity at another user.
  CHECK_THAT(Refusal(rt, "UPDATE user_identities SET user_id = user_id"),
             Catch::Contains("permission denied"));
  CHECK_THAT(Refusal(rt, "UPDATE user_identities SET subject = 'x'"),
             Catch::Contains("permission denied"));
}

}  // namespace
}  // namespace cub
