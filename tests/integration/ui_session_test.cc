// The dashboard's session rules as pure functions (server/ui_session.h) and the embedded
// assets (server/ui_assets.h); the HTTP side is tested end to end in
// tests/e2e/ui_session_test.sh and in Chromium by tests/e2e/ui_dashboard_test.sh.
#include "server/ui_session.h"

#include <catch2/catch.hpp>
#include <string>

#include "absl/strings/match.h"
#include "server/ui_assets.h"

namespace cub::server {
namespace {

HttpRequest Call(std::map<std::string, std::string> headers) {
  HttpRequest r;
  r.method = "POST";
  r.path = "/v1/AuthService/WhoAmI";
  r.headers = std::move(headers);
  r.headers.emplace("host", "cub.example:7071");
  return r;
}

TEST_CASE("the CSRF token is a digest of the token, not the token", "[ui]") {
  const std::string csrf = CsrfTokenFor("cub_secret");
  REQUIRE(csrf.size() == 64);
  REQUIRE(csrf == CsrfTokenFor("cub_secret"));
  REQUIRE(csrf != CsrfTokenFor("cub_secret2"));
  REQUIRE(!absl::StrContains(csrf, "secret"));
}

TEST_CASE("the session cookie's attributes", "[ui]") {
  REQUIRE(SessionCookie("t1", false) == "cub_session=t1; Path=/; HttpOnly; SameSite=Strict");
  REQUIRE(SessionCookie("t1", true) == "cub_session=t1; Path=/; HttpOnly; SameSite=Strict; Secure");
  REQUIRE(ClearedSessionCookie(true) ==
          "cub_session=; Path=/; HttpOnly; SameSite=Strict; Secure; Max-Age=0");
}

TEST_CASE("tokens a cookie cannot hold are refused, naming where", "[ui]") {
  REQUIRE(CheckCookieToken("cub_abc-DEF.123_~").ok());
  REQUIRE(CheckCookieToken("").message() == "Token is empty");
  REQUIRE(CheckCookieToken("ab;c").message() ==
          "Token has a character a cookie cannot hold at byte offset 2");
  REQUIRE(CheckCookieToken("a b").code() == absl::StatusCode::kInvalidArgument);
  REQUIRE(CheckCookieToken(std::string(4001, 'a')).message() ==
          "Token is 4001 bytes; a session cookie holds at most 4000");
}

TEST_CASE("the session cookie is found among others", "[ui]") {
  REQUIRE(!SessionTokenOf(Call({})));
  REQUIRE(!SessionTokenOf(Call({{"cookie", "other=1"}})));
  REQUIRE(!SessionTokenOf(Call({{"cookie", "cub_session="}})));
  REQUIRE(!SessionTokenOf(Call({{"cookie", "cub_sessionx=1"}})));
  REQUIRE(*SessionTokenOf(Call({{"cookie", "a=1; cub_session=tok; b=2"}})) == "tok");
  REQUIRE(*SessionTokenOf(Call({{"cookie", "a=1, cub_session=tok"}})) == "tok");
}

TEST_CASE("same origin: Sec-Fetch-Site and Origin", "[ui]") {
  REQUIRE(CheckSameOrigin(Call({}), false).ok());
  REQUIRE(CheckSameOrigin(Call({{"sec-fetch-site", "same-origin"}}), false).ok());
  REQUIRE(CheckSameOrigin(Call({{"sec-fetch-site", "none"}}), false).ok());
  REQUIRE(
      absl::IsPermissionDenied(CheckSameOrigin(Call({{"sec-fetch-site", "same-site"}}), false)));
  REQUIRE(CheckSameOrigin(Call({{"origin", "http://cub.example:7071"}}), false).ok());
  REQUIRE(CheckSameOrigin(Call({{"origin", "https://CUB.example:7071"}}), false).ok());
  REQUIRE(CheckSameOrigin(Call({{"origin", "https://cub.example:7071"}}), true).ok());
  // A plain-HTTP page is not the TLS listener's origin.
  REQUIRE(absl::IsPermissionDenied(
      CheckSameOrigin(Call({{"origin", "http://cub.example:7071"}}), true)));
  const absl::Status other = CheckSameOrigin(Call({{"origin", "http://evil.example"}}), false);
  REQUIRE(other.message() ==
          "cross-origin request refused: Origin \"http://evil.example\" is not this server's "
          "origin (http(s)://cub.example:7071)");
  REQUIRE(absl::IsPermissionDenied(
      CheckSameOrigin(Call({{"origin", "http://cub.example:70711"}}), false)));
  REQUIRE(absl::IsPermissionDenied(CheckSameOrigin(Call({{"origin", "null"}}), false)));
}

TEST_CASE("the cookie authorizes a call only with its CSRF token", "[ui]") {
  HttpRequest bare = Call({{"cookie", "cub_session=tok"}});
  REQUIRE(
      absl::StartsWith(AuthorizeByCookie(bare, false).message(), "missing X-CSRF-Token header"));
  REQUIRE(bare.headers.count("authorization") == 0);
  HttpRequest wrong = Call({{"cookie", "cub_session=tok"}, {"x-csrf-token", CsrfTokenFor("x")}});
  REQUIRE(absl::IsPermissionDenied(AuthorizeByCookie(wrong, false)));
  HttpRequest good = Call({{"cookie", "cub_session=tok"}, {"x-csrf-token", CsrfTokenFor("tok")}});
  REQUIRE(AuthorizeByCookie(good, false).ok());
  REQUIRE(good.headers["authorization"] == "Bearer tok");
  HttpRequest bearer = Call({{"cookie", "cub_session=tok"}, {"authorization", "Bearer other"}});
  REQUIRE(AuthorizeByCookie(bearer, false).ok());
  REQUIRE(bearer.headers["authorization"] == "Bearer other");
  HttpRequest none = Call({});
  REQUIRE(AuthorizeByCookie(none, false).ok());
  REQUIRE(none.headers.count("authorization") == 0);
}

TEST_CASE("the dashboard's files are embedded, each with its type and ETag", "[ui]") {
  const UiAsset* index = FindUiAsset("/ui/");
  REQUIRE(index != nullptr);
  REQUIRE(index == FindUiAsset("/ui/index.html"));
  REQUIRE(index->content_type == "text/html; charset=utf-8");
  REQUIRE(index->body.find("/ui/app.js") != std::string_view::npos);
  REQUIRE(index->etag.size() == 34);
  const UiAsset* app = FindUiAsset("/ui/app.js");
  REQUIRE(app != nullptr);
  REQUIRE(app->content_type == "text/javascript; charset=utf-8");
  REQUIRE(app->etag != index->etag);
  REQUIRE(FindUiAsset("/ui/nothing.js") == nullptr);
  REQUIRE(FindUiAsset("/ui/../CMakeLists.txt") == nullptr);
}

TEST_CASE("each file but index.html has a versioned path, which index.html names", "[ui]") {
  const UiAsset* index = FindUiAsset("/ui/index.html");
  REQUIRE(index != nullptr);
  REQUIRE(index->versioned_path.empty());
  const std::string body(index->body);
  const std::string import_map(UiImportMap());
  const UiAsset* app = FindUiAsset("/ui/app.js");
  REQUIRE(app != nullptr);
  // The ETag's digest (without its quotes) before the extension.
  const std::string etag(app->etag);
  const std::string versioned = "/ui/app." + etag.substr(1, etag.size() - 2) + ".js";
  REQUIRE(app->versioned_path == versioned);
  REQUIRE(FindUiAsset(versioned) == app);
  REQUIRE(FindUiAsset("/ui/app.00000000000000000000000000000000.js") == nullptr);
  REQUIRE(FindUiAsset(versioned + "/") == nullptr);
  REQUIRE(FindUiAsset("/ui/x/.." + versioned.substr(3)) == nullptr);
  for (const UiAsset& a : UiAssets()) {
    if (&a == index) continue;
    INFO(a.path);
    REQUIRE(body.find("\"" + std::string(a.versioned_path) + "\"") != std::string::npos);
    REQUIRE(body.find("\"" + std::string(a.path) + "\">") == std::string::npos);
  }
  // The import map is in index.html byte for byte (the CSP hashes UiImportMap()).
  REQUIRE(body.find("<script type=\"importmap\">" + import_map + "</script>") != std::string::npos);
  REQUIRE(import_map.find("\"/ui/app.js\":\"" + versioned + "\"") != std::string::npos);
}

}  // namespace
}  // namespace cub::server
