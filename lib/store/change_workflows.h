// ChangeWorkflow rows. The definition is stored as the canonical JSON lib/workflow writes;
// it is validated before it gets here.
#ifndef CUB_LIB_STORE_CHANGE_WORKFLOWS_H_
#define CUB_LIB_STORE_CHANGE_WORKFLOWS_H_

#include <optional>
#include <string>
#include <vector>

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

StoredWorkflow InsertWorkflow(Tx& tx, const std::string& space_id, const std::string& slug,
                              const std::string& definition_json);
std::optional<StoredWorkflow> FindWorkflow(Tx& tx, const std::string& space_id,
                                           const std::string& slug_or_id);
std::vector<StoredWorkflow> ListWorkflows(Tx& tx, const std::string& space_id);
StoredWorkflow UpdateWorkflow(Tx& tx, const std::string& id, const std::string& definition_json);
void DeleteWorkflow(Tx& tx, const std::string& id);

}  // namespace cub::store

#endif  // CUB_LIB_STORE_CHANGE_WORKFLOWS_H_
