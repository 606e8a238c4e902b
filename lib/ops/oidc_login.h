// Who a token signed by an OpenID provider names (lib/ops/authenticator.h dispatches here).
//
// - A person: the token's issuer is one people log in with (IdentityOptions::issuers). It is
//   verified for that issuer's client ID; (issuer, subject) names a personal user, created on
//   its first login as UsernamePrefix + the username claim (never an admin: an admin grants it
//   roles). Its groups are GroupsPrefix + each entry of the groups claim, taken at every login
//   from a token not older than the last one they were taken from; its email is kept.
// - A CI workload: `cubd serviceaccount create` mapped tokens of the issuer to service
//   accounts (store::WorkloadIdentity). The token is verified for the mappings' audiences and
//   must match exactly one mapping's subject pattern and required claims.
// - Otherwise UNAUTHENTICATED "the token was issued by 'X', which cubd does not trust".
//
// Thread-safe.
#ifndef CUB_LIB_OPS_OIDC_LOGIN_H_
#define CUB_LIB_OPS_OIDC_LOGIN_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "lib/identity/jwt.h"
#include "lib/identity/oidc_verifier.h"
#include "lib/ops/authenticator.h"
#include "lib/ops/principal.h"
#include "lib/store/identities.h"
#include "lib/store/pool.h"

namespace cub::ops {

// The caller `jwt` (identity::ParseJwt's output, not yet trusted) names, `issuer` being its
// unverified `iss`. UNAUTHENTICATED with the reason when it names nobody; UNAVAILABLE when the
// issuer's keys are needed and cannot be fetched. The Principal has authenticated_by "OIDC",
// the token's expiry, and the issuer, subject and email.
absl::StatusOr<Principal> OidcLogin(store::ConnectionPool& db, identity::OidcVerifier& verifier,
                                    const IdentityOptions& options, const identity::Jwt& jwt,
                                    const std::string& issuer, absl::Time now);

// The mappings of `mappings` that the verified `claims` match: audience among the token's,
// subject by the glob, every required claim equal to identity::ClaimText of the claim.
std::vector<const store::WorkloadIdentity*> MatchingWorkloads(
    const std::vector<store::WorkloadIdentity>& mappings, const identity::VerifiedClaims& claims);

}  // namespace cub::ops

#endif  // CUB_LIB_OPS_OIDC_LOGIN_H_
