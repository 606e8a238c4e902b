// ops::Authenticator with a real OpenID verifier, against providers served on loopback by
// tests/harness/static_http.mjs (a discovery document and a key set the test writes), tokens
// signed with keys the test generates, and a real PostgreSQL as the runtime role: people
// created on first use with their groups, groups that follow the newest token, refusals of
// unknown issuers, wrong audiences and taken usernames, and CI tokens mapped to service
// accounts (one match, none, two), which cannot vote.
#include <unistd.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <filesystem>

#include "harness/jws_signer.h"
#include "harness/static_http.h"
#include "harness/test_db.h"
#include "lib/identity/jwt.h"
#include "lib/ops/attestations.h"
#include "lib/ops/authenticator.h"
#include "lib/ops/service_accounts.h"
#include "lib/ops/users.h"
#include "lib/store/migrations.h"

namespace cub::ops {
namespace {

using cub::testing::JwksText;
using cub::testing::MakeRsaKey;
using cub::testing::PublicJwk;
using cub::testing::SignJwt;
using cub::testing::StaticHttpServer;
using cub::testing::TestKey;

std::string TempDir(const std::string& name) {
  static std::atomic<int> n{0};
  return std::filesystem::temp_directory_path() /
         ("cub_oidc_login_" + std::to_string(getpid()) + "_" + name + "_" + std::to_string(n++));
}

// An OpenID provider: its discovery document and key set, and tokens signed with its key.
struct Provider {
  std::string dir;
  StaticHttpServer server;
  TestKey key = MakeRsaKey("k1");

  explicit Provider(const std::string& name) : dir(TempDir(name)), server(dir) {
    server.Write("/.well-known/openid-configuration",
                 JsonText(Json{{"issuer", issuer()}, {"jwks_uri", issuer() + "/jwks.json"}}));
    server.Write("jwks.json", JwksText({PublicJwk(key)}));
  }
  ~Provider() { std::filesystem::remove_all(dir); }
  std::string issuer() const { return server.url(); }

  // A token for `sub` and `aud`, issued `age` ago, with `extra` claims.
  std::string Token(const std::string& sub, const std::string& aud, Json extra = Json::object(),
                    absl::Duration age = absl::ZeroDuration()) const {
    const absl::Time iat = absl::Now() - age;
    Json claims = {{"iss", issuer()},
                   {"sub", sub},
                   {"aud", aud},
                   {"iat", absl::ToUnixSeconds(iat)},
                   {"exp", absl::ToUnixSeconds(absl::Now() + absl::Minutes(10))}};
    for (auto& [k, v] : extra.items()) claims[k] = v;
    return SignJwt(key, claims);
  }
};

struct Db {
  std::string url = testing::FreshDatabaseUrl("oidc_login");
  bool migrated = store::ApplyMigrations(url).ok();
  store::ConnectionPool owner{url, 1};
  store::ConnectionPool runtime{testing::RuntimeUrl(url), 2};
};

IdentityOptions People(const Provider& p) {
  net::InitHttpClient();
  OidcIssuer i;
  i.issuer = p.issuer();
  i.client_id = "cub-cli";
  i.username_prefix = "dex:";
  i.groups_prefix = "dex:";
  IdentityOptions o;
  o.issuers = {i};
  return o;
}

Json Person(const std::string& name, std::vector<std::string> groups) {
  return Json{{"preferred_username", name}, {"email", name + "@example.com"}, {"groups", groups}};
}

std::string Message(const absl::StatusOr<Principal>& p) {
  return p.ok() ? "(ok)" : std::string(p.status().message());
}

TEST_CASE("a person from a provider: created on first use, groups from the newest token") {
  Db db;
  REQUIRE(db.migrated);
  Provider idp("people");
  Authenticator auth(db.runtime, People(idp));

  auto first = auth.Authenticate(
      idp.Token("u-1", "cub-cli", Person("alice", {"admins", "dev"}), absl::Minutes(2)));
  INFO(Message(first));
  REQUIRE(first.ok());
  CHECK(first->username == "dex:alice");
  CHECK(first->groups == std::vector<std::string>{"dex:admins", "dex:dev"});
  CHECK(first->authenticated_by == "OIDC");
  CHECK(first->issuer == idp.issuer());
  CHECK(first->subject == "u-1");
  CHECK(first->email == "alice@example.com");
  CHECK(!first->admin);
  CHECK(!first->service_account);
  CHECK(!first->credential_expires_at.empty());

  // The same person again is the same user.
  auto again = auth.Authenticate(
      idp.Token("u-1", "cub-cli", Person("alice", {"admins", "dev"}), absl::Minutes(2)));
  REQUIRE(again.ok());
  CHECK(again->user_id == first->user_id);

  // A newer token without "admins": the group is gone.
  auto newer = auth.Authenticate(idp.Token("u-1", "cub-cli", Person("alice", {"dev"})));
  INFO(Message(newer));
  REQUIRE(newer.ok());
  CHECK(newer->groups == std::vector<std::string>{"dex:dev"});
  // The older token, still valid, cannot bring it back.
  auto older = auth.Authenticate(
      idp.Token("u-1", "cub-cli", Person("alice", {"admins", "dev"}), absl::Minutes(1)));
  REQUIRE(older.ok());
  CHECK(older->groups == std::vector<std::string>{"dex:dev"});
  auto users = ListUsers(db.owner);
  REQUIRE(users.ok());
  for (const auto& u : *users) {
    if (u.username() != "dex:alice") continue;
    CHECK(std::vector<std::string>(u.groups().begin(), u.groups().end()) ==
          std::vector<std::string>{"dex:dev"});
  }
}

TEST_CASE("provider tokens that name nobody are refused, saying why") {
  Db db;
  REQUIRE(db.migrated);
  Provider idp("refusals");
  Authenticator auth(db.runtime, People(idp));

  auto wrong_aud = auth.Authenticate(idp.Token("u-1", "someone-else", Person("alice", {})));
  CHECK(wrong_aud.status().code() == absl::StatusCode::kUnauthenticated);
  CHECK(Message(wrong_aud) ==
        "the token is for audience 'someone-else', not 'cub-cli' (OpenID "
        "issuer " +
            idp.issuer() + ")");

  // A token the issuer gave another client that lists cub's among its audiences is not a
  // person's login to cub (OpenID Connect Core 3.1.3.7).
  Json for_other = Person("carol", {});
  for_other["azp"] = "other-service";
  auto other_party = auth.Authenticate(idp.Token("u-5", "cub-cli", for_other));
  CHECK(Message(other_party) ==
        "the token was issued to client 'other-service' (azp), not "
        "'cub-cli' (OpenID issuer " +
            idp.issuer() + ")");
  Json several = Person("carol", {});
  several["aud"] = Json::array({"cub-cli", "other-service"});
  CHECK_THAT(Message(auth.Authenticate(idp.Token("u-5", "cub-cli", several))),
             Catch::StartsWith("the token names several audiences and no authorized party"));

  Provider stranger("stranger");
  auto unknown = auth.Authenticate(stranger.Token("u-1", "cub-cli", Person("alice", {})));
  CHECK(unknown.status().code() == absl::StatusCode::kUnauthenticated);
  CHECK_THAT(Message(unknown), Catch::StartsWith("the token was issued by '" + stranger.issuer() +
                                                 "', which cubd does not trust"));

  auto no_name = auth.Authenticate(idp.Token("u-2", "cub-cli", Json{{"groups", {"dev"}}}));
  CHECK(Message(no_name) == "the token of issuer " + idp.issuer() +
                                " for subject u-2 has no claim 'preferred_username' to name its "
                                "user by (ask the provider for the scope that adds it, or set "
                                "--oidc-username-claim)");
  auto bad_name = auth.Authenticate(idp.Token("u-2", "cub-cli", Person("al ice", {})));
  CHECK_THAT(Message(bad_name), Catch::Contains("names user 'dex:al ice'"));

  // A username someone has already is never handed to another login: not cub's own users,
  // not cubd's engine.
  REQUIRE(store::WithTransaction(db.owner, [](store::Tx& tx) {
            return store::InsertUser(tx, store::NewUser{"dex:bob"}).status();
          }).ok());
  auto taken = auth.Authenticate(idp.Token("u-3", "cub-cli", Person("bob", {})));
  CHECK_THAT(Message(taken), Catch::StartsWith("user 'dex:bob' already exists and is not "
                                               "subject u-3 of issuer " +
                                               idp.issuer()));
  IdentityOptions bare = People(idp);
  bare.issuers[0].username_prefix.clear();
  Authenticator no_prefix(db.runtime, bare);
  auto engine = no_prefix.Authenticate(idp.Token("u-4", "cub-cli", Person(kEngineUser, {})));
  CHECK_THAT(Message(engine), Catch::StartsWith("user 'automatic' already exists"));

  CHECK(Message(auth.Authenticate("")) ==
        "no bearer token: send one as \"authorization: Bearer TOKEN\"");
  CHECK(Message(auth.Authenticate("not-a-token")) == "the bearer token is not valid");
  CHECK(Message(auth.Authenticate(std::string(identity::kMaxJwtBytes + 1, 'a'))) ==
        "the bearer token is longer than 16384 bytes");
}

TEST_CASE("CI tokens act as the one service account whose mapping they match") {
  Db db;
  REQUIRE(db.migrated);
  Provider idp("people");
  Provider ci("ci");
  Authenticator auth(db.runtime, People(idp));
  NewWorkloadMapping m;
  m.name = "deployer-ci";
  m.issuer = ci.issuer();
  m.subject_pattern = "repo:acme/app:*";
  m.claims = {"repository=acme/app", "run_attempt=1"};
  auto created = CreateWorkloadMapping(db.owner, m);
  INFO(created.status().message());
  REQUIRE(created.ok());
  CHECK(created->created_user);

  const Json claims = {{"repository", "acme/app"}, {"run_attempt", 1}};
  auto p = auth.Authenticate(ci.Token("repo:acme/app:ref:refs/heads/main", "cubd", claims));
  INFO(Message(p));
  REQUIRE(p.ok());
  CHECK(p->username == "deployer-ci");
  CHECK(p->service_account);
  CHECK(!p->admin);
  CHECK(p->authenticated_by == "OIDC");
  CHECK(p->subject == "repo:acme/app:ref:refs/heads/main");

  // It never votes.
  auto vote = Approve(db.runtime, *p, v1::ApproveRequest());
  CHECK(vote.status().code() == absl::StatusCode::kPermissionDenied);
  CHECK_THAT(std::string(vote.status().message()),
             Catch::Contains("service account and cannot vote"));

  auto other_repo = auth.Authenticate(ci.Token("repo:acme/other:ref:main", "cubd", claims));
  CHECK(Message(other_repo) ==
        "no service account matches subject repo:acme/other:ref:main of "
        "issuer " +
            ci.issuer() + " (see cubd serviceaccount list)");
  auto wrong_claim = auth.Authenticate(ci.Token("repo:acme/app:ref:main", "cubd",
                                                {{"repository", "acme/fork"}, {"run_attempt", 1}}));
  CHECK_THAT(Message(wrong_claim), Catch::StartsWith("no service account matches subject"));
  auto wrong_aud =
      auth.Authenticate(ci.Token("repo:acme/app:ref:main", "sts.amazonaws.com", claims));
  CHECK_THAT(Message(wrong_aud),
             Catch::StartsWith("the token is for audience 'sts.amazonaws.com'"));

  // A second mapping that matches too: cubd refuses to choose.
  NewWorkloadMapping wide;
  wide.name = "any-acme";
  wide.issuer = ci.issuer();
  wide.subject_pattern = "repo:acme/*";
  REQUIRE(CreateWorkloadMapping(db.owner, wide).ok());
  auto both = auth.Authenticate(ci.Token("repo:acme/app:ref:refs/heads/main", "cubd", claims));
  CHECK(Message(both) == "subject repo:acme/app:ref:refs/heads/main of issuer " + ci.issuer() +
                             " matches 2 service account mappings (any-acme, deployer-ci): cubd "
                             "will not choose; make them narrower with --subject or --claim");

  // The owner's command refuses what cannot work.
  NewWorkloadMapping person = m;
  person.name = "dex:alice";
  CHECK(!CreateWorkloadMapping(db.owner, person).ok());
  store::NewUser carol;
  carol.username = "carol";
  REQUIRE(CreateUser(db.owner, carol).ok());
  person.name = "carol";
  CHECK(CreateWorkloadMapping(db.owner, person).status().message() ==
        "user 'carol' is not a service account: choose another name for the CI workload's account");
  person.name = "automatic";
  CHECK(CreateWorkloadMapping(db.owner, person).status().code() ==
        absl::StatusCode::kFailedPrecondition);
  NewWorkloadMapping bad = m;
  bad.claims = {"sub=x"};
  CHECK(!CreateWorkloadMapping(db.owner, bad).ok());
  bad = m;
  bad.issuer = "http://ci.example.com";
  CHECK(!CreateWorkloadMapping(db.owner, bad).ok());
}

}  // namespace
}  // namespace cub::ops
