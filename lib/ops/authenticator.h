// Who a bearer token is: one of cub's own API tokens ("cub_...", lib/ops/tokens.h), or a
// token an OpenID provider signed (lib/ops/oidc_login.h): a person's ID token or JWT access
// token from a provider people log in with, or a CI workload's token mapped to a service
// account. The one entry point the server's per-call gate uses.
//
// Thread-safe: one Authenticator serves every call of a cubd.
#ifndef CUB_LIB_OPS_AUTHENTICATOR_H_
#define CUB_LIB_OPS_AUTHENTICATOR_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "lib/ops/principal.h"
#include "lib/store/pool.h"

namespace cub::identity {
class OidcVerifier;
}  // namespace cub::identity

namespace cub::ops {

// An OpenID provider people log in with (`cubd serve --oidc-issuer ...`, or the config file).
struct OidcIssuer {
  std::string issuer;     // exactly as its tokens' `iss`
  std::string client_id;  // the audience its tokens for cub carry; the CLI's public client
  std::string username_claim = "preferred_username";
  std::string groups_claim = "groups";
  // Prepended to the username and to every group the provider names, so that two providers
  // (or a provider and cub's own users) cannot claim each other's names. Empty: none.
  std::string username_prefix, groups_prefix;
  // What the CLI asks for at login.
  std::vector<std::string> scopes = {"openid", "profile", "email", "groups", "offline_access"};
};

struct IdentityOptions {
  std::vector<OidcIssuer> issuers;
  std::string oidc_ca_file;  // PEM roots for providers' https; empty: the system's
  // cub's own tokens: the lifetime of one created without --expires-in, and the longest any
  // may have.
  absl::Duration token_default_lifetime = absl::Hours(24 * 90);
  absl::Duration token_max_lifetime = absl::Hours(24 * 366);
};

class Authenticator {
 public:
  Authenticator(store::ConnectionPool& db, IdentityOptions options);
  ~Authenticator();
  Authenticator(const Authenticator&) = delete;
  Authenticator& operator=(const Authenticator&) = delete;

  // The caller `bearer` names (the token without "Bearer "). UNAUTHENTICATED with the reason
  // when it names nobody: none sent, unknown, expired, revoked, wrongly signed, for another
  // audience, from an issuer cubd does not trust. UNAVAILABLE when the provider that would
  // vouch for it cannot be reached and its keys are not cached.
  absl::StatusOr<Principal> Authenticate(const std::string& bearer) const;

  const IdentityOptions& options() const { return options_; }

 private:
  store::ConnectionPool& db_;
  const IdentityOptions options_;
  // Fetches and caches the providers' keys (lazily: cubd starts while a provider is down).
  std::unique_ptr<identity::OidcVerifier> verifier_;
};

}  // namespace cub::ops

#endif  // CUB_LIB_OPS_AUTHENTICATOR_H_
