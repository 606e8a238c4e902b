#include "lib/ops/spaces.h"

#include <map>

#include "absl/strings/str_cat.h"
#include "lib/domain/vocabulary.h"
#include "lib/ops/access.h"
#include "lib/ops/input.h"
#include "lib/ops/page_token.h"
#include "lib/ops/validation.h"
#include "lib/store/engine_work.h"
#include "lib/store/releases.h"
#include "lib/store/spaces.h"
#include "lib/store/users.h"
#include "lib/util/status_macros.h"

namespace cub::ops {
namespace {

// The user or group a grant names, checked to exist (for a user).
absl::StatusOr<std::pair<std::string, std::string>> Grantee(store::Tx& tx,
                                                            const v1::GrantRequest& req) {
  if (req.username().empty() == req.group().empty()) {
    return absl::InvalidArgumentError("name exactly one of a user or a group");
  }
  if (!req.username().empty()) {
    CUB_ASSIGN_OR_RETURN(auto u, store::FindUserByName(tx, req.username()));
    if (!u) return absl::NotFoundError(absl::StrCat("user '", req.username(), "' not found"));
    return std::make_pair(u->user_id(), std::string());
  }
  return std::make_pair(std::string(), req.group());
}

}  // namespace

absl::StatusOr<v1::Space> CreateSpace(store::ConnectionPool& db, const Principal& p,
                                      const v1::CreateSpaceRequest& req) {
  CUB_RETURN_IF_ERROR(ValidateSlug("space", req.slug()));
  CUB_RETURN_IF_ERROR(ValidateKeys("label", req.labels()));
  CUB_RETURN_IF_ERROR(ValidateKeys("annotation", req.annotations()));
  v1::Space out;
  absl::Status st = store::WithTransaction(db, [&](store::Tx& tx) -> absl::Status {
    CUB_ASSIGN_OR_RETURN(auto existing, store::FindSpace(tx, req.slug()));
    if (existing) {
      if (!req.allow_exists()) {
        return absl::AlreadyExistsError(absl::StrCat("space '", req.slug(), "' already exists"));
      }
      CUB_ASSIGN_OR_RETURN(auto visible, ResolveSpace(tx, p, req.slug(), Access::kRead));
      out = visible;
      return absl::OkStatus();
    }
    store::NewSpace ns{req.slug(), req.display_name(), ToMap(req.labels()),
                       ToMap(req.annotations())};
    if (!req.component().empty()) {
      CUB_RETURN_IF_ERROR(ValidateSlug("component", req.component()));
      CUB_ASSIGN_OR_RETURN(ns.component_id, store::EnsureComponent(tx, req.component()));
    }
    CUB_ASSIGN_OR_RETURN(auto space, store::InsertSpace(tx, ns));
    CUB_RETURN_IF_ERROR(store::GrantRole(
        tx, space.space_id(), std::string(domain::RoleName(Role::kAdmin)), p.user_id, ""));
    out = space;
    return absl::OkStatus();
  });
  if (!st.ok()) return AlreadyExistsAs(st, absl::StrCat("space '", req.slug(), "'"));
  return out;
}

absl::StatusOr<v1::Space> GetSpace(store::ConnectionPool& db, const Principal& p,
                                   const v1::GetSpaceRequest& req) {
  return store::InReadTransaction(db, [&](store::Tx& tx) -> absl::StatusOr<v1::Space> {
    v1::Space out;
    CUB_ASSIGN_OR_RETURN(auto space, ResolveSpace(tx, p, req.space(), Access::kRead));
    out = space;
    return out;
  });
}

absl::StatusOr<v1::ListSpacesResponse> ListSpaces(store::ConnectionPool& db, const Principal& p,
                                                  const v1::ListSpacesRequest& req) {
  return store::InReadTransaction(db, [&](store::Tx& tx) -> absl::StatusOr<v1::ListSpacesResponse> {
    v1::ListSpacesResponse out;
    CUB_ASSIGN_OR_RETURN(PageStart page, ReadPageStart(req, req.limit(), req.page_token(), 1));
    CUB_ASSIGN_OR_RETURN(auto filter, ResolveFilter(tx, p, req.options().filter(), "", "Space"));
    CUB_ASSIGN_OR_RETURN(auto spaces, store::ListSpaces(tx, ToCaller(p), req.options().where(),
                                                        filter, {page.after, page.limit + 1}));
    out.set_next_page_token(FinishPage(
        page, spaces, [](const v1::Space& s) { return std::vector<std::string>{s.slug()}; }));
    for (auto& s : spaces) *out.add_spaces() = std::move(s);
    return out;
  });
}

absl::StatusOr<v1::Space> UpdateSpace(store::ConnectionPool& db, const Principal& p,
                                      const v1::UpdateSpaceRequest& req) {
  CUB_RETURN_IF_ERROR(ValidateKeys("label", req.labels()));
  CUB_RETURN_IF_ERROR(ValidateKeys("annotation", req.annotations()));
  return store::InTransaction(db, [&](store::Tx& tx) -> absl::StatusOr<v1::Space> {
    v1::Space out;
    CUB_ASSIGN_OR_RETURN(auto space, ResolveSpace(tx, p, req.space(), Access::kWrite));
    store::SpaceChanges c;
    if (!req.display_name().empty()) c.display_name = req.display_name();
    c.labels = ToMap(req.labels());
    c.annotations = ToMap(req.annotations());
    if (!req.component().empty()) {
      CUB_RETURN_IF_ERROR(ValidateSlug("component", req.component()));
      CUB_ASSIGN_OR_RETURN(c.component_id, store::EnsureComponent(tx, req.component()));
    }
    c.add_validators.assign(req.add_validating_invocations().begin(),
                            req.add_validating_invocations().end());
    c.remove_validators.assign(req.remove_validating_invocations().begin(),
                               req.remove_validating_invocations().end());
    CUB_RETURN_IF_ERROR(CheckValidators(tx, p, c.add_validators));
    if (req.release_target() == "-") {
      c.release_target_id = "";
    } else if (!req.release_target().empty()) {
      SpacedRef r = SplitRef(req.release_target(), "");
      if (r.space.empty()) {
        return absl::InvalidArgumentError(
            absl::StrCat("ReleaseTarget '", req.release_target(), "': name it as SPACE/TARGET"));
      }
      CUB_ASSIGN_OR_RETURN(auto target_space, ResolveSpace(tx, p, r.space, Access::kRead));
      CUB_ASSIGN_OR_RETURN(auto target, store::FindTarget(tx, target_space.space_id(), r.name));
      if (!target) {
        return absl::NotFoundError(
            absl::StrCat("target '", r.name, "' not found in space '", target_space.slug(), "'"));
      }
      c.release_target_id = target->target_id();
    }
    c.expected_version = req.version();
    CUB_ASSIGN_OR_RETURN(auto updated, store::UpdateSpace(tx, space.space_id(), c));
    // CEL gates read a Space's labels and annotations, and a new release Target changes what
    // AutoRelease can publish: the ChangeOrders that have reached the Space look again.
    CUB_RETURN_IF_ERROR(store::WakeChangeOrdersInSpace(tx, space.space_id()));
    out = updated;
    return out;
  });
}

absl::Status DeleteSpace(store::ConnectionPool& db, const Principal& p,
                         const v1::DeleteSpaceRequest& req) {
  return store::WithTransaction(db, [&](store::Tx& tx) -> absl::Status {
    CUB_ASSIGN_OR_RETURN(auto space, ResolveSpace(tx, p, req.space(), Access::kAdmin));
    return store::DeleteSpace(tx, space);
  });
}

namespace {

// Grant and Revoke: the same checks, one store call apart.
using RoleChange = absl::Status (*)(store::Tx&, const std::string&, const std::string&,
                                    const std::string&, const std::string&);

absl::StatusOr<v1::Permission> ChangeRole(store::ConnectionPool& db, const Principal& p,
                                          const v1::GrantRequest& req, RoleChange change) {
  std::optional<Role> role = domain::ParseRole(req.role());
  if (!role) {
    return absl::InvalidArgumentError(
        absl::StrCat("unknown role '", req.role(),
                     "': use viewer, editor, approver, admin, reporter or scanner"));
  }
  return store::InTransaction(db, [&](store::Tx& tx) -> absl::StatusOr<v1::Permission> {
    v1::Permission out;
    CUB_ASSIGN_OR_RETURN(auto space, ResolveSpace(tx, p, req.space(), Access::kAdmin));
    CUB_ASSIGN_OR_RETURN(auto who, Grantee(tx, req));
    CUB_RETURN_IF_ERROR(change(tx, space.space_id(), req.role(), who.first, who.second));
    out.set_space_id(space.space_id());
    out.set_role(req.role());
    out.set_username(req.username());
    out.set_group(req.group());
    return out;
  });
}

}  // namespace

absl::StatusOr<v1::Permission> Grant(store::ConnectionPool& db, const Principal& p,
                                     const v1::GrantRequest& req) {
  return ChangeRole(db, p, req, &store::GrantRole);
}

absl::StatusOr<v1::Permission> Revoke(store::ConnectionPool& db, const Principal& p,
                                      const v1::GrantRequest& req) {
  return ChangeRole(db, p, req, &store::RevokeRole);
}

absl::StatusOr<v1::ListPermissionsResponse> ListPermissions(store::ConnectionPool& db,
                                                            const Principal& p,
                                                            const v1::ListPermissionsRequest& req) {
  return store::InReadTransaction(
      db, [&](store::Tx& tx) -> absl::StatusOr<v1::ListPermissionsResponse> {
        v1::ListPermissionsResponse out;
        CUB_ASSIGN_OR_RETURN(auto space, ResolveSpace(tx, p, req.space(), Access::kRead));
        CUB_ASSIGN_OR_RETURN(auto perms, store::ListPermissions(tx, space.space_id()));
        for (auto& perm : perms) {
          *out.add_permissions() = std::move(perm);
        }
        return out;
      });
}

}  // namespace cub::ops
