// The dashboard on cubd's HTTP listener (docs/api.md, "The dashboard"):
//
//   GET  /                 302 to /ui/
//   GET  /ui               301 to /ui/
//   GET  /ui/, /ui/<file>  the embedded assets (server/ui_assets.h), with a strong ETag
//                          (If-None-Match answers 304), Cache-Control: no-cache, and the
//                          security headers of every /ui/ response: a Content-Security-Policy
//                          allowing only cubd's own scripts, styles and connections (and
//                          index.html's inline import map, by its SHA-256) and no framing,
//                          X-Content-Type-Options: nosniff, Referrer-Policy
//   GET  /ui/<name>.<digest>.<ext>
//                          the same file at its versioned path (UiAsset::versioned_path), which
//                          names its bytes: Cache-Control: public, max-age=31536000, immutable
//   POST /ui/session       log in: {"Token": "<cub token>"}; the token is checked by calling
//                          AuthService/WhoAmI through the REST mirror with it, so exactly as
//                          every API call checks it (failed-login limits included); 200 with
//                          WhoAmI's answer plus "CsrfToken" and the session cookie
//                          (server/ui_session.h), or the API's own error (401 ...)
//   GET  /ui/session       who the session cookie is, with its CsrfToken (a page reloaded)
//   DELETE /ui/session     log out: needs the CSRF token; clears the cookie
//   GET  /ui/oidc/start, /ui/oidc/callback
//                          the OpenID login (authorization code with PKCE), server/ui_oidc.h
//
// The session routes refuse cross-origin requests (403). Their errors have the REST mirror's
// JSON error body.
#ifndef CUB_SERVER_UI_ROUTES_H_
#define CUB_SERVER_UI_ROUTES_H_

#include <optional>

#include "server/http_server.h"
#include "server/ui_oidc.h"

namespace cub::server {

// Answers the dashboard's routes; nullopt for any other path. `api` serves the REST mirror
// (RestGateway::Handle); `options.tls` says whether the listener is TLS (cookies are then
// Secure). Thread-safe if `api` is.
std::optional<HttpResponse> ServeUi(const HttpRequest& req, const HttpHandler& api,
                                    const UiOptions& options);

// The REST mirror `api` with the dashboard in front: ServeUi's routes, and REST calls that the
// session cookie authenticates checked by AuthorizeByCookie (403 with the JSON error body when
// it refuses) before `api` sees them with the cookie's token as their Authorization.
HttpResponse ServeWithDashboard(const HttpRequest& req, const HttpHandler& api,
                                const UiOptions& options);

}  // namespace cub::server

#endif  // CUB_SERVER_UI_ROUTES_H_
