// The authenticated caller of an operation, resolved from a bearer token by the server.
// Operations trust only this, never identity fields of a request.
#ifndef CUB_LIB_OPS_PRINCIPAL_H_
#define CUB_LIB_OPS_PRINCIPAL_H_

#include <string>
#include <vector>

#include "lib/domain/vocabulary.h"

namespace cub::ops {

struct Principal {
  std::string user_id;
  std::string username;
  std::vector<std::string> groups;
  bool admin = false;            // server administrator: every role on every Space
  bool service_account = false;  // CI or a reporter: can never vote on approvals
  std::string created_at;        // when the user was created (RFC 3339)
  // A user known from an OpenID provider: the issuer and subject it is known by there, and
  // the email the provider last gave. Empty for users of cub's own tokens only.
  std::string issuer, subject, email;
  // How this call was authenticated ("Token": one of cub's own; "OIDC": a provider's signed
  // token; empty: not from a bearer token, e.g. the engine), and when that credential stops
  // being accepted (RFC 3339; empty: unknown).
  std::string authenticated_by;
  std::string credential_expires_at;
};

// Roles on a Space (lib/domain/vocabulary.h has what each allows, and their names).
using domain::Role;

// What an operation needs of the caller on a Space.
// kScan: recording scan findings for Releases and check attestations (not Approvals).
enum class Access { kRead, kWrite, kApprove, kAdmin, kReport, kScan };

// The server acting on its own account: reading what a caller's operation needs but the
// caller may not see (a ChangeOrder's base for an approver, the ChangeOrder a Release names).
// Never an author: writes keep the caller's identity.
Principal ServerPrincipal();

// The user cubd's promotion engine acts as (created by the migrations: an admin service
// account with no token). Nobody may call the API as it.
inline constexpr char kEngineUser[] = "automatic";

// Whether holding `roles` grants `access`.
bool Allows(const std::vector<Role>& roles, Access access);

}  // namespace cub::ops

#endif  // CUB_LIB_OPS_PRINCIPAL_H_
