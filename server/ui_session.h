// The dashboard's browser session (docs/design.md, "The dashboard"): the session cookie, its
// CSRF token, and how the REST mirror accepts the cookie as credentials.
//
// The cookie carries the bearer token itself (HttpOnly, SameSite=Strict, Path=/, Secure on a
// TLS listener): cubd replicas share no memory, and a cookie that is the token needs no
// session table; every call still authenticates the token exactly as the API does, so expiry
// and revocation take effect at once. The CSRF token is derived from the session secret
// (CsrfTokenFor): a page that cannot read the cookie cannot compute it, and any replica can
// check it without state.
//
// Pure functions; thread-safe.
#ifndef CUB_SERVER_UI_SESSION_H_
#define CUB_SERVER_UI_SESSION_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "server/http_server.h"

namespace cub::server {

inline constexpr char kSessionCookieName[] = "cub_session";
inline constexpr char kCsrfHeader[] = "x-csrf-token";  // lowercased, as HttpRequest holds it

// The CSRF token of the session whose bearer token is `token`: 64 hex digits of
// SHA-256("cub-ui-csrf\n" + token). Not the token, and it does not reveal it.
std::string CsrfTokenFor(absl::string_view token);

// The Set-Cookie value that makes `token` the session, and the one that ends it.
std::string SessionCookie(absl::string_view token, bool secure);
std::string ClearedSessionCookie(bool secure);

// Whether `token` can be a cookie value (RFC 6265 cookie-octets, 1..4000 bytes).
// InvalidArgument naming the problem otherwise.
absl::Status CheckCookieToken(absl::string_view token);

// The session cookie's value from the request's Cookie header, if it has exactly one: with two
// (one planted by another site for this host) there is no session.
std::optional<std::string> SessionTokenOf(const HttpRequest& req);

// Every non-empty value of the cookie `name` in the request's Cookie headers, in order.
std::vector<std::string> CookieValues(const HttpRequest& req, absl::string_view name);

// POST /v1/AuthService/METHOD {} through the REST mirror `api` on behalf of the browser's
// request `req` (its address, X-Request-ID and X-Forwarded-For), with `token` as the bearer
// token when not empty: the same path, checks and limits as any API call.
HttpResponse CallAuthService(const HttpRequest& req, const HttpHandler& api,
                             absl::string_view method, absl::string_view token);

// Whether the request carries any session cookie (one, or several).
bool CarriesSessionCookie(const HttpRequest& req);

// Whether the session cookie set in answer to `req` is Secure: on a TLS listener, and on a
// plaintext one reached from an https:// page (a proxy terminating TLS in front of cubd).
bool SecureCookieFor(const HttpRequest& req, bool tls);

// A browser request that another site made: PermissionDenied when Sec-Fetch-Site says it is
// not same-origin (or "none", the user's own navigation), or Origin is not the Host header's
// host and port with the listener's scheme (`tls`: https; plaintext: http, or https for a
// proxy terminating TLS in front). Requests that send neither (scripts) pass.
absl::Status CheckSameOrigin(const HttpRequest& req, bool tls);

// For a REST call (/v1/...) with no Authorization header and a session cookie: checks that it
// is same-origin and carries the session's CSRF token in X-CSRF-Token (whatever its method),
// then adds the cookie's token as `Authorization:
// Bearer`. A call with an Authorization header, or without the cookie, is left as it is.
// Errors: PermissionDenied naming what is missing or wrong, two session cookies included.
absl::Status AuthorizeByCookie(HttpRequest& req, bool tls);

}  // namespace cub::server

#endif  // CUB_SERVER_UI_SESSION_H_
