#include "server/ui_routes.h"

#include <grpcpp/support/status.h>

#include <string>
#include <utility>

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "lib/util/json.h"
#include "lib/util/sha256.h"
#include "server/ui_assets.h"
#include "server/ui_session.h"

namespace cub::server {
namespace {

// Only cubd's own files: no inline script or style but index.html's import map (allowed by its
// hash, not by 'unsafe-inline'), no other origin, no framing.
std::string MakeCsp() {
  const std::string digest = absl::HexStringToBytes(Sha256Hex(UiImportMap()));
  return absl::StrCat("default-src 'self'; script-src 'self' 'sha256-", absl::Base64Escape(digest),
                      "'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
                      "object-src 'none'; base-uri 'none'; form-action 'self'; "
                      "frame-ancestors 'none'");
}

const std::string& Csp() {
  static const std::string* const kCsp = new std::string(MakeCsp());
  return *kCsp;
}

HttpResponse WithSecurityHeaders(HttpResponse r) {
  r.headers.emplace_back("Content-Security-Policy", Csp());
  r.headers.emplace_back("X-Content-Type-Options", "nosniff");
  r.headers.emplace_back("X-Frame-Options", "DENY");
  r.headers.emplace_back("Referrer-Policy", "same-origin");
  return r;
}

HttpResponse JsonAnswer(int status, std::string body) {
  HttpResponse r;
  r.status = status;
  r.content_type = "application/json";
  r.body = std::move(body);
  r.headers.emplace_back("Cache-Control", "no-store");
  return r;
}

HttpResponse Error(grpc::StatusCode code, int http_status, std::string_view message) {
  return JsonAnswer(http_status, JsonErrorBody(static_cast<int>(code), message));
}

HttpResponse Refused(const absl::Status& s) {
  return Error(grpc::StatusCode::PERMISSION_DENIED, 403, std::string(s.message()));
}

HttpResponse Redirect(int status, const char* to) {
  HttpResponse r;
  r.status = status;
  r.headers.emplace_back("Location", to);
  r.headers.emplace_back("Cache-Control", "no-store");
  return r;
}

HttpResponse MethodNotAllowed(const std::string& method, const char* allow) {
  HttpResponse r = Error(grpc::StatusCode::UNIMPLEMENTED, 405,
                         absl::StrCat("method ", method, " is not allowed here; use ", allow));
  r.headers.emplace_back("Allow", allow);
  return r;
}

HttpResponse Asset(const HttpRequest& req) {
  if (req.method != "GET" && req.method != "HEAD") return MethodNotAllowed(req.method, "GET, HEAD");
  const UiAsset* asset = FindUiAsset(req.path);
  if (asset == nullptr) {
    return Error(grpc::StatusCode::NOT_FOUND, 404,
                 absl::StrCat("no dashboard file at ", req.path.substr(0, 200)));
  }
  HttpResponse r;
  r.content_type = std::string(asset->content_type);
  r.headers.emplace_back("ETag", std::string(asset->etag));
  // A versioned path names these bytes and no others: kept for good, never asked again. Any
  // other path is revalidated on every use: an upgraded cubd must not run with its
  // predecessor's index.html (which names its predecessor's versioned files).
  const bool versioned = !asset->versioned_path.empty() && req.path == asset->versioned_path;
  r.headers.emplace_back("Cache-Control",
                         versioned ? "public, max-age=31536000, immutable" : "no-cache");
  auto inm = req.headers.find("if-none-match");
  if (inm != req.headers.end() && inm->second.find(asset->etag) != std::string::npos) {
    r.status = 304;
    return r;
  }
  r.body = std::string(asset->body);
  return r;
}

// WhoAmI's answer with the session's CSRF token as its first member.
HttpResponse SessionAnswer(HttpResponse who, const std::string& token) {
  if (who.status != 200 || !absl::StartsWith(who.body, "{")) return who;
  const bool more = who.body.size() > 2;
  who.body = absl::StrCat("{\"CsrfToken\":\"", CsrfTokenFor(token), "\"", more ? "," : "",
                          who.body.substr(1));
  return who;
}

HttpResponse Login(const HttpRequest& req, const HttpHandler& api, bool tls) {
  absl::StatusOr<Json> body = ParseJson(req.body);
  const Json* token = nullptr;
  if (body.ok() && body->is_object() && body->contains("Token")) token = &(*body)["Token"];
  if (token == nullptr || !token->is_string()) {
    return Error(grpc::StatusCode::INVALID_ARGUMENT, 400,
                 "POST /ui/session takes a JSON object {\"Token\": \"<cub token>\"}");
  }
  const std::string secret = token->get<std::string>();
  if (absl::Status s = CheckCookieToken(secret); !s.ok()) {
    return Error(grpc::StatusCode::INVALID_ARGUMENT, 400, std::string(s.message()));
  }
  HttpResponse r = SessionAnswer(CallAuthService(req, api, "WhoAmI", secret), secret);
  if (r.status == 200)
    r.headers.emplace_back("Set-Cookie", SessionCookie(secret, SecureCookieFor(req, tls)));
  return r;
}

HttpResponse Current(const HttpRequest& req, const HttpHandler& api) {
  std::optional<std::string> token = SessionTokenOf(req);
  if (!token) {
    return Error(grpc::StatusCode::UNAUTHENTICATED, 401, "not logged in: no session cookie");
  }
  return SessionAnswer(CallAuthService(req, api, "WhoAmI", *token), *token);
}

HttpResponse Logout(HttpRequest req, bool tls) {
  if (SessionTokenOf(req)) {
    if (absl::Status s = AuthorizeByCookie(req, tls); !s.ok()) return Refused(s);
  }
  HttpResponse r = JsonAnswer(200, "{}");
  r.headers.emplace_back("Set-Cookie", ClearedSessionCookie(SecureCookieFor(req, tls)));
  return r;
}

HttpResponse Session(const HttpRequest& req, const HttpHandler& api, bool tls) {
  if (absl::Status s = CheckSameOrigin(req, tls); !s.ok()) return Refused(s);
  if (req.method == "POST") return Login(req, api, tls);
  if (req.method == "GET" || req.method == "HEAD") return Current(req, api);
  if (req.method == "DELETE") return Logout(req, tls);
  return MethodNotAllowed(req.method, "GET, POST, DELETE");
}

}  // namespace

const UiAsset* FindUiAsset(std::string_view path) {
  if (path == "/ui/") path = "/ui/index.html";
  for (const UiAsset& a : UiAssets()) {
    if (a.path == path || (!a.versioned_path.empty() && a.versioned_path == path)) return &a;
  }
  return nullptr;
}

std::optional<HttpResponse> ServeUi(const HttpRequest& req, const HttpHandler& api,
                                    const UiOptions& options) {
  if (req.path == "/") return Redirect(302, "/ui/");
  if (req.path == "/ui") return WithSecurityHeaders(Redirect(301, "/ui/"));
  if (req.path == "/ui/session") return WithSecurityHeaders(Session(req, api, options.tls));
  if (std::optional<HttpResponse> login = ServeOidcLogin(req, api, options)) {
    return WithSecurityHeaders(*std::move(login));
  }
  if (absl::StartsWith(req.path, "/ui/")) return WithSecurityHeaders(Asset(req));
  return std::nullopt;
}

HttpResponse ServeWithDashboard(const HttpRequest& req, const HttpHandler& api,
                                const UiOptions& options) {
  const bool tls = options.tls;
  if (std::optional<HttpResponse> ui = ServeUi(req, api, options)) return *std::move(ui);
  // Copied only for calls the cookie authenticates: a large body is not copied otherwise.
  if (!absl::StartsWith(req.path, "/v1/") || req.headers.count("authorization") != 0 ||
      !CarriesSessionCookie(req)) {
    return api(req);
  }
  HttpRequest authed = req;
  if (absl::Status s = AuthorizeByCookie(authed, tls); !s.ok()) return Refused(s);
  return api(authed);
}

}  // namespace cub::server
