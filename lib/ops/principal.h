// The authenticated caller of an operation, resolved from a bearer token by the server.
// Operations trust only this, never identity fields of a request.
#ifndef CUB_LIB_OPS_PRINCIPAL_H_
#define CUB_LIB_OPS_PRINCIPAL_H_

#include <string>
#include <vector>

namespace cub::ops {

struct Principal {
  std::string user_id;
  std::string username;
  std::vector<std::string> groups;
  bool admin = false;            // server administrator: every role on every Space
  bool service_account = false;  // CI or a reporter: can never vote on approvals
  std::string created_at;        // when the user was created (RFC 3339)
};

// Roles on a Space, in increasing order of what they allow to be read or written.
// viewer reads; editor also writes; approver reads and votes; admin does all of it and grants;
// reporter (a GitOps operator's identity) reads and reports the live status of Releases.
enum class Role { kViewer, kEditor, kApprover, kAdmin, kReporter };

// What an operation needs of the caller on a Space.
enum class Access { kRead, kWrite, kApprove, kAdmin, kReport };

// The server acting on its own account: reading what a caller's operation needs but the
// caller may not see (a ChangeOrder's base for an approver, the ChangeOrder a Release names).
// Never an author: writes keep the caller's identity.
Principal ServerPrincipal();

const char* RoleName(Role r);
// Parses "viewer" | "editor" | "approver" | "admin"; false if unknown.
bool ParseRole(const std::string& name, Role* out);
// Whether holding `roles` grants `access`.
bool Allows(const std::vector<Role>& roles, Access access);

}  // namespace cub::ops

#endif  // CUB_LIB_OPS_PRINCIPAL_H_
