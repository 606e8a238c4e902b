// The CLI's side of OpenID Connect: the shared client (lib/identity/oidc_client.h) under the
// names the CLI's commands use, and the device login as a person at a terminal sees it. The
// browser flow (authorization code with PKCE on a loopback redirect) is in oidc_browser.h.
//
// cub sends the provider's ID token to cubd as its bearer token; it reads only the token's
// `exp` (TokenExpiry) to know when to refresh it.
#ifndef CUB_CLI_OIDC_LOGIN_H_
#define CUB_CLI_OIDC_LOGIN_H_

#include "absl/status/statusor.h"
#include "lib/identity/oidc_client.h"

namespace cub::cli::oidc {

using identity::oidc::AuthorizationRequest;
using identity::oidc::AuthorizationUrl;
using identity::oidc::CodeChallengeS256;
using identity::oidc::Discover;
using identity::oidc::LoginClient;
using identity::oidc::NewCodeVerifier;
using identity::oidc::ParseCallback;
using identity::oidc::ParseDiscovery;
using identity::oidc::ParseTokenResponse;
using identity::oidc::PostTokenRequest;
using identity::oidc::ProviderEndpoints;
using identity::oidc::RandomUrlSafe;
using identity::oidc::Refresh;
using identity::oidc::ScopeText;
using identity::oidc::TokenClaim;
using identity::oidc::TokenErrorCode;
using identity::oidc::TokenExpiry;
using identity::oidc::Tokens;

// The device authorization grant (identity::oidc::DeviceLogin), printing to stderr
//   Open VERIFICATION_URI and enter the code USER_CODE
//   Or open: VERIFICATION_URI_COMPLETE            (when the provider gives one)
absl::StatusOr<Tokens> DeviceLogin(const ProviderEndpoints& endpoints, const LoginClient& client);

}  // namespace cub::cli::oidc

#endif  // CUB_CLI_OIDC_LOGIN_H_
