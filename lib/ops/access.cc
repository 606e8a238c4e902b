#include "lib/ops/access.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "lib/domain/vocabulary.h"
#include "lib/store/links.h"
#include "lib/store/spaces.h"
#include "lib/store/units.h"
#include "lib/util/status_macros.h"

namespace cub::ops {
namespace {

const char* NeededRole(Access a) {
  switch (a) {
    case Access::kRead:
      return "viewer";
    case Access::kWrite:
      return "editor or admin";
    case Access::kApprove:
      return "approver or admin";
    case Access::kAdmin:
      return "admin";
    case Access::kReport:
      return "reporter or admin";
    case Access::kScan:
      return "scanner, reporter or admin";
  }
  return "admin";
}

const char* Verb(Access a) {
  switch (a) {
    case Access::kRead:
      return "read";
    case Access::kWrite:
      return "change";
    case Access::kApprove:
      return "approve in";
    case Access::kAdmin:
      return "administer";
    case Access::kReport:
      return "report the live status of releases in";
    case Access::kScan:
      return "record scan findings or checks in";
  }
  return "use";
}

// The roles among role names as the database stores them; unknown names are left out.
std::vector<Role> RolesNamed(const std::vector<std::string>& names) {
  std::vector<Role> roles;
  for (const auto& name : names) {
    if (auto r = domain::ParseRole(name)) roles.push_back(*r);
  }
  return roles;
}

}  // namespace

store::Caller ToCaller(const Principal& p) { return store::Caller{p.admin, p.user_id, p.groups}; }

SpacedRef SplitRef(const std::string& ref, const std::string& default_space) {
  if (auto slash = ref.find('/'); slash != std::string::npos) {
    return SpacedRef{ref.substr(0, slash), ref.substr(slash + 1)};
  }
  return SpacedRef{default_space, ref};
}

absl::StatusOr<v1::Space> ResolveSpace(store::Tx& tx, const Principal& p, const std::string& ref,
                                       Access access) {
  if (ref.empty()) return absl::InvalidArgumentError("a space is required (Space)");
  CUB_ASSIGN_OR_RETURN(auto space, store::FindSpace(tx, ref));
  if (!space) return absl::NotFoundError(absl::StrCat("space '", ref, "' not found"));
  if (p.admin) return *space;
  CUB_ASSIGN_OR_RETURN(auto names, store::RolesOn(tx, space->space_id(), ToCaller(p)));
  const std::vector<Role> roles = RolesNamed(names);
  if (roles.empty()) return absl::NotFoundError(absl::StrCat("space '", ref, "' not found"));
  if (!Allows(roles, access)) {
    std::vector<std::string> held;
    for (Role r : roles) held.push_back(std::string(domain::RoleName(r)));
    return absl::PermissionDeniedError(
        absl::StrCat("user '", p.username, "' may not ", Verb(access), " space '", space->slug(),
                     "': that needs the ", NeededRole(access), " role, and they hold ",
                     absl::StrJoin(held, ", ")));
  }
  return *space;
}

absl::StatusOr<std::vector<bool>> MayAccessEach(store::Tx& tx, const Principal& p,
                                                const std::vector<v1::Space>& spaces,
                                                Access access) {
  if (p.admin) return std::vector<bool>(spaces.size(), true);
  std::vector<std::string> ids;
  ids.reserve(spaces.size());
  for (const auto& s : spaces) ids.push_back(s.space_id());
  CUB_ASSIGN_OR_RETURN(auto names, store::RolesOnEach(tx, ids, ToCaller(p)));
  std::vector<bool> out;
  out.reserve(spaces.size());
  for (const auto& s : spaces) {
    auto it = names.find(s.space_id());
    const std::vector<Role> roles =
        it == names.end() ? std::vector<Role>() : RolesNamed(it->second);
    out.push_back(!roles.empty() && Allows(roles, access));
  }
  return out;
}

absl::StatusOr<v1::Unit> ResolveUnit(store::Tx& tx, const v1::Space& space,
                                     const std::string& ref) {
  if (ref.empty()) return absl::InvalidArgumentError("a unit is required");
  CUB_ASSIGN_OR_RETURN(auto unit, store::FindUnit(tx, space.space_id(), ref));
  if (!unit) {
    return absl::NotFoundError(
        absl::StrCat("unit '", ref, "' not found in space '", space.slug(), "'"));
  }
  return *unit;
}

absl::StatusOr<std::string> ResolveFilter(store::Tx& tx, const Principal& p, const std::string& ref,
                                          const std::string& default_space,
                                          const std::string& entity) {
  if (ref.empty()) return std::string();
  std::string space_ref = default_space;
  std::string name = ref;
  if (auto slash = ref.find('/'); slash != std::string::npos) {
    space_ref = ref.substr(0, slash);
    name = ref.substr(slash + 1);
  }
  if (space_ref.empty() || space_ref == "*") {
    return absl::InvalidArgumentError(
        absl::StrCat("filter '", ref, "': name its space as SPACE/FILTER"));
  }
  CUB_ASSIGN_OR_RETURN(auto space, ResolveSpace(tx, p, space_ref, Access::kRead));
  CUB_ASSIGN_OR_RETURN(auto filter, store::FindFilter(tx, space.space_id(), name));
  if (!filter) {
    return absl::NotFoundError(
        absl::StrCat("filter '", name, "' not found in space '", space.slug(), "'"));
  }
  if (filter->from() != entity) {
    return absl::InvalidArgumentError(
        absl::StrCat("filter '", ref, "' selects ", filter->from(), "s, not ", entity, "s"));
  }
  return filter->where_field();
}

}  // namespace cub::ops
