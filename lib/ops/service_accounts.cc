#include "lib/ops/service_accounts.h"

#include "absl/strings/str_cat.h"
#include "lib/net/http_client.h"
#include "lib/ops/identity_rules.h"
#include "lib/ops/input.h"
#include "lib/ops/principal.h"
#include "lib/store/users.h"
#include "lib/util/status_macros.h"

namespace cub::ops {
namespace {

absl::Status CheckMapping(const NewWorkloadMapping& m, store::WorkloadIdentity* out) {
  CUB_RETURN_IF_ERROR(ValidateSlug("service account", m.name));
  CUB_RETURN_IF_ERROR(net::CheckIssuerUrl("--oidc-issuer", m.issuer));
  CUB_RETURN_IF_ERROR(CheckSubjectPattern(m.subject_pattern));
  if (m.audience.empty() || m.audience.find_first_of(" \t\r\n") != std::string::npos) {
    return absl::InvalidArgumentError(
        absl::StrCat("--audience '", m.audience, "' is empty or holds a space"));
  }
  out->issuer = m.issuer;
  out->subject_pattern = m.subject_pattern;
  out->audience = m.audience;
  for (const auto& kv : m.claims) {
    CUB_ASSIGN_OR_RETURN(auto claim, ParseClaimRequirement(kv));
    if (out->claims.count(claim.first)) {
      return absl::InvalidArgumentError(
          absl::StrCat("--claim ", claim.first, " is given twice: a claim has one value"));
    }
    out->claims.insert(std::move(claim));
  }
  // CI providers let any pipeline ask for a token with any audience, so the subject (or a
  // claim) is all that keeps another owner's pipelines out: a wildcard before the owner part
  // ("*", "repo:*") would let every repository on the provider act as this account.
  const size_t star = m.subject_pattern.find('*');
  if (star != std::string::npos && out->claims.empty() &&
      m.subject_pattern.substr(0, star).find('/') == std::string::npos) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--subject '", m.subject_pattern,
        "' has a wildcard before any owner ('/'), so every repository or project of ", m.issuer,
        " could act as this service account: spell the owner out (repo:acme/*) or pin it "
        "with --claim (e.g. repository_owner=acme)"));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<CreatedMapping> CreateWorkloadMapping(store::ConnectionPool& db,
                                                     const NewWorkloadMapping& m) {
  store::WorkloadIdentity want;
  CUB_RETURN_IF_ERROR(CheckMapping(m, &want));
  return store::InTransaction(db, [&](store::Tx& tx) -> absl::StatusOr<CreatedMapping> {
    CreatedMapping out;
    store::WorkloadIdentity w = want;
    CUB_ASSIGN_OR_RETURN(auto user, store::FindUserByName(tx, m.name));
    if (user && m.name == kEngineUser) {
      return absl::FailedPreconditionError(
          "user 'automatic' is cubd's promotion engine: no token may act as it");
    }
    if (user && user->admin()) {
      return absl::FailedPreconditionError(
          absl::StrCat("user '", m.name, "' is a server admin: a CI workload may not act as one"));
    }
    if (user && !user->service_account()) {
      return absl::FailedPreconditionError(
          absl::StrCat("user '", m.name,
                       "' is not a service account: choose another name for the CI "
                       "workload's account"));
    }
    if (!user) {
      store::NewUser nu;
      nu.username = m.name;
      nu.service_account = true;
      CUB_ASSIGN_OR_RETURN(user, store::InsertUser(tx, nu));
      out.created_user = true;
    }
    w.user_id = user->user_id();
    w.username = user->username();
    CUB_ASSIGN_OR_RETURN(out.mapping, store::InsertWorkloadIdentity(tx, w));
    return out;
  });
}

absl::StatusOr<std::vector<store::WorkloadIdentity>> ListWorkloadMappings(
    store::ConnectionPool& db) {
  return store::InReadTransaction(
      db, [&](store::Tx& tx) -> absl::StatusOr<std::vector<store::WorkloadIdentity>> {
        return store::ListWorkloadIdentities(tx, "");
      });
}

}  // namespace cub::ops
