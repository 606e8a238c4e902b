// cub's own API tokens (migrations/0001, 0020): stored as the SHA-256 of the secret, with an
// expiry, a description and, once revoked, when and by whom. The database keeps them
// append-only but for revoking once (a trigger, whoever asks), and the runtime role may only
// insert, read and set revoked_at/revoked_by.
//
// Every function returns a Status and never throws: a database error comes back as the Status
// lib/store/errors.h maps it to. Whether a token is expired is decided by the database's clock
// (now()), the same clock that stamps created_at and expires_at.
#ifndef CUB_LIB_STORE_TOKENS_H_
#define CUB_LIB_STORE_TOKENS_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "cub/v1/auth.pb.h"
#include "cub/v1/common.pb.h"
#include "lib/store/transaction.h"

namespace cub::store {

struct NewToken {
  std::string user_id;
  std::string token_hash;  // the raw SHA-256 digest of the secret (32 bytes)
  std::string description;
  absl::Duration lifetime;  // expires_at = now() + lifetime (whole seconds; positive)
};

// The token as stored (Token.State computed from now()). ALREADY_EXISTS when a token has that
// hash; FAILED_PRECONDITION when the user does not exist.
absl::StatusOr<v1::Token> InsertToken(Tx& tx, const NewToken& t);

// A token and the user holding it, found by its hash, whatever its state.
struct HeldToken {
  v1::User user;
  v1::Token token;
};
absl::StatusOr<std::optional<HeldToken>> FindTokenByHash(Tx& tx, const std::string& token_hash);

// Tokens of the user `user_id`, or of everyone when it is nullopt, newest first; only active
// ones unless `include_inactive`.
absl::StatusOr<std::vector<v1::Token>> ListTokens(Tx& tx, const std::optional<std::string>& user_id,
                                                  bool include_inactive);

// By ID (text of a UUID, checked by the caller), locked for update; nullopt when none.
absl::StatusOr<std::optional<v1::Token>> FindTokenForUpdate(Tx& tx, const std::string& token_id);

// Sets revoked_at = now() and revoked_by on a token not yet revoked; returns it as it now is.
// FAILED_PRECONDITION when it was already revoked (the database refuses too).
absl::StatusOr<v1::Token> RevokeToken(Tx& tx, const std::string& token_id,
                                      const std::string& revoked_by_user_id);

}  // namespace cub::store

#endif  // CUB_LIB_STORE_TOKENS_H_
