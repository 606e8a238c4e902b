#include "lib/ops/users.h"

#include "absl/strings/str_cat.h"
#include "lib/ops/input.h"
#include "lib/util/status_macros.h"

namespace cub::ops {

absl::StatusOr<CreatedUser> CreateUser(store::ConnectionPool& db, const store::NewUser& nu,
                                       const TokenSpec& spec, const IdentityOptions& options) {
  CUB_RETURN_IF_ERROR(ValidateSlug("user", nu.username));
  for (const auto& g : nu.groups) {
    CUB_RETURN_IF_ERROR(ValidateSlug("group", g));
  }
  if (nu.admin && nu.service_account) {
    return absl::InvalidArgumentError("a service account cannot be a server admin");
  }
  CreatedUser out;
  absl::Status st = store::WithTransaction(db, [&](store::Tx& tx) -> absl::Status {
    CUB_ASSIGN_OR_RETURN(auto existing, store::FindUserByName(tx, nu.username));
    if (existing) {
      return absl::AlreadyExistsError(absl::StrCat("user '", nu.username, "' already exists"));
    }
    CUB_ASSIGN_OR_RETURN(auto user, store::InsertUser(tx, nu));
    CUB_ASSIGN_OR_RETURN(IssuedToken issued, IssueToken(tx, options, user, spec));
    out.user = user;
    out.token = std::move(issued.secret);
    out.token_info = std::move(issued.token);
    return absl::OkStatus();
  });
  if (!st.ok()) return AlreadyExistsAs(st, absl::StrCat("user '", nu.username, "'"));
  return out;
}

absl::StatusOr<std::vector<v1::User>> ListUsers(store::ConnectionPool& db) {
  return store::InReadTransaction(db, [&](store::Tx& tx) -> absl::StatusOr<std::vector<v1::User>> {
    std::vector<v1::User> out;
    CUB_ASSIGN_OR_RETURN(out, store::ListUsers(tx));
    return out;
  });
}

absl::StatusOr<Principal> Authenticate(store::ConnectionPool& db, const std::string& token) {
  return AuthenticateToken(db, token);
}

Principal PrincipalOf(const v1::User& user) {
  Principal p;
  p.user_id = user.user_id();
  p.username = user.username();
  p.groups.assign(user.groups().begin(), user.groups().end());
  p.admin = user.admin();
  p.service_account = user.service_account();
  p.created_at = user.created_at();
  return p;
}

}  // namespace cub::ops
