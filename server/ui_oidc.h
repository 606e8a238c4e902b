// The dashboard's OpenID Connect login (docs/design.md, "The dashboard"): the authorization code
// flow with PKCE (S256), carried out by cubd on the browser's behalf:
//
//   GET /ui/oidc/start?issuer=ISSUER
//       ISSUER must be one that cubd trusts for people (AuthService/GetLoginConfig, asked
//       through the REST mirror). cubd reads the issuer's discovery document, sets the login
//       cookie `cub_oidc` (a random state and nonce, the PKCE code verifier and the issuer;
//       HttpOnly, SameSite=Lax so that it comes back on the provider's redirect, Path=/ui/oidc/,
//       10 minutes) and answers 302 to the provider's authorization endpoint with the client ID
//       of GetLoginConfig, the S256 challenge and redirect_uri REDIRECT.
//   GET /ui/oidc/callback?code=..&state=..   (REDIRECT)
//       The state must be the login cookie's; cubd exchanges the code with the verifier at the
//       token endpoint, checks the ID token's nonce, and checks the ID token itself by calling
//       AuthService/WhoAmI with it through the REST mirror, exactly as every API call will. Then
//       303 to /ui/ with the ID token as the session cookie (server/ui_session.h) and the login
//       cookie cleared. The session lasts as long as the ID token does.
//
// REDIRECT is `public_url` + "/ui/oidc/callback" when cubd is told its external URL
// (--ui-url), else the listener's scheme and the request's Host. It must be registered with
// the provider for the client. Failures answer a small HTML page saying what failed (the
// provider's or the API's own words) with a link back to the log-in page; nothing is set.
#ifndef CUB_SERVER_UI_OIDC_H_
#define CUB_SERVER_UI_OIDC_H_

#include <optional>
#include <string>

#include "server/http_server.h"

namespace cub::server {

struct UiOptions {
  bool tls = false;          // the listener is TLS: cookies are Secure
  std::string public_url;    // e.g. https://cub.example.com (no path); empty: from Host
  std::string oidc_ca_file;  // PEM roots for the provider's https; empty: the system's
};

inline constexpr char kOidcLoginCookieName[] = "cub_oidc";

// Answers /ui/oidc/start and /ui/oidc/callback; nullopt for any other path. `api` serves the
// REST mirror. Thread-safe if `api` is; blocks on the provider (discovery and the token
// endpoint, 5 s each at most).
std::optional<HttpResponse> ServeOidcLogin(const HttpRequest& req, const HttpHandler& api,
                                           const UiOptions& options);

}  // namespace cub::server

#endif  // CUB_SERVER_UI_OIDC_H_
