// The browser login of `cub auth login --oidc`: the authorization code flow with PKCE (RFC 7636,
// S256) on a loopback redirect (RFC 8252 7.3).
//
// cub listens on 127.0.0.1 on a port the kernel picks, sends the browser to the provider's
// authorization endpoint with redirect_uri http://127.0.0.1:PORT/callback, a random `state` and
// `nonce` and the S256 challenge of a random code verifier, and waits (5 minutes at most) for
// the browser to come back to /callback. The callback must carry the same `state` (else it is
// not the answer to this login); the code is exchanged with the verifier, and the ID token must
// carry the same `nonce`. The browser is $BROWSER if set, else xdg-open if present; the URL is
// always printed on stderr too, for a browser elsewhere.
#ifndef CUB_CLI_OIDC_BROWSER_H_
#define CUB_CLI_OIDC_BROWSER_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "cli/oidc_login.h"

namespace cub::cli::oidc {

// The whole browser login, bounded by `timeout` (5 minutes for `cub auth login`).
absl::StatusOr<Tokens> BrowserLogin(const ProviderEndpoints& endpoints, const LoginClient& client,
                                    absl::Duration timeout);

}  // namespace cub::cli::oidc

#endif  // CUB_CLI_OIDC_BROWSER_H_
