#include "lib/ops/authenticator.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "lib/identity/jwt.h"
#include "lib/identity/oidc_verifier.h"
#include "lib/ops/oidc_login.h"
#include "lib/ops/tokens.h"

namespace cub::ops {
namespace {

identity::VerifierOptions VerifierOptionsOf(const IdentityOptions& options) {
  identity::VerifierOptions v;
  v.ca_file = options.oidc_ca_file;
  return v;
}

}  // namespace

Authenticator::Authenticator(store::ConnectionPool& db, IdentityOptions options)
    : db_(db),
      options_(std::move(options)),
      verifier_(std::make_unique<identity::OidcVerifier>(VerifierOptionsOf(options_))) {}

Authenticator::~Authenticator() = default;

absl::StatusOr<Principal> Authenticator::Authenticate(const std::string& bearer) const {
  if (bearer.size() > identity::kMaxJwtBytes) {
    return absl::UnauthenticatedError(
        absl::StrCat("the bearer token is longer than ", identity::kMaxJwtBytes, " bytes"));
  }
  // cub's own tokens, and the "no bearer token" refusal.
  if (bearer.empty() || absl::StartsWith(bearer, "cub_")) return AuthenticateToken(db_, bearer);
  if (!identity::LooksLikeJwt(bearer)) {
    return absl::UnauthenticatedError("the bearer token is not valid");
  }
  absl::StatusOr<identity::Jwt> jwt = identity::ParseJwt(bearer);
  if (!jwt.ok()) {
    return absl::UnauthenticatedError(
        absl::StrCat("the bearer token is not a valid JWT: ", jwt.status().message()));
  }
  std::string issuer;
  if (auto iss = jwt->claims.find("iss"); iss != jwt->claims.end() && iss->is_string()) {
    issuer = iss->get<std::string>();
  }
  return OidcLogin(db_, *verifier_, options_, *jwt, issuer, absl::Now());
}

}  // namespace cub::ops
