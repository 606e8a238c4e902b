// Service accounts by workload identity: `cubd serviceaccount create|list`, run as the
// database owner (the runtime may only read the mappings; migrations/0019_identities.sql).
#ifndef CUB_LIB_OPS_SERVICE_ACCOUNTS_H_
#define CUB_LIB_OPS_SERVICE_ACCOUNTS_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "lib/store/identities.h"
#include "lib/store/pool.h"

namespace cub::ops {

struct NewWorkloadMapping {
  std::string name;             // the service account's username
  std::string issuer;           // --oidc-issuer
  std::string subject_pattern;  // --subject, a glob ('*' any run of characters)
  std::string audience = "cubd";
  std::vector<std::string> claims;  // --claim KEY=VALUE, each
};

struct CreatedMapping {
  store::WorkloadIdentity mapping;
  bool created_user = false;  // false: the service account existed and gained a mapping
};

// Maps tokens of the issuer to the service account `name`, creating the account if it does
// not exist, in one transaction. INVALID_ARGUMENT naming the flag for a bad name, issuer URL,
// pattern, audience or claim; FAILED_PRECONDITION when `name` is a person's user (or cubd's
// engine).
absl::StatusOr<CreatedMapping> CreateWorkloadMapping(store::ConnectionPool& db,
                                                     const NewWorkloadMapping& m);

// Every mapping, by service account.
absl::StatusOr<std::vector<store::WorkloadIdentity>> ListWorkloadMappings(
    store::ConnectionPool& db);

}  // namespace cub::ops

#endif  // CUB_LIB_OPS_SERVICE_ACCOUNTS_H_
