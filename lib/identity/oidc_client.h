// The client side of OpenID Connect, shared by cub (its logins) and cubd (the dashboard's
// browser login): finding a provider's endpoints, the authorization request of the code flow
// with PKCE (RFC 7636, S256), exchanging a code or a refresh token at the token endpoint, and
// the device authorization grant (RFC 8628).
//
// The ID token these return is what cub, and the dashboard's session, send to cubd as the
// bearer token: it names the person (iss, sub, preferred_username, email, groups) and its
// audience is the client ID cubd trusts. Nothing here verifies the token's signature: cubd's
// authenticator does (lib/ops/oidc_login.h), on every call; TokenExpiry and TokenClaim only
// read claims.
//
// All HTTP goes through net::Fetch; every endpoint must pass net::CheckIssuerUrl (https, or
// http on loopback). Errors name the issuer and what the provider answered.
#ifndef CUB_LIB_IDENTITY_OIDC_CLIENT_H_
#define CUB_LIB_IDENTITY_OIDC_CLIENT_H_

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace cub::identity::oidc {

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

// What a device login shows the person: where to go and the code to enter there.
struct DeviceCode {
  std::string verification_uri;
  std::string verification_uri_complete;  // empty when the provider gives none
  std::string user_code;
};

// The device authorization grant. Asks the provider for a device code, hands it to `show`,
// and polls the token endpoint every `interval` seconds (5 when not given, 5 more on each
// slow_down) until the person completes the login, refuses it (access_denied), or the code
// expires (expired_token, or expires_in elapsed), each with its own message.
absl::StatusOr<Tokens> DeviceLogin(const ProviderEndpoints& endpoints, const LoginClient& client,
                                   const std::function<void(const DeviceCode&)>& show);

// `bytes` random bytes (RAND_bytes) as unpadded base64url text.
std::string RandomUrlSafe(int bytes);

// A PKCE code verifier: 64 characters of [A-Za-z0-9-_] (RFC 7636 4.1 allows 43 to 128 of
// unreserved characters) from 48 random bytes.
std::string NewCodeVerifier();

// BASE64URL(SHA256(verifier)), unpadded: the S256 code_challenge.
std::string CodeChallengeS256(const std::string& verifier);

// The authorization request URL for one login of the code flow.
struct AuthorizationRequest {
  std::string redirect_uri;
  std::string state;
  std::string nonce;
  std::string code_challenge;
  std::string prompt;  // e.g. "consent"; empty: none sent
};
std::string AuthorizationUrl(const ProviderEndpoints& endpoints, const LoginClient& client,
                             const AuthorizationRequest& request);

// grant_type=refresh_token. The answer's refresh token (when the provider rotates them)
// replaces the old one; without one, Tokens::refresh_token is `refresh_token` itself.
absl::StatusOr<Tokens> Refresh(const ProviderEndpoints& endpoints, const LoginClient& client,
                               const std::string& refresh_token);

// The authorization code in the request target ("/callback?code=..&state=..") the browser
// was redirected to. Refused, saying which: a state other than `expected_state`
// (FAILED_PRECONDITION "the callback's state does not match this login's": the waiting login
// ignores such a request and keeps waiting), an error answer ("the provider refused the
// login: access_denied: DESCRIPTION"), no code, a malformed escape.
absl::StatusOr<std::string> ParseCallback(const std::string& target,
                                          const std::string& expected_state);

}  // namespace cub::identity::oidc

#endif  // CUB_LIB_IDENTITY_OIDC_CLIENT_H_
