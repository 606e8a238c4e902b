// cub's own API tokens against a real PostgreSQL: the upgrade gives existing tokens an expiry,
// the database keeps a token append-only but for revoking it once (whoever asks), the runtime
// role may only issue, read and revoke, and lib/ops/tokens refuses expired and revoked tokens
// saying which, when and by whom.
#include "lib/ops/tokens.h"

#include <catch2/catch.hpp>
#include <pqxx/pqxx>
#include <string>
#include <vector>

#include "harness/test_db.h"
#include "lib/ops/users.h"
#include "lib/store/migrations.h"
#include "lib/store/roles.h"

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

std::string Query1(const std::string& url, const std::string& sql) {
  pqxx::connection c(url);
  pqxx::work w(c);
  return w.exec1(sql)[0].as<std::string>();
}

struct Fixture {
  std::string url = testing::FreshDatabaseUrl("tokens");
  std::unique_ptr<store::ConnectionPool> db;
  ops::CreatedUser alice, admin;

  Fixture() {
    REQUIRE(store::ApplyMigrations(url).ok());
    db = std::make_unique<store::ConnectionPool>(testing::RuntimeUrl(url), 2);
    auto a = ops::CreateUser(*db, store::NewUser{"alice", {}, false, false}, {"7d", "laptop"});
    REQUIRE(a.ok());
    alice = *a;
    auto b = ops::CreateUser(*db, store::NewUser{"root", {}, true, false});
    REQUIRE(b.ok());
    admin = *b;
  }
  std::string Sql(const std::string& s) { return Refusal(url, s); }
};

TEST_CASE("the upgrade gives tokens made before it an expiry 90 days out") {
  const std::string url = testing::FreshDatabaseUrl("tokens_upgrade");
  std::vector<store::EmbeddedMigration> before;
  for (const auto& m : store::EmbeddedMigrations()) {
    if (std::string(m.name) < "0020") before.push_back(m);
  }
  REQUIRE(store::ApplyMigrations(url, before).ok());
  REQUIRE(Refusal(url,
                  "INSERT INTO users (username) VALUES ('old');"
                  "INSERT INTO tokens (user_id, token_hash, created_at)"
                  " SELECT id, '\\x01', now() - interval '2 years' FROM users"
                  " WHERE username = 'old'") == "");
  REQUIRE(store::ApplyMigrations(url).ok());
  CHECK(Query1(url,
               "SELECT expires_at BETWEEN now() + interval '90 days' - interval '1 hour'"
               " AND now() + interval '90 days' FROM tokens") == "t");
  CHECK(Query1(url, "SELECT description = '' AND revoked_by IS NULL FROM tokens") == "t");
  CHECK_THAT(Refusal(url, "INSERT INTO tokens (user_id, token_hash) SELECT id, '\\x02' FROM users"),
             Catch::Contains("expires_at"));
}

TEST_CASE("a token authenticates until it expires or is revoked, and says which") {
  Fixture f;
  auto p = ops::AuthenticateToken(*f.db, f.alice.token);
  REQUIRE(p.ok());
  CHECK(p->username == "alice");
  CHECK(p->authenticated_by == "Token");
  CHECK(p->credential_expires_at == f.alice.token_info.expires_at());
  CHECK(f.alice.token_info.description() == "laptop");
  CHECK(f.alice.token_info.state() == "Active");
  CHECK(ops::Authenticate(*f.db, f.alice.token).ok());

  auto unknown = ops::AuthenticateToken(*f.db, "cub_nothing");
  CHECK(unknown.status().code() == absl::StatusCode::kUnauthenticated);
  CHECK(unknown.status().message() == "the bearer token is not valid");

  // Brought forward by the owner: allowed, and then refused as expired.
  REQUIRE(f.Sql("UPDATE tokens SET expires_at = '2026-01-02T03:04:05Z' WHERE id = '" +
                f.alice.token_info.token_id() + "'") == "");
  auto expired = ops::AuthenticateToken(*f.db, f.alice.token);
  CHECK(expired.status().code() == absl::StatusCode::kUnauthenticated);
  CHECK(expired.status().message() ==
        "the bearer token expired at 2026-01-02T03:04:05Z; create a new one with "
        "`cub auth token create` (or log in again)");

  auto root = ops::AuthenticateToken(*f.db, f.admin.token);
  REQUIRE(root.ok());
  v1::RevokeTokenRequest rev;
  rev.set_token_id(f.admin.token_info.token_id());
  auto revoked = ops::RevokeToken(*f.db, *root, rev);
  REQUIRE(revoked.ok());
  CHECK(revoked->token().state() == "Revoked");
  CHECK(revoked->token().revoked_by() == "root");
  auto refused = ops::AuthenticateToken(*f.db, f.admin.token);
  CHECK(refused.status().code() == absl::StatusCode::kUnauthenticated);
  CHECK_THAT(
      std::string(refused.status().message()),
      Catch::StartsWith("the bearer token was revoked at 20") && Catch::EndsWith("Z by root"));
  // Revoking twice says when it was.
  auto again = ops::RevokeToken(*f.db, *root, rev);
  CHECK(again.status().code() == absl::StatusCode::kFailedPrecondition);
  CHECK_THAT(std::string(again.status().message()),
             Catch::Contains("was already revoked at") && Catch::Contains("by root"));
}

TEST_CASE("a revoked token stays revoked, whoever asks; the runtime may only revoke") {
  Fixture f;
  const std::string id = f.alice.token_info.token_id();
  const std::string where = " WHERE id = '" + id + "'";
  const std::string rt = testing::RuntimeUrl(f.url);
  // The runtime role: no other column, no DELETE, no TRUNCATE.
  CHECK_THAT(Refusal(rt, "UPDATE tokens SET token_hash = '\\x00'" + where),
             Catch::Contains("permission denied"));
  CHECK_THAT(Refusal(rt, "UPDATE tokens SET expires_at = now()" + where),
             Catch::Contains("permission denied"));
  CHECK_THAT(Refusal(rt, "DELETE FROM tokens" + where), Catch::Contains("permission denied"));
  CHECK_THAT(Refusal(rt, "TRUNCATE tokens"), Catch::Contains("permission denied"));
  // The owner: no new hash, holder or longer life.
  CHECK_THAT(f.Sql("UPDATE tokens SET token_hash = '\\x00'" + where),
             Catch::Contains("only revoked_at and revoked_by may be set"));
  CHECK_THAT(f.Sql("UPDATE tokens SET expires_at = expires_at + interval '1 day'" + where),
             Catch::Contains("not put off"));
  // Revoked once (as the runtime may), then never un-revoked or re-attributed.
  REQUIRE(Refusal(rt, "UPDATE tokens SET revoked_at = now(), revoked_by = user_id" + where) == "");
  CHECK_THAT(f.Sql("UPDATE tokens SET revoked_at = NULL, revoked_by = NULL" + where),
             Catch::Contains("it stays revoked"));
  CHECK_THAT(Refusal(rt, "UPDATE tokens SET revoked_at = NULL, revoked_by = NULL" + where),
             Catch::Contains("it stays revoked"));
  CHECK_THAT(f.Sql("UPDATE tokens SET revoked_by = (SELECT id FROM users WHERE username = "
                   "'root')" +
                   where),
             Catch::Contains("it stays revoked"));
  CHECK(store::CheckRuntimeRole(rt).ok());
}

TEST_CASE("lifetimes, descriptions, and whose tokens a caller may list and revoke") {
  Fixture f;
  ops::IdentityOptions opts;
  opts.token_default_lifetime = absl::Hours(24);
  opts.token_max_lifetime = absl::Hours(48);
  CHECK(*ops::TokenLifetime(opts, "") == absl::Hours(24));
  CHECK(*ops::TokenLifetime(opts, "2d") == absl::Hours(48));
  auto too_long = ops::TokenLifetime(opts, "49h");
  CHECK(too_long.status().code() == absl::StatusCode::kInvalidArgument);
  CHECK(too_long.status().message() ==
        "ExpiresIn '49h' is longer than a token may live: at most 2d "
        "(cubd serve --token-max-lifetime)");
  CHECK_THAT(std::string(ops::TokenLifetime(opts, "soon").status().message()),
             Catch::StartsWith("ExpiresIn 'soon' is not a duration"));

  auto alice = ops::AuthenticateToken(*f.db, f.alice.token);
  auto root = ops::AuthenticateToken(*f.db, f.admin.token);
  REQUIRE(alice.ok());
  REQUIRE(root.ok());
  v1::CreateTokenRequest create;
  create.set_description("two\nlines");
  CHECK(ops::CreateToken(*f.db, opts, *alice, create).status().message() ==
        "Description must be one line");
  create.set_description(std::string(257, 'x'));
  CHECK_THAT(std::string(ops::CreateToken(*f.db, opts, *alice, create).status().message()),
             Catch::Contains("257 bytes"));
  create.set_description("ci");
  auto made = ops::CreateToken(*f.db, opts, *alice, create);
  REQUIRE(made.ok());
  CHECK(made->secret().rfind("cub_", 0) == 0);
  CHECK(made->secret().size() == 4 + 43);
  CHECK(made->token().username() == "alice");

  v1::ListTokensRequest list;
  auto own = ops::ListTokens(*f.db, *alice, list);
  REQUIRE(own.ok());
  REQUIRE(own->tokens_size() == 2);
  CHECK(own->tokens(0).token_id() == made->token().token_id());  // newest first
  list.set_user("*");
  CHECK(ops::ListTokens(*f.db, *alice, list).status().code() ==
        absl::StatusCode::kPermissionDenied);
  auto all = ops::ListTokens(*f.db, *root, list);
  REQUIRE(all.ok());
  CHECK(all->tokens_size() == 3);
  list.set_user("nobody");
  CHECK(ops::ListTokens(*f.db, *root, list).status().code() == absl::StatusCode::kNotFound);

  // Another's token is NOT_FOUND to a non-admin, as a missing one is.
  v1::RevokeTokenRequest rev;
  rev.set_token_id(f.admin.token_info.token_id());
  auto others = ops::RevokeToken(*f.db, *alice, rev);
  CHECK(others.status().code() == absl::StatusCode::kNotFound);
  rev.set_token_id("00000000-0000-0000-0000-000000000000");
  auto missing = ops::RevokeToken(*f.db, *alice, rev);
  CHECK(missing.status().code() == absl::StatusCode::kNotFound);
  rev.set_token_id("nope");
  CHECK(ops::RevokeToken(*f.db, *alice, rev).status().code() == absl::StatusCode::kInvalidArgument);

  // The engine's user never gets one.
  CHECK(ops::IssueTokenForUser(*f.db, opts, ops::kEngineUser, {}).status().code() ==
        absl::StatusCode::kPermissionDenied);
}

}  // namespace
}  // namespace cub
