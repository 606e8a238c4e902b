// The CLI's side of OpenID Connect: finding a provider's endpoints, logging a person in by the
// device authorization grant (RFC 8628), and refreshing the ID token with the refresh token.
// The browser flow (authorization code with PKCE on a loopback redirect) is in oidc_browser.h.
//
// cub sends the provider's ID token to cubd as its bearer token: it names the person (iss,
// sub, preferred_username, email, groups) and its audience is the client ID cubd trusts.
// Nothing here verifies the token's signature: cubd does, and the CLI only reads its `exp` to
// know when to refresh it.
//
// All HTTP goes through net::Fetch; every endpoint must pass net::CheckIssuerUrl (https, or
// http on loopback). Errors name the issuer and what the provider answered.
#ifndef CUB_CLI_OIDC_LOGIN_H_
#define CUB_CLI_OIDC_LOGIN_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace cub::cli::oidc {

// What the CLI uses of a provider's discovery document.
struct ProviderEndpoints {
  std::string issuer;
  std::string token_endpoint;
  std::string authorization_endpoint;         // empty: no browser flow
  std::string device_authorization_endpoint;  // empty: no device flow
};

// Who logs in where: from cubd's GetLoginConfig (or the context, for a refresh).
struct LoginClient {
  std::string issuer;
  std::string client_id;
  std::vector<std::string> scopes;  // empty: openid profile email groups offline_access
  std::string ca_file;              // to verify the provider's TLS; empty: the system roots
};

// The scopes asked for: `client.scopes`, or the default set when it is empty.
std::string ScopeText(const LoginClient& client);

// Parses the discovery document `body` fetched for `issuer`. Its `issuer` must equal `issuer`
// exactly (OpenID Connect Discovery 4.3: a document naming another issuer is not this one's),
// a token_endpoint is required, and every endpoint given must pass net::CheckIssuerUrl.
absl::StatusOr<ProviderEndpoints> ParseDiscovery(const std::string& issuer,
                                                 const std::string& body);

// GET ISSUER/.well-known/openid-configuration and ParseDiscovery.
absl::StatusOr<ProviderEndpoints> Discover(const LoginClient& client);

// The tokens of a successful token response.
struct Tokens {
  std::string id_token;
  std::string refresh_token;  // empty when the provider returned none
  absl::Time id_token_expires_at = absl::InfinitePast();
};

// Parses a token endpoint's success body. An answer without id_token is refused (cub needs the
// ID token: the access token's audience need not be cubd's client).
absl::StatusOr<Tokens> ParseTokenResponse(const std::string& issuer, const std::string& body);

// The `exp` of a JWT, read without verifying it (identity::ParseJwt). INVALID_ARGUMENT when
// the token is not a JWT or has no numeric exp.
absl::StatusOr<absl::Time> TokenExpiry(const std::string& jwt);

// A string claim of a JWT read without verifying it ("" when absent).
absl::StatusOr<std::string> TokenClaim(const std::string& jwt, const std::string& name);

// POSTs `form` to the token endpoint and parses the answer. An OAuth error answer is
// FAILED_PRECONDITION "ISSUER answered ERROR (DESCRIPTION)", its code readable by
// TokenErrorCode.
absl::StatusOr<Tokens> PostTokenRequest(
    const ProviderEndpoints& endpoints, const LoginClient& client,
    const std::vector<std::pair<std::string, std::string>>& form);

// The OAuth error code ("invalid_grant", "authorization_pending", ...) of a PostTokenRequest
// failure, or "" when the failure was not the provider's OAuth error answer.
std::string TokenErrorCode(const absl::Status& status);

// The device authorization grant. Asks the provider for a device code, prints to stderr
//   Open VERIFICATION_URI and enter the code USER_CODE
//   Or open: VERIFICATION_URI_COMPLETE            (when the provider gives one)
// and polls the token endpoint every `interval` seconds (5 when not given, 5 more on each
// slow_down) until the person completes the login, refuses it (access_denied), or the code
// expires (expired_token, or expires_in elapsed), each with its own message.
absl::StatusOr<Tokens> DeviceLogin(const ProviderEndpoints& endpoints, const LoginClient& client);

// grant_type=refresh_token. The answer's refresh token (when the provider rotates them)
// replaces the old one; without one, Tokens::refresh_token is `refresh_token` itself.
absl::StatusOr<Tokens> Refresh(const ProviderEndpoints& endpoints, const LoginClient& client,
                               const std::string& refresh_token);

}  // namespace cub::cli::oidc

#endif  // CUB_CLI_OIDC_LOGIN_H_
