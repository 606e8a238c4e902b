// Unit tests for the CLI's OpenID login pieces that need no provider: PKCE (RFC 7636), the
// loopback callback's query, discovery document checks, token answers, and which connections
// are refreshed. The flows themselves run against the real provider in
// tests/e2e/oidc_login_test.sh.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <string>

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "cli/client.h"
#include "cli/config.h"
#include "cli/oidc_browser.h"
#include "cli/oidc_login.h"
#include "cli/oidc_refresh.h"

namespace cub::cli {
namespace {

using oidc::ParseCallback;

TEST_CASE("A code verifier is 43 to 128 unreserved characters, new each time", "[oidc]") {
  const std::string a = oidc::NewCodeVerifier();
  const std::string b = oidc::NewCodeVerifier();
  CHECK(a != b);
  for (const std::string& v : {a, b}) {
    CHECK(v.size() >= 43);
    CHECK(v.size() <= 128);
    CHECK(
        v.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~") ==
        std::string::npos);
  }
}

TEST_CASE("The S256 challenge matches RFC 7636 appendix B", "[oidc]") {
  CHECK(oidc::CodeChallengeS256("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk") ==
        "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM");
}

TEST_CASE("The authorization URL asks for the code with the S256 challenge", "[oidc]") {
  oidc::ProviderEndpoints e;
  e.authorization_endpoint = "http://127.0.0.1:9/auth";
  oidc::LoginClient client;
  client.client_id = "cub-cli";
  oidc::AuthorizationRequest r{"http://127.0.0.1:5000/callback", "st", "no", "ch"};
  const std::string url = oidc::AuthorizationUrl(e, client, r);
  CHECK(absl::StartsWith(url, "http://127.0.0.1:9/auth?response_type=code&client_id=cub-cli&"));
  CHECK(absl::StrContains(url, "redirect_uri=http%3A%2F%2F127.0.0.1%3A5000%2Fcallback"));
  CHECK(absl::StrContains(url, "code_challenge=ch&code_challenge_method=S256"));
  CHECK(absl::StrContains(url, "state=st&nonce=no"));
  CHECK(absl::StrContains(url, "scope=openid"));
}

TEST_CASE("The callback gives its code only with this login's state", "[oidc]") {
  auto ok = ParseCallback("/callback?code=abc%2B1&state=s1&iss=x", "s1");
  REQUIRE(ok.ok());
  CHECK(*ok == "abc+1");

  auto wrong = ParseCallback("/callback?code=abc&state=other", "s1");
  REQUIRE_FALSE(wrong.ok());
  CHECK(absl::StrContains(wrong.status().message(), "state does not match"));
  // The code AwaitCallback keeps waiting on, so a stray request cannot abort the login.
  CHECK(absl::IsFailedPrecondition(wrong.status()));
  CHECK_FALSE(ParseCallback("/callback?code=abc", "s1").ok());

  auto denied = ParseCallback(
      "/callback?error=access_denied&error_description=End-User+aborted&state=s1", "s1");
  REQUIRE_FALSE(denied.ok());
  CHECK(denied.status().message() ==
        "the provider refused the login: access_denied: End-User aborted");

  auto no_code = ParseCallback("/callback?state=s1", "s1");
  REQUIRE_FALSE(no_code.ok());
  CHECK(no_code.status().message() == "the callback carries no code");
  CHECK_FALSE(ParseCallback("/callback", "s1").ok());
  auto bad = ParseCallback("/callback?code=%zz&state=s1", "s1");
  REQUIRE_FALSE(bad.ok());
  CHECK(absl::StrContains(bad.status().message(), "code"));
}

TEST_CASE("A discovery document must name the issuer asked for and usable endpoints", "[oidc]") {
  const std::string issuer = "http://127.0.0.1:31480";
  auto good = oidc::ParseDiscovery(
      issuer, R"({"issuer":"http://127.0.0.1:31480","token_endpoint":"http://127.0.0.1:31480/token",
          "device_authorization_endpoint":"http://127.0.0.1:31480/device/auth"})");
  REQUIRE(good.ok());
  CHECK(good->token_endpoint == "http://127.0.0.1:31480/token");
  CHECK(good->authorization_endpoint.empty());

  auto other = oidc::ParseDiscovery(
      issuer, R"({"issuer":"http://127.0.0.1:1","token_endpoint":"http://127.0.0.1:1/t"})");
  REQUIRE_FALSE(other.ok());
  CHECK(absl::StrContains(other.status().message(), "names the issuer 'http://127.0.0.1:1'"));

  auto far = oidc::ParseDiscovery(
      issuer, R"({"issuer":"http://127.0.0.1:31480","token_endpoint":"http://idp.example.com/t"})");
  REQUIRE_FALSE(far.ok());
  CHECK(absl::StrContains(far.status().message(), "token_endpoint"));

  CHECK_FALSE(oidc::ParseDiscovery(issuer, R"({"issuer":"http://127.0.0.1:31480"})").ok());
  CHECK_FALSE(oidc::ParseDiscovery(issuer, "[]").ok());
}

// A JWT-shaped token with these claims (unsigned: the CLI never verifies its own token).
std::string FakeJwt(const std::string& claims) {
  return absl::WebSafeBase64Escape(R"({"alg":"RS256","kid":"k"})") + "." +
         absl::WebSafeBase64Escape(claims) + ".c2ln";
}

TEST_CASE("A token answer must carry an ID token with an expiry", "[oidc]") {
  auto none = oidc::ParseTokenResponse("I", R"({"access_token":"a","token_type":"Bearer"})");
  REQUIRE_FALSE(none.ok());
  CHECK(absl::StrContains(none.status().message(), "no id_token"));

  const std::string id = FakeJwt(R"({"iss":"I","sub":"u","exp":2000000000,"nonce":"n1"})");
  auto t = oidc::ParseTokenResponse("I", R"({"id_token":")" + id + R"(","refresh_token":"r"})");
  REQUIRE(t.ok());
  CHECK(t->refresh_token == "r");
  CHECK(t->id_token_expires_at == absl::FromUnixSeconds(2000000000));
  CHECK(*oidc::TokenClaim(id, "nonce") == "n1");
  CHECK_FALSE(oidc::TokenExpiry("cub_notajwt").ok());
}

TEST_CASE("The default scopes ask for groups and a refresh token", "[oidc]") {
  oidc::LoginClient client;
  CHECK(oidc::ScopeText(client) == "openid profile email groups offline_access");
  client.scopes = {"openid", "groups"};
  CHECK(oidc::ScopeText(client) == "openid groups");
}

TEST_CASE("Only a saved OIDC context's token is refreshed", "[oidc]") {
  char dir_template[] = "/tmp/cub_oidc_test_XXXXXX";
  const char* dir = ::mkdtemp(dir_template);
  REQUIRE(dir != nullptr);
  const std::string path = std::string(dir) + "/config.json";
  CliConfig config;
  config.current_context = "idp";
  ContextConfig ctx{"127.0.0.1:1", FakeJwt(R"({"exp":1})"), "", false};
  ctx.oidc_issuer = "http://127.0.0.1:1";
  ctx.oidc_client_id = "cub-cli";
  ctx.refresh_token = "r";
  config.contexts["idp"] = ctx;
  REQUIRE(SaveConfig(path, config).ok());
  ::setenv("CUB_CONFIG", path.c_str(), 1);
  ::unsetenv("CUB_TOKEN");
  ::unsetenv("CUB_SERVER");

  // --token: sent as it is, never refreshed, even when expired.
  GlobalOptions flags;
  flags.token = FakeJwt(R"({"exp":1})");
  auto given = ResolveConnection(flags);
  REQUIRE(given.ok());
  CHECK(given->context.empty());
  CHECK(RefreshIfExpiring(&*given, absl::Now()).ok());
  CHECK(given->token == flags.token);

  // The context's expired token: refreshed, which here fails (no provider on port 1) with the
  // message that says what to do.
  auto saved = ResolveConnection(GlobalOptions{});
  REQUIRE(saved.ok());
  CHECK(saved->context == "idp");
  CHECK(saved->refresh_token == "r");
  absl::Status refreshed = RefreshIfExpiring(&*saved, absl::Now());
  REQUIRE_FALSE(refreshed.ok());
  CHECK(absl::StartsWith(refreshed.message(),
                         "the login at http://127.0.0.1:1 expired; run `cub auth login --oidc "
                         "--server 127.0.0.1:1 --context idp` again ("));
  // Nothing was saved.
  CHECK(LoadConfig(path)->contexts["idp"].token == ctx.token);

  // A token good for more than the margin is left alone.
  Connection fresh = *saved;
  fresh.token = FakeJwt(R"({"exp":4000000000})");
  CHECK(RefreshIfExpiring(&fresh, absl::Now()).ok());

  ::unsetenv("CUB_CONFIG");
  ::unlink(path.c_str());
  ::unlink((path + ".lock").c_str());
  ::rmdir(dir);
}

}  // namespace
}  // namespace cub::cli
