#include "lib/ops/principal.h"

namespace cub::ops {

Principal ServerPrincipal() {
  Principal p;
  p.username = "cubd";
  p.admin = true;
  return p;
}

bool Allows(const std::vector<Role>& roles, Access access) {
  for (Role r : roles) {
    switch (access) {
      case Access::kRead:
        return true;  // any role reads
      case Access::kWrite:
        if (r == Role::kEditor || r == Role::kAdmin) return true;
        break;
      case Access::kApprove:
        if (r == Role::kApprover || r == Role::kAdmin) return true;
        break;
      case Access::kAdmin:
        if (r == Role::kAdmin) return true;
        break;
      case Access::kReport:
        if (r == Role::kReporter || r == Role::kAdmin) return true;
        break;
      case Access::kScan:
        if (r == Role::kScanner || r == Role::kReporter || r == Role::kAdmin) return true;
        break;
    }
  }
  return false;
}

}  // namespace cub::ops
