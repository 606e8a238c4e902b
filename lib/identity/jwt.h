// JSON Web Tokens (RFC 7519) in JWS compact form: parsing, signature verification against a
// JSON Web Key Set, and the registered claims' checks. The OpenID Connect verifier
// (lib/identity/oidc_verifier.h) is built on these; the CLI reads a token's expiry with
// ParseJwt alone (it cannot and need not verify its own token).
//
// Accepted algorithms: RS256, ES256 and EdDSA (Ed25519). "none", HS* (a shared secret cub does
// not have) and any other `alg` are refused by name. Pure functions; thread-safe.
#ifndef CUB_LIB_IDENTITY_JWT_H_
#define CUB_LIB_IDENTITY_JWT_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "lib/identity/jwks.h"
#include "lib/util/json.h"

namespace cub::identity {

// The longest token accepted (bytes), before any decoding: a bearer token longer than this is
// refused, so a hostile caller cannot make cubd decode megabytes.
inline constexpr size_t kMaxJwtBytes = 16 << 10;

// A token split and decoded, not yet trusted.
struct Jwt {
  std::string alg;            // header "alg"
  std::string kid;            // header "kid"; empty when absent
  Json header;                // the decoded header object
  Json claims;                // the decoded payload object
  std::string signing_input;  // "BASE64URL(header).BASE64URL(payload)", as signed
  std::string signature;      // raw bytes (for ES256: R||S, 64 bytes, as JWS has it)
};

// Whether `token` has the shape of a JWS compact token (three non-empty base64url parts,
// the first starting "eyJ"), without decoding it: how the server tells a provider's token from
// one of cub's own ("cub_...").
bool LooksLikeJwt(std::string_view token);

// Splits and decodes. INVALID_ARGUMENT naming the part that is wrong: "the token is longer
// than 16384 bytes", "the token's header is not base64url", "the token's payload is not a
// JSON object", "the token names no alg", a `crit` header (none are understood).
absl::StatusOr<Jwt> ParseJwt(std::string_view token);

// Verifies the signature with the key of `keys` that the token's `kid` names (or, with no
// kid, the one key usable for its alg). UNAUTHENTICATED with the reason: "signed with alg
// HS256, which cubd does not accept", "signed by key KID, which the issuer does not publish"
// (the caller may refresh the keys and retry on exactly this: see IsUnknownKey), "the
// signature does not verify".
absl::Status VerifySignature(const Jwt& jwt, const JwkSet& keys);

// Whether a VerifySignature error means the key was not found (not that it was wrong).
bool IsUnknownKey(const absl::Status& status);

// What the registered claims must say.
struct ClaimRules {
  std::string issuer;                  // `iss` must equal it exactly
  std::vector<std::string> audiences;  // `aud` (string or array) must contain one of them
  absl::Time now;
  absl::Duration skew = absl::Seconds(60);  // allowed for exp, nbf and iat
};

// The registered and OpenID claims of a token whose claims passed the rules.
struct VerifiedClaims {
  std::string issuer, subject;
  std::vector<std::string> audiences;
  absl::Time expires_at;
  absl::Time issued_at = absl::InfinitePast();  // InfinitePast when the token has no iat
  Json claims;                                  // every claim, to read the others from
};

// Checks `iss`, `aud`, `exp` (required), `nbf` and `iat` (when present) and `sub` (required,
// a non-empty string). UNAUTHENTICATED naming the claim and both values: "the token expired
// at 2026-12-01T10:00:00Z", "the token is for audience 'x', not 'cub'", "the token was issued
// by 'X', not 'Y'", "the token is not valid before ...".
absl::StatusOr<VerifiedClaims> CheckClaims(const Jwt& jwt, const ClaimRules& rules);

// A claim as text: a string as it is, a number or boolean as its JSON text; nullopt when the
// claim is absent, null, an object or an array.
std::optional<std::string> ClaimText(const Json& claims, const std::string& name);

// A claim that is a string or an array of strings (groups), as a list; an absent or null claim
// is an empty list. INVALID_ARGUMENT when it is another type or holds a non-string.
absl::StatusOr<std::vector<std::string>> ClaimStrings(const Json& claims, const std::string& name);

}  // namespace cub::identity

#endif  // CUB_LIB_IDENTITY_JWT_H_
