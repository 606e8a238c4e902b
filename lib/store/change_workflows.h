// ChangeWorkflow rows. The definition is stored as the canonical JSON lib/workflow writes;
// it is validated before it gets here.
#ifndef CUB_LIB_STORE_CHANGE_WORKFLOWS_H_
#define CUB_LIB_STORE_CHANGE_WORKFLOWS_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "lib/store/transaction.h"

namespace cub::store {

struct StoredWorkflow {
  std::string id;
  std::string space_id;
  std::string slug;
  std::string definition_json;
  std::string created_at;
  std::string updated_at;
  int64_t version = 0;
};

// Every function here returns a Status and never throws: a database error comes back as the
// Status lib/store/errors.h maps it to.

// The workflow as stored. ALREADY_EXISTS when the Space has one of that slug.
absl::StatusOr<StoredWorkflow> InsertWorkflow(Tx& tx, const std::string& space_id,
                                              const std::string& slug,
                                              const std::string& definition_json);
// The Space's workflow of that slug or ID; nullopt when it has none.
absl::StatusOr<std::optional<StoredWorkflow>> FindWorkflow(Tx& tx, const std::string& space_id,
                                                           const std::string& slug_or_id);
// By slug.
absl::StatusOr<std::vector<StoredWorkflow>> ListWorkflows(Tx& tx, const std::string& space_id);
// Replaces the definition, bumps the version, and returns the workflow as stored; NOT_FOUND
// when no workflow has that ID.
absl::StatusOr<StoredWorkflow> UpdateWorkflow(Tx& tx, const std::string& id,
                                              const std::string& definition_json);
// FAILED_PRECONDITION when something still refers to it (a foreign key).
absl::Status DeleteWorkflow(Tx& tx, const std::string& id);

}  // namespace cub::store

#endif  // CUB_LIB_STORE_CHANGE_WORKFLOWS_H_
