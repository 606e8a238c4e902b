#include "lib/ops/change_workflows.h"

#include <google/protobuf/util/json_util.h>

#include "absl/strings/str_cat.h"
#include "lib/ops/access.h"
#include "lib/ops/input.h"
#include "lib/store/change_workflows.h"
#include "lib/store/engine_work.h"
#include "lib/store/schemas.h"
#include "lib/util/status_macros.h"
#include "lib/workflow/workflow.h"

namespace cub::ops {
namespace {

// Fields of the entity that `get -o json` prints beside the definition; a file made from that
// output may carry them, and they are ignored.
const workflow::ParseOptions& EntityFieldsSkipped() {
  static const auto* k = new workflow::ParseOptions{
      {"ChangeWorkflowID", "SpaceID", "Slug", "CreatedAt", "UpdatedAt", "Version"}};
  return *k;
}

workflow::WorkflowFlags ToFlags(const v1::WorkflowFlags& f) {
  auto vec = [](const google::protobuf::RepeatedPtrField<std::string>& r) {
    return std::vector<std::string>(r.begin(), r.end());
  };
  workflow::WorkflowFlags out;
  out.stages = vec(f.stages());
  if (f.has_prerequisites()) out.prerequisites = f.prerequisites();
  if (f.has_final_prerequisites()) out.final_prerequisites = f.final_prerequisites();
  out.stage_where_space = vec(f.stage_where_space());
  out.stage_prerequisites = vec(f.stage_prerequisites());
  out.stage_release_prerequisites = vec(f.stage_release_prerequisites());
  out.stage_mode = vec(f.stage_mode());
  out.stage_auto_release = vec(f.stage_auto_release());
  out.stage_soak_time = vec(f.stage_soak_time());
  out.custom_prerequisites = vec(f.custom_prerequisites());
  out.custom_prerequisite_descriptions = vec(f.custom_prerequisite_descriptions());
  out.attestation_prerequisites = vec(f.attestation_prerequisites());
  out.attestation_prerequisite_types = vec(f.attestation_prerequisite_types());
  out.attestation_prerequisite_counts = vec(f.attestation_prerequisite_counts());
  out.attestation_prerequisite_from_user_ids = vec(f.attestation_prerequisite_from_user_ids());
  out.attestation_prerequisite_from_groups = vec(f.attestation_prerequisite_from_groups());
  out.attestation_prerequisite_distinct_groups = vec(f.attestation_prerequisite_distinct_groups());
  out.attestation_prerequisite_max_ages = vec(f.attestation_prerequisite_max_ages());
  out.attestation_prerequisite_allow_authors = vec(f.attestation_prerequisite_allow_authors());
  out.attestation_prerequisite_ignore_fail = vec(f.attestation_prerequisite_ignore_fail());
  out.attestation_prerequisite_descriptions = vec(f.attestation_prerequisite_descriptions());
  out.delete_prerequisites = vec(f.delete_prerequisites());
  return out;
}

// The definition a write asks for: the given text, or flags over `current` (or nothing).
absl::StatusOr<workflow::Workflow> Definition(const std::string& text,
                                              const v1::WorkflowFlags& flags,
                                              const workflow::Workflow* current) {
  workflow::WorkflowFlags f = ToFlags(flags);
  if (!text.empty() && !f.empty()) {
    return absl::InvalidArgumentError("give the workflow as a file or as flags, not both");
  }
  absl::StatusOr<workflow::Workflow> w =
      !text.empty() ? workflow::ParseWorkflow(text, EntityFieldsSkipped())
      : current     ? workflow::ApplyFlags(*current, f)
      : f.empty()   ? absl::InvalidArgumentError(
                          "a workflow needs stages: give Definition or Flags with Stages")
                  : workflow::FromFlags(f);
  if (!w.ok()) return w.status();
  CUB_RETURN_IF_ERROR(workflow::Validate(*w, store::SpaceSchema()));
  return w;
}

absl::StatusOr<v1::ChangeWorkflow> ToProto(const store::StoredWorkflow& s) {
  v1::ChangeWorkflow out;
  google::protobuf::util::JsonParseOptions opts;
  auto st = google::protobuf::util::JsonStringToMessage(s.definition_json, &out, opts);
  if (!st.ok()) {
    return absl::InternalError(
        absl::StrCat("stored workflow '", s.slug, "' does not read back: ", st.ToString()));
  }
  out.set_change_workflow_id(s.id);
  out.set_space_id(s.space_id);
  out.set_slug(s.slug);
  out.set_created_at(s.created_at);
  out.set_updated_at(s.updated_at);
  out.set_version(static_cast<int32_t>(s.version));
  return out;
}

absl::StatusOr<store::StoredWorkflow> Find(store::Tx& tx, const v1::Space& space,
                                           const std::string& ref) {
  CUB_ASSIGN_OR_RETURN(auto w, store::FindWorkflow(tx, space.space_id(), ref));
  if (!w) {
    return absl::NotFoundError(
        absl::StrCat("changeworkflow '", ref, "' not found in space '", space.slug(), "'"));
  }
  return *w;
}

}  // namespace

absl::StatusOr<v1::ChangeWorkflow> CreateChangeWorkflow(
    store::ConnectionPool& db, const Principal& p, const v1::CreateChangeWorkflowRequest& req) {
  v1::ChangeWorkflow out;
  absl::Status st = store::WithTransaction(db, [&](store::Tx& tx) -> absl::Status {
    CUB_ASSIGN_OR_RETURN(auto space, ResolveSpace(tx, p, req.space(), Access::kWrite));
    std::string slug = req.slug();
    std::string text = req.definition();
    if (!req.clone_from().empty()) {
      auto slash = req.clone_from().find('/');
      if (slash == std::string::npos) {
        return absl::InvalidArgumentError("name the workflow to clone as SPACE/NAME");
      }
      CUB_ASSIGN_OR_RETURN(auto from_space,
                           ResolveSpace(tx, p, req.clone_from().substr(0, slash), Access::kRead));
      CUB_ASSIGN_OR_RETURN(auto source, Find(tx, from_space, req.clone_from().substr(slash + 1)));
      if (slug.empty()) slug = source.slug;
      text = source.definition_json;
    }
    CUB_RETURN_IF_ERROR(ValidateSlug("changeworkflow", slug));
    CUB_ASSIGN_OR_RETURN(auto w, Definition(text, req.flags(), nullptr));
    CUB_ASSIGN_OR_RETURN(auto existing, store::FindWorkflow(tx, space.space_id(), slug));
    if (existing) {
      return absl::AlreadyExistsError(
          absl::StrCat("changeworkflow '", slug, "' already exists in space '", space.slug(), "'"));
    }
    CUB_ASSIGN_OR_RETURN(auto stored,
                         store::InsertWorkflow(tx, space.space_id(), slug, workflow::ToJson(w)));
    CUB_ASSIGN_OR_RETURN(auto proto, ToProto(stored));
    out = proto;
    return absl::OkStatus();
  });
  if (!st.ok()) return AlreadyExistsAs(st, absl::StrCat("changeworkflow '", req.slug(), "'"));
  return out;
}

absl::StatusOr<v1::ChangeWorkflow> GetChangeWorkflow(store::ConnectionPool& db, const Principal& p,
                                                     const v1::GetChangeWorkflowRequest& req) {
  return store::InReadTransaction(db, [&](store::Tx& tx) -> absl::StatusOr<v1::ChangeWorkflow> {
    v1::ChangeWorkflow out;
    CUB_ASSIGN_OR_RETURN(auto space, ResolveSpace(tx, p, req.space(), Access::kRead));
    CUB_ASSIGN_OR_RETURN(auto w, Find(tx, space, req.change_workflow()));
    CUB_ASSIGN_OR_RETURN(auto proto, ToProto(w));
    out = proto;
    return out;
  });
}

absl::StatusOr<v1::ListChangeWorkflowsResponse> ListChangeWorkflows(
    store::ConnectionPool& db, const Principal& p, const v1::ListChangeWorkflowsRequest& req) {
  return store::InReadTransaction(
      db, [&](store::Tx& tx) -> absl::StatusOr<v1::ListChangeWorkflowsResponse> {
        v1::ListChangeWorkflowsResponse out;
        CUB_ASSIGN_OR_RETURN(auto space, ResolveSpace(tx, p, req.space(), Access::kRead));
        CUB_ASSIGN_OR_RETURN(auto workflows, store::ListWorkflows(tx, space.space_id()));
        for (const auto& w : workflows) {
          CUB_ASSIGN_OR_RETURN(auto proto, ToProto(w));
          *out.add_change_workflows() = std::move(proto);
        }
        return out;
      });
}

absl::StatusOr<v1::ChangeWorkflow> UpdateChangeWorkflow(
    store::ConnectionPool& db, const Principal& p, const v1::UpdateChangeWorkflowRequest& req) {
  return store::InTransaction(db, [&](store::Tx& tx) -> absl::StatusOr<v1::ChangeWorkflow> {
    v1::ChangeWorkflow out;
    CUB_ASSIGN_OR_RETURN(auto space, ResolveSpace(tx, p, req.space(), Access::kWrite));
    CUB_ASSIGN_OR_RETURN(auto stored, Find(tx, space, req.change_workflow()));
    CUB_ASSIGN_OR_RETURN(auto current, workflow::ParseWorkflow(stored.definition_json));
    if (req.definition().empty() && ToFlags(req.flags()).empty()) {
      return absl::InvalidArgumentError("nothing to update: give Definition or Flags");
    }
    CUB_ASSIGN_OR_RETURN(auto w, Definition(req.definition(), req.flags(), &current));
    CUB_ASSIGN_OR_RETURN(auto updated, store::UpdateWorkflow(tx, stored.id, workflow::ToJson(w)));
    // A Stage made Automatic (or AutoRelease) applies at once to every open ChangeOrder.
    CUB_RETURN_IF_ERROR(
        store::WakeChangeOrdersOfWorkflow(tx, absl::StrCat(space.slug(), "/", stored.slug)));
    CUB_ASSIGN_OR_RETURN(auto proto, ToProto(updated));
    out = proto;
    return out;
  });
}

absl::Status DeleteChangeWorkflow(store::ConnectionPool& db, const Principal& p,
                                  const v1::DeleteChangeWorkflowRequest& req) {
  return store::WithTransaction(db, [&](store::Tx& tx) -> absl::Status {
    CUB_ASSIGN_OR_RETURN(auto space, ResolveSpace(tx, p, req.space(), Access::kWrite));
    CUB_ASSIGN_OR_RETURN(auto stored, Find(tx, space, req.change_workflow()));
    return store::DeleteWorkflow(tx, stored.id);
  });
}

}  // namespace cub::ops
