// The dashboard's OpenID login. See ui_oidc.h.
#include "server/ui_oidc.h"

#include <grpcpp/support/status.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "lib/identity/oidc_client.h"
#include "lib/net/http_client.h"
#include "lib/util/html.h"
#include "lib/util/json.h"
#include "lib/util/status_macros.h"
#include "server/ui_session.h"

namespace cub::server {
namespace {

namespace oidc = identity::oidc;

constexpr char kStartPath[] = "/ui/oidc/start";
constexpr char kCallbackPath[] = "/ui/oidc/callback";
constexpr int kLoginCookieSeconds = 600;
constexpr size_t kMaxIssuerBytes = 2048;

// What a login carries from its start to its callback, in the login cookie: four base64url
// fields joined by '.', so every byte is a cookie-octet.
struct PendingLogin {
  std::string state;
  std::string nonce;
  std::string verifier;
  std::string issuer;
};

std::string EncodeLogin(const PendingLogin& l) {
  return absl::StrJoin({l.state, l.nonce, l.verifier, absl::WebSafeBase64Escape(l.issuer)}, ".");
}

std::optional<PendingLogin> DecodeLogin(absl::string_view text) {
  std::vector<std::string> parts = absl::StrSplit(text, '.');
  PendingLogin l;
  if (parts.size() != 4 || parts[0].empty() || parts[1].empty() || parts[2].empty() ||
      !absl::WebSafeBase64Unescape(parts[3], &l.issuer)) {
    return std::nullopt;
  }
  l.state = std::move(parts[0]);
  l.nonce = std::move(parts[1]);
  l.verifier = std::move(parts[2]);
  return l;
}

bool SecureFor(const HttpRequest& req, const UiOptions& o) {
  return SecureCookieFor(req, o.tls) || absl::StartsWith(o.public_url, "https://");
}

std::string LoginCookie(const PendingLogin& l, bool secure) {
  return absl::StrCat(kOidcLoginCookieName, "=", EncodeLogin(l),
                      "; Path=/ui/oidc/; HttpOnly; SameSite=Lax; Max-Age=", kLoginCookieSeconds,
                      secure ? "; Secure" : "");
}

std::string ClearedLoginCookie(bool secure) {
  return absl::StrCat(kOidcLoginCookieName, "=; Path=/ui/oidc/; HttpOnly; SameSite=Lax; Max-Age=0",
                      secure ? "; Secure" : "");
}

// A page saying why the login failed, in the words of whoever refused it, and the way back.
HttpResponse Failure(int status, absl::string_view what, bool secure) {
  HttpResponse r;
  r.status = status;
  r.content_type = "text/html; charset=utf-8";
  r.body = absl::StrCat(
      "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
      "<title>cub: log-in failed</title><link rel=\"stylesheet\" href=\"/ui/style.css\">"
      "</head><body><main class=\"login\"><h1>Log-in failed</h1><p role=\"alert\" "
      "id=\"login-failure\">",
      HtmlEscape(what),
      "</p><p><a href=\"/ui/\">Back to the log-in page</a></p></main></body></html>\n");
  r.headers.emplace_back("Cache-Control", "no-store");
  r.headers.emplace_back("Set-Cookie", ClearedLoginCookie(secure));
  return r;
}

HttpResponse Redirect(int status, std::string to) {
  HttpResponse r;
  r.status = status;
  r.headers.emplace_back("Location", std::move(to));
  r.headers.emplace_back("Cache-Control", "no-store");
  return r;
}

// The query's parameter `name`, percent-decoded ('+' as a space); "" when absent.
absl::StatusOr<std::string> QueryParam(const std::string& query, absl::string_view name) {
  for (absl::string_view pair : absl::StrSplit(query, '&', absl::SkipEmpty())) {
    const size_t eq = pair.find('=');
    if (pair.substr(0, eq) != name) continue;
    std::string value(eq == absl::string_view::npos ? "" : pair.substr(eq + 1));
    absl::StrReplaceAll({{"+", " "}}, &value);
    absl::StatusOr<std::string> decoded = net::UrlDecode(value);
    if (!decoded.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("the query parameter ", name, " is not validly percent-encoded"));
    }
    return decoded;
  }
  return std::string();
}

// The people's issuers cubd trusts, as GetLoginConfig answers through the REST mirror.
absl::StatusOr<std::vector<oidc::LoginClient>> TrustedIssuers(const HttpRequest& req,
                                                              const HttpHandler& api,
                                                              const UiOptions& o) {
  HttpResponse resp = CallAuthService(req, api, "GetLoginConfig", "");
  absl::StatusOr<Json> doc = ParseJson(resp.body);
  if (resp.status != 200 || !doc.ok() || !doc->is_object()) {
    return absl::UnavailableError(
        absl::StrCat("cubd could not read its own log-in configuration (HTTP ", resp.status, ")"));
  }
  std::vector<oidc::LoginClient> out;
  for (const Json& i : doc->value("Issuers", Json::array())) {
    if (!i.is_object()) continue;
    oidc::LoginClient c;
    c.issuer = i.value("Issuer", "");
    c.client_id = i.value("ClientID", "");
    for (const Json& s : i.value("Scopes", Json::array())) {
      if (s.is_string()) c.scopes.push_back(s.get<std::string>());
    }
    c.ca_file = o.oidc_ca_file;
    out.push_back(std::move(c));
  }
  return out;
}

absl::StatusOr<oidc::LoginClient> ClientFor(const HttpRequest& req, const HttpHandler& api,
                                            const UiOptions& o, const std::string& issuer) {
  CUB_ASSIGN_OR_RETURN(std::vector<oidc::LoginClient> trusted, TrustedIssuers(req, api, o));
  std::vector<std::string> names;
  for (oidc::LoginClient& c : trusted) {
    if (c.issuer == issuer) return std::move(c);
    names.push_back(c.issuer);
  }
  if (names.empty()) {
    return absl::FailedPreconditionError(
        "this cubd trusts no OpenID provider (it runs without --oidc-issuer): log in with a "
        "token");
  }
  return absl::InvalidArgumentError(
      absl::StrCat("'", issuer.substr(0, 200),
                   "' is not an issuer this cubd trusts; it trusts: ", absl::StrJoin(names, ", ")));
}

// Where the provider sends the browser back: the external URL when configured, else this
// listener's scheme and the Host the browser asked for (which the provider checks against
// the client's registered redirect URIs, so a forged Host leads nowhere).
absl::StatusOr<std::string> RedirectUri(const HttpRequest& req, const UiOptions& o) {
  if (!o.public_url.empty()) {
    return absl::StrCat(absl::StripSuffix(o.public_url, "/"), kCallbackPath);
  }
  auto host = req.headers.find("host");
  if (host == req.headers.end() || host->second.empty() || host->second.size() > 255 ||
      !std::all_of(host->second.begin(), host->second.end(), [](char c) {
        return absl::ascii_isalnum(c) || c == '.' || c == '-' || c == ':' || c == '[' || c == ']';
      })) {
    return absl::InvalidArgumentError(
        "the request's Host header is missing or not a host name: cubd cannot say where the "
        "provider should send the browser back (set --ui-url)");
  }
  return absl::StrCat(o.tls ? "https://" : "http://", host->second, kCallbackPath);
}

HttpResponse Start(const HttpRequest& req, const HttpHandler& api, const UiOptions& o) {
  const bool secure = SecureFor(req, o);
  absl::StatusOr<std::string> issuer = QueryParam(req.query, "issuer");
  if (!issuer.ok()) return Failure(400, issuer.status().message(), secure);
  if (issuer->empty() || issuer->size() > kMaxIssuerBytes) {
    return Failure(400,
                   "GET /ui/oidc/start needs the query parameter issuer: the URL of one of the "
                   "OpenID providers this cubd trusts",
                   secure);
  }
  absl::StatusOr<oidc::LoginClient> client = ClientFor(req, api, o, *issuer);
  if (!client.ok()) return Failure(400, client.status().message(), secure);
  absl::StatusOr<oidc::ProviderEndpoints> endpoints = oidc::Discover(*client);
  if (!endpoints.ok()) return Failure(502, endpoints.status().message(), secure);
  if (endpoints->authorization_endpoint.empty()) {
    return Failure(502,
                   absl::StrCat(client->issuer,
                                " offers no browser login (its discovery document has no "
                                "authorization_endpoint)"),
                   secure);
  }
  absl::StatusOr<std::string> redirect_uri = RedirectUri(req, o);
  if (!redirect_uri.ok()) return Failure(400, redirect_uri.status().message(), secure);

  PendingLogin login{oidc::RandomUrlSafe(24), oidc::RandomUrlSafe(24), oidc::NewCodeVerifier(),
                     client->issuer};
  oidc::AuthorizationRequest ar;
  ar.redirect_uri = *redirect_uri;
  ar.state = login.state;
  ar.nonce = login.nonce;
  ar.code_challenge = oidc::CodeChallengeS256(login.verifier);
  HttpResponse r = Redirect(302, oidc::AuthorizationUrl(*endpoints, *client, ar));
  r.headers.emplace_back("Set-Cookie", LoginCookie(login, secure));
  return r;
}

// The ID token of the login the callback `req` completes, checked by WhoAmI.
absl::StatusOr<std::string> CompleteLogin(const HttpRequest& req, const HttpHandler& api,
                                          const UiOptions& o) {
  std::vector<std::string> cookies = CookieValues(req, kOidcLoginCookieName);
  if (cookies.size() > 1) {
    return absl::PermissionDeniedError(
        "two log-in cookies (cub_oidc): one was not set by this server; start the log-in again");
  }
  std::optional<PendingLogin> login;
  if (cookies.size() == 1) login = DecodeLogin(cookies[0]);
  if (!login) {
    return absl::FailedPreconditionError(
        "no log-in in progress in this browser (the cub_oidc cookie is missing or damaged: the "
        "log-in was started elsewhere, or more than 10 minutes ago); start it again");
  }
  CUB_ASSIGN_OR_RETURN(std::string code,
                       oidc::ParseCallback(absl::StrCat(req.path, "?", req.query), login->state));
  CUB_ASSIGN_OR_RETURN(oidc::LoginClient client, ClientFor(req, api, o, login->issuer));
  CUB_ASSIGN_OR_RETURN(oidc::ProviderEndpoints endpoints, oidc::Discover(client));
  CUB_ASSIGN_OR_RETURN(std::string redirect_uri, RedirectUri(req, o));
  CUB_ASSIGN_OR_RETURN(oidc::Tokens tokens,
                       oidc::PostTokenRequest(endpoints, client,
                                              {{"grant_type", "authorization_code"},
                                               {"code", code},
                                               {"redirect_uri", redirect_uri},
                                               {"client_id", client.client_id},
                                               {"code_verifier", login->verifier}}));
  CUB_ASSIGN_OR_RETURN(std::string nonce, oidc::TokenClaim(tokens.id_token, "nonce"));
  if (nonce != login->nonce) {
    return absl::PermissionDeniedError(
        absl::StrCat("the ID token from ", client.issuer,
                     " does not carry this log-in's nonce: it was not issued for this log-in"));
  }
  CUB_RETURN_IF_ERROR(CheckCookieToken(tokens.id_token));
  // The same check every API call makes of the token: signature, issuer, audience, expiry,
  // and the identity rules that map it to a cub user.
  HttpResponse who = CallAuthService(req, api, "WhoAmI", tokens.id_token);
  if (who.status != 200) {
    absl::StatusOr<Json> err = ParseJson(who.body);
    std::string message = err.ok() && err->is_object() ? err->value("message", "") : "";
    return absl::PermissionDeniedError(
        absl::StrCat("cubd refused the ID token from ", client.issuer, ": ",
                     message.empty() ? absl::StrCat("HTTP ", who.status) : message));
  }
  return std::move(tokens.id_token);
}

HttpResponse Callback(const HttpRequest& req, const HttpHandler& api, const UiOptions& o) {
  const bool secure = SecureFor(req, o);
  absl::StatusOr<std::string> token = CompleteLogin(req, api, o);
  if (!token.ok()) {
    const int status = absl::IsUnavailable(token.status()) ? 502 : 400;
    return Failure(status, token.status().message(), secure);
  }
  // 303: the browser GETs the dashboard, which finds its session with GET /ui/session.
  HttpResponse r = Redirect(303, "/ui/");
  r.headers.emplace_back("Set-Cookie", SessionCookie(*token, secure));
  r.headers.emplace_back("Set-Cookie", ClearedLoginCookie(secure));
  return r;
}

}  // namespace

std::optional<HttpResponse> ServeOidcLogin(const HttpRequest& req, const HttpHandler& api,
                                           const UiOptions& options) {
  const bool start = req.path == kStartPath;
  if (!start && req.path != kCallbackPath) return std::nullopt;
  if (req.method != "GET" && req.method != "HEAD") {
    HttpResponse r = Failure(
        405, absl::StrCat("method ", req.method.substr(0, 20), " is not allowed here; use GET"),
        SecureFor(req, options));
    r.headers.emplace_back("Allow", "GET");
    return r;
  }
  return start ? Start(req, api, options) : Callback(req, api, options);
}

}  // namespace cub::server
