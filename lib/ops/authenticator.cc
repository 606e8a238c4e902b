#include "lib/ops/authenticator.h"

#include "lib/ops/tokens.h"

namespace cub::ops {

Authenticator::Authenticator(store::ConnectionPool& db, IdentityOptions options)
    : db_(db), options_(std::move(options)) {}

Authenticator::~Authenticator() = default;

absl::StatusOr<Principal> Authenticator::Authenticate(const std::string& bearer) const {
  return AuthenticateToken(db_, bearer);
}

}  // namespace cub::ops
