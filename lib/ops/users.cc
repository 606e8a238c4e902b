#include "lib/ops/users.h"

#include <openssl/rand.h>
#include <openssl/sha.h>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "lib/ops/input.h"
#include "lib/util/status_macros.h"

namespace cub::ops {
namespace {

constexpr char kTokenPrefix[] = "cub_";

absl::StatusOr<std::string> NewToken() {
  unsigned char buf[32];
  if (RAND_bytes(buf, sizeof(buf)) != 1) return absl::InternalError("no randomness for a token");
  std::string raw(reinterpret_cast<char*>(buf), sizeof(buf));
  std::string token = absl::WebSafeBase64Escape(raw);
  return absl::StrCat(kTokenPrefix, token);
}

std::string TokenHash(const std::string& token) {
  unsigned char digest[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(token.data()), token.size(), digest);
  return std::string(reinterpret_cast<char*>(digest), sizeof(digest));
}

}  // namespace

absl::StatusOr<CreatedUser> CreateUser(store::ConnectionPool& db, const store::NewUser& nu) {
  CUB_RETURN_IF_ERROR(ValidateSlug("user", nu.username));
  for (const auto& g : nu.groups) {
    CUB_RETURN_IF_ERROR(ValidateSlug("group", g));
  }
  if (nu.admin && nu.service_account) {
    return absl::InvalidArgumentError("a service account cannot be a server admin");
  }
  CUB_ASSIGN_OR_RETURN(auto token, NewToken());
  CreatedUser out;
  absl::Status st = store::WithTransaction(db, [&](store::Tx& tx) -> absl::Status {
    CUB_ASSIGN_OR_RETURN(auto existing, store::FindUserByName(tx, nu.username));
    if (existing) {
      return absl::AlreadyExistsError(absl::StrCat("user '", nu.username, "' already exists"));
    }
    CUB_ASSIGN_OR_RETURN(auto user, store::InsertUser(tx, nu));
    CUB_RETURN_IF_ERROR(store::InsertToken(tx, user.user_id(), TokenHash(token)));
    out.user = user;
    return absl::OkStatus();
  });
  if (!st.ok()) return AlreadyExistsAs(st, absl::StrCat("user '", nu.username, "'"));
  out.token = token;
  return out;
}

absl::StatusOr<std::string> CreateToken(store::ConnectionPool& db, const std::string& username) {
  CUB_ASSIGN_OR_RETURN(auto token, NewToken());
  absl::Status st = store::WithTransaction(db, [&](store::Tx& tx) -> absl::Status {
    CUB_ASSIGN_OR_RETURN(auto user, store::FindUserByName(tx, username));
    if (!user) return absl::NotFoundError(absl::StrCat("user '", username, "' not found"));
    if (username == kEngineUser && user->admin() && user->service_account()) {
      return absl::PermissionDeniedError(
          "user 'automatic' is cubd's promotion engine: nobody may call the API as it");
    }
    return store::InsertToken(tx, user->user_id(), TokenHash(token));
  });
  if (!st.ok()) return st;
  return token;
}

absl::StatusOr<std::vector<v1::User>> ListUsers(store::ConnectionPool& db) {
  return store::InReadTransaction(db, [&](store::Tx& tx) -> absl::StatusOr<std::vector<v1::User>> {
    std::vector<v1::User> out;
    CUB_ASSIGN_OR_RETURN(out, store::ListUsers(tx));
    return out;
  });
}

absl::StatusOr<Principal> Authenticate(store::ConnectionPool& db, const std::string& token) {
  if (token.empty()) {
    return absl::UnauthenticatedError(
        "no bearer token: send one as \"authorization: Bearer TOKEN\"");
  }
  std::optional<v1::User> user;
  absl::Status st = store::WithReadTransaction(db, [&](store::Tx& tx) -> absl::Status {
    CUB_ASSIGN_OR_RETURN(user, store::FindUserByTokenHash(tx, TokenHash(token)));
    return absl::OkStatus();
  });
  if (!st.ok()) return st;
  if (!user) return absl::UnauthenticatedError("the bearer token is not valid");
  return PrincipalOf(*user);
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
