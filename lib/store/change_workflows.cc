#include "lib/store/change_workflows.h"

#include "absl/strings/str_cat.h"
#include "lib/store/pq.h"
#include "lib/store/sql.h"

namespace cub::store {
namespace {

const std::string kWorkflowSelect = absl::StrCat(
    "SELECT w.id AS workflow_id, w.space_id, w.slug, w.definition::text AS definition, ",
    Rfc3339("w.created_at"), " AS created_at, ", Rfc3339("w.updated_at"),
    " AS updated_at, w.version FROM change_workflows w WHERE TRUE");

StoredWorkflow WorkflowFromRow(const pqxx::row& r) {
  StoredWorkflow w;
  w.id = r["workflow_id"].as<std::string>();
  w.space_id = r["space_id"].as<std::string>();
  w.slug = r["slug"].as<std::string>();
  w.definition_json = r["definition"].as<std::string>();
  w.created_at = r["created_at"].as<std::string>();
  w.updated_at = r["updated_at"].as<std::string>();
  w.version = r["version"].as<int64_t>();
  return w;
}

std::optional<StoredWorkflow> WorkflowIn(Tx& tx, const std::string& space_id,
                                         const std::string& ref) {
  Query q(kWorkflowSelect);
  std::string p = q.Param(ref);
  q.Append(absl::StrCat(" AND w.space_id = ", q.Param(space_id), "::uuid AND (w.slug = ", p,
                        " OR w.id::text = ", p, ")"))
      .Prepared();
  pqxx::result r = q.Exec(tx);
  if (r.empty()) return std::nullopt;
  return WorkflowFromRow(r[0]);
}

// A workflow just written, read back: it must be there.
absl::StatusOr<StoredWorkflow> WrittenWorkflow(Tx& tx, const std::string& space_id,
                                               const std::string& id) {
  auto w = WorkflowIn(tx, space_id, id);
  if (!w) return absl::NotFoundError(absl::StrCat("no changeworkflow has the ID ", id));
  return *std::move(w);
}

}  // namespace

absl::StatusOr<StoredWorkflow> InsertWorkflow(Tx& tx, const std::string& space_id,
                                              const std::string& slug,
                                              const std::string& definition_json) {
  return Guard([&]() -> absl::StatusOr<StoredWorkflow> {
    pqxx::row r = Pq(tx).exec_params1(
        "INSERT INTO change_workflows (space_id, slug, definition)"
        " VALUES ($1::uuid, $2, $3::jsonb) RETURNING id::text AS id",
        space_id, slug, definition_json);
    return WrittenWorkflow(tx, space_id, r["id"].as<std::string>());
  });
}

absl::StatusOr<std::optional<StoredWorkflow>> FindWorkflow(Tx& tx, const std::string& space_id,
                                                           const std::string& ref) {
  return Guard([&]() -> absl::StatusOr<std::optional<StoredWorkflow>> {
    return WorkflowIn(tx, space_id, ref);
  });
}

absl::StatusOr<std::vector<StoredWorkflow>> ListWorkflows(Tx& tx, const std::string& space_id) {
  return Guard([&]() -> absl::StatusOr<std::vector<StoredWorkflow>> {
    Query q(kWorkflowSelect);
    q.Append(absl::StrCat(" AND w.space_id = ", q.Param(space_id), "::uuid ORDER BY w.slug"));
    std::vector<StoredWorkflow> out;
    for (const auto& row : q.Exec(tx)) out.push_back(WorkflowFromRow(row));
    return out;
  });
}

absl::StatusOr<StoredWorkflow> UpdateWorkflow(Tx& tx, const std::string& id,
                                              const std::string& definition_json) {
  return Guard([&]() -> absl::StatusOr<StoredWorkflow> {
    pqxx::result r = Pq(tx).exec_params(
        "UPDATE change_workflows SET definition = $2::jsonb, updated_at = now(),"
        " version = version + 1 WHERE id = $1::uuid RETURNING space_id::text AS space_id",
        id, definition_json);
    if (r.empty()) return absl::NotFoundError(absl::StrCat("no changeworkflow has the ID ", id));
    return WrittenWorkflow(tx, r[0]["space_id"].as<std::string>(), id);
  });
}

absl::Status DeleteWorkflow(Tx& tx, const std::string& id) {
  return Guard([&]() -> absl::Status {
    Pq(tx).exec_params("DELETE FROM change_workflows WHERE id = $1::uuid", id);
    return absl::OkStatus();
  });
}

}  // namespace cub::store
