#include "server/ui_session.h"

#include <openssl/crypto.h>

#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "lib/util/sha256.h"

namespace cub::server {
namespace {

const std::string* Header(const HttpRequest& req, const char* name) {
  auto it = req.headers.find(name);
  return it == req.headers.end() ? nullptr : &it->second;
}

std::string CookieAttributes(bool secure) {
  return absl::StrCat("; Path=/; HttpOnly; SameSite=Strict", secure ? "; Secure" : "");
}

// Compares in time independent of where the strings differ (the CSRF token is a secret).
bool SameSecret(absl::string_view a, absl::string_view b) {
  return a.size() == b.size() && CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

}  // namespace

std::string CsrfTokenFor(absl::string_view token) {
  return Sha256Hex(absl::StrCat("cub-ui-csrf\n", token));
}

std::string SessionCookie(absl::string_view token, bool secure) {
  return absl::StrCat(kSessionCookieName, "=", token, CookieAttributes(secure));
}

std::string ClearedSessionCookie(bool secure) {
  return absl::StrCat(kSessionCookieName, "=", CookieAttributes(secure), "; Max-Age=0");
}

absl::Status CheckCookieToken(absl::string_view token) {
  if (token.empty()) return absl::InvalidArgumentError("Token is empty");
  // Browsers keep cookies up to 4096 bytes, name and attributes included.
  if (token.size() > 4000) {
    return absl::InvalidArgumentError(
        absl::StrCat("Token is ", token.size(), " bytes; a session cookie holds at most 4000"));
  }
  for (size_t i = 0; i < token.size(); ++i) {
    const unsigned char c = token[i];
    // RFC 6265 cookie-octet: printable ASCII but space, '"', ',', ';' and '\\'.
    if (c < 0x21 || c > 0x7e || c == '"' || c == ',' || c == ';' || c == '\\') {
      return absl::InvalidArgumentError(
          absl::StrCat("Token has a character a cookie cannot hold at byte offset ", i));
    }
  }
  return absl::OkStatus();
}

std::vector<std::string> CookieValues(const HttpRequest& req, absl::string_view name) {
  std::vector<std::string> out;
  const std::string* cookies = Header(req, "cookie");
  if (cookies == nullptr) return out;
  // Several Cookie headers were joined with ", "; pairs are separated by "; ".
  for (absl::string_view pair : absl::StrSplit(*cookies, absl::ByAnyChar(";,"))) {
    pair = absl::StripAsciiWhitespace(pair);
    if (absl::ConsumePrefix(&pair, name) && absl::ConsumePrefix(&pair, "=") && !pair.empty()) {
      out.emplace_back(pair);
    }
  }
  return out;
}

namespace {

std::vector<std::string> SessionCookies(const HttpRequest& req) {
  return CookieValues(req, kSessionCookieName);
}

}  // namespace

HttpResponse CallAuthService(const HttpRequest& req, const HttpHandler& api,
                             absl::string_view method, absl::string_view token) {
  HttpRequest call;
  call.method = "POST";
  call.path = absl::StrCat("/v1/AuthService/", method);
  call.body = "{}";
  call.remote_addr = req.remote_addr;
  call.headers["content-type"] = "application/json";
  if (!token.empty()) call.headers["authorization"] = absl::StrCat("Bearer ", token);
  for (const char* h : {"x-request-id", "x-forwarded-for"}) {
    if (const std::string* v = Header(req, h)) call.headers[h] = *v;
  }
  return api(call);
}

std::optional<std::string> SessionTokenOf(const HttpRequest& req) {
  std::vector<std::string> tokens = SessionCookies(req);
  // Two sessions: one was set by someone else (a sibling subdomain or a plain-HTTP page may
  // plant a cookie for this host). Neither is used, so no page runs as a planted identity.
  if (tokens.size() != 1) return std::nullopt;
  return std::move(tokens[0]);
}

bool CarriesSessionCookie(const HttpRequest& req) { return !SessionCookies(req).empty(); }

bool SecureCookieFor(const HttpRequest& req, bool tls) {
  if (tls) return true;
  // Behind a proxy terminating TLS the page's origin is https: its cookie must not travel
  // over plain HTTP either.
  const std::string* origin = Header(req, "origin");
  return origin != nullptr && absl::StartsWith(*origin, "https://");
}

absl::Status CheckSameOrigin(const HttpRequest& req, bool tls) {
  if (const std::string* site = Header(req, "sec-fetch-site");
      site != nullptr && *site != "same-origin" && *site != "none") {
    return absl::PermissionDeniedError(
        absl::StrCat("cross-origin request refused: Sec-Fetch-Site is \"", *site,
                     "\"; the dashboard's session is accepted only from pages cubd served itself"));
  }
  const std::string* origin = Header(req, "origin");
  if (origin == nullptr) return absl::OkStatus();
  const std::string* host = Header(req, "host");
  // The scheme must be the listener's, except that behind a proxy terminating TLS an https://
  // page reaches a plaintext listener: that is the same page, while an http:// page on a TLS
  // listener never is.
  absl::string_view authority = *origin;
  const bool scheme_ok = absl::ConsumePrefix(&authority, "https://") ||
                         (!tls && absl::ConsumePrefix(&authority, "http://"));
  if (host == nullptr || !scheme_ok || !absl::EqualsIgnoreCase(authority, *host)) {
    return absl::PermissionDeniedError(
        absl::StrCat("cross-origin request refused: Origin \"", origin->substr(0, 200),
                     "\" is not this server's origin (", tls ? "https://" : "http(s)://",
                     host ? host->substr(0, 200) : "no Host header", ")"));
  }
  return absl::OkStatus();
}

absl::Status AuthorizeByCookie(HttpRequest& req, bool tls) {
  if (Header(req, "authorization") != nullptr) return absl::OkStatus();
  if (SessionCookies(req).size() > 1) {
    return absl::PermissionDeniedError(
        "two cub_session cookies: one was not set by this server; log out and log in again");
  }
  std::optional<std::string> token = SessionTokenOf(req);
  if (!token) return absl::OkStatus();
  if (absl::Status s = CheckSameOrigin(req, tls); !s.ok()) return s;
  const std::string* csrf = Header(req, kCsrfHeader);
  if (csrf == nullptr || csrf->empty()) {
    return absl::PermissionDeniedError(
        "missing X-CSRF-Token header: a call authenticated by the session cookie must carry "
        "the CsrfToken that POST /ui/session returned");
  }
  if (!SameSecret(*csrf, CsrfTokenFor(*token))) {
    return absl::PermissionDeniedError(
        "X-CSRF-Token does not match the session cookie; log in again");
  }
  req.headers["authorization"] = absl::StrCat("Bearer ", *token);
  return absl::OkStatus();
}

}  // namespace cub::server
