#include "lib/store/change_workflows.h"

#include "absl/strings/str_cat.h"
#include "lib/store/pq.h"
#include "lib/store/sql.h"

namespace cub::store {
namespace {

const std::string kWorkflowSelect =
    absl::StrCat("SELECT w.id, w.space_id, w.slug, w.definition::text, ", Rfc3339("w.created_at"),
                 ", ", Rfc3339("w.updated_at"), ", w.version FROM change_workflows w WHERE TRUE");

StoredWorkflow ReadWorkflow(const pqxx::row& r) {
  return StoredWorkflow{r[0].as<std::string>(), r[1].as<std::string>(), r[2].as<std::string>(),
                        r[3].as<std::string>(), r[4].as<std::string>(), r[5].as<std::string>(),
                        r[6].as<int64_t>()};
}

}  // namespace

StoredWorkflow InsertWorkflow(Tx& tx, const std::string& space_id, const std::string& slug,
                              const std::string& definition_json) {
  pqxx::row r = Pq(tx).exec_params1(
      "INSERT INTO change_workflows (space_id, slug, definition) VALUES ($1::uuid, $2, $3::jsonb)"
      " RETURNING id",
      space_id, slug, definition_json);
  return *FindWorkflow(tx, space_id, r[0].as<std::string>());
}

std::optional<StoredWorkflow> FindWorkflow(Tx& tx, const std::string& space_id,
                                           const std::string& ref) {
  Query q(kWorkflowSelect);
  std::string p = q.Param(ref);
  q.Append(absl::StrCat(" AND w.space_id = ", q.Param(space_id), "::uuid AND (w.slug = ", p,
                        " OR w.id::text = ", p, ")"));
  pqxx::result r = q.Exec(tx);
  if (r.empty()) return std::nullopt;
  return ReadWorkflow(r[0]);
}

std::vector<StoredWorkflow> ListWorkflows(Tx& tx, const std::string& space_id) {
  Query q(kWorkflowSelect);
  q.Append(absl::StrCat(" AND w.space_id = ", q.Param(space_id), "::uuid ORDER BY w.slug"));
  std::vector<StoredWorkflow> out;
  for (const auto& row : q.Exec(tx)) out.push_back(ReadWorkflow(row));
  return out;
}

StoredWorkflow UpdateWorkflow(Tx& tx, const std::string& id, const std::string& definition_json) {
  pqxx::row r = Pq(tx).exec_params1(
      "UPDATE change_workflows SET definition = $2::jsonb, updated_at = now(),"
      " version = version + 1 WHERE id = $1::uuid RETURNING space_id",
      id, definition_json);
  return *FindWorkflow(tx, r[0].as<std::string>(), id);
}

void DeleteWorkflow(Tx& tx, const std::string& id) {
  Pq(tx).exec_params("DELETE FROM change_workflows WHERE id = $1::uuid", id);
}

}  // namespace cub::store
