// cub's own API tokens: "cub_" and 32 random bytes in unpadded base64url, shown once and stored
// as their SHA-256. Each has an expiry (IdentityOptions: a default lifetime and a longest one),
// a one-line description, and may be revoked once; an expired or revoked token is refused with
// a message saying which and when.
//
// Who may do what: anyone authenticated creates tokens for themselves, lists and revokes their
// own; a server admin lists and revokes anyone's. A service account may create tokens for
// itself when it called with one of cub's own tokens (so a CI secret can be rotated), not when
// it called with its CI provider's token (workload identity exists so that pipelines need no
// long-lived secret). Nobody gets a token for the engine's user. Another user's token is
// NOT_FOUND to a caller who may not revoke it, exactly like a token that does not exist.
#ifndef CUB_LIB_OPS_TOKENS_H_
#define CUB_LIB_OPS_TOKENS_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "cub/v1/auth.pb.h"
#include "lib/ops/authenticator.h"
#include "lib/ops/principal.h"
#include "lib/store/pool.h"
#include "lib/store/transaction.h"

namespace cub::ops {

// What a new token is asked for: ExpiresIn as ParseDayDuration reads it ("30d", "12h"; empty:
// the default lifetime) and a description. `not_after`: when the credential of the call asking
// for it expires, where the new token may not outlive it (InfiniteFuture: no such bound).
struct TokenSpec {
  std::string expires_in;
  std::string description;
  absl::Time not_after = absl::InfiniteFuture();
};

struct IssuedToken {
  v1::Token token;
  std::string secret;  // shown once; only its hash is stored
};

// The lifetime `expires_in` asks for, within `options`. INVALID_ARGUMENT naming ExpiresIn and
// the value: not a duration, or longer than token_max_lifetime (naming both).
absl::StatusOr<absl::Duration> TokenLifetime(const IdentityOptions& options,
                                             const std::string& expires_in);

// Issues a token to `user` in `tx`, after checking the spec (TokenLifetime; a description of
// one line and at most 256 bytes). PERMISSION_DENIED for the engine's user.
absl::StatusOr<IssuedToken> IssueToken(store::Tx& tx, const IdentityOptions& options,
                                       const v1::User& user, const TokenSpec& spec);

// `cubd user token NAME`: a token for the user named, in a transaction of its own.
// NOT_FOUND when there is no such user.
absl::StatusOr<IssuedToken> IssueTokenForUser(store::ConnectionPool& db,
                                              const IdentityOptions& options,
                                              const std::string& username, const TokenSpec& spec);

// The caller a bearer token of cub's own names, with authenticated_by "Token" and
// credential_expires_at its expiry. UNAUTHENTICATED: "no bearer token: ...", "the bearer token
// is not valid", "the bearer token expired at T; ...", "the bearer token was revoked at T by U".
absl::StatusOr<Principal> AuthenticateToken(store::ConnectionPool& db, const std::string& token);

// The RPCs of AuthService (proto/cub/v1/auth.proto).
absl::StatusOr<v1::CreateTokenResponse> CreateToken(store::ConnectionPool& db,
                                                    const IdentityOptions& options,
                                                    const Principal& caller,
                                                    const v1::CreateTokenRequest& req);
// Newest first. User: empty for the caller's own; a username or "*" (everyone's) for a server
// admin only (PERMISSION_DENIED otherwise; NOT_FOUND for an unknown username).
absl::StatusOr<v1::ListTokensResponse> ListTokens(store::ConnectionPool& db,
                                                  const Principal& caller,
                                                  const v1::ListTokensRequest& req);
// INVALID_ARGUMENT when TokenID is not a UUID; NOT_FOUND when there is no such token or it is
// another's and the caller is not a server admin; FAILED_PRECONDITION when it was already
// revoked, saying when and by whom.
absl::StatusOr<v1::RevokeTokenResponse> RevokeToken(store::ConnectionPool& db,
                                                    const Principal& caller,
                                                    const v1::RevokeTokenRequest& req);

}  // namespace cub::ops

#endif  // CUB_LIB_OPS_TOKENS_H_
