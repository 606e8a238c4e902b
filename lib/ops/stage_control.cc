#include "lib/ops/stage_control.h"

#include "absl/strings/str_cat.h"
#include "lib/store/change_workflows.h"
#include "lib/store/spaces.h"
#include "lib/util/status_macros.h"
#include "lib/workflow/parse.h"

namespace cub::ops {

absl::StatusOr<StageControls> CurrentStageControls(store::Tx& tx, const ResolvedChangeOrder& rco) {
  StageControls out;
  const std::string& ref = rco.co.change_workflow;
  size_t slash = ref.find('/');
  if (slash == std::string::npos) return out;
  CUB_ASSIGN_OR_RETURN(auto space, store::FindSpace(tx, ref.substr(0, slash)));
  if (!space) return out;
  CUB_ASSIGN_OR_RETURN(auto stored,
                       store::FindWorkflow(tx, space->space_id(), ref.substr(slash + 1)));
  if (!stored) return out;
  absl::StatusOr<workflow::Workflow> w = workflow::ParseWorkflow(stored->definition_json);
  if (!w.ok()) {
    return absl::InternalError(
        absl::StrCat("workflow '", ref, "' as stored does not read: ", w.status().message()));
  }
  for (const auto& s : w->stages) out.by_stage[s.name] = {s.mode, s.auto_release};
  out.time_gated = !w->custom_prerequisites.empty();
  for (const auto& a : w->attestation_prerequisites) {
    if (!a.max_age.empty()) out.time_gated = true;
  }
  return out;
}

absl::Status AutomaticStageRefusal(const ResolvedChangeOrder& rco, const std::string& stage) {
  const std::string& ref = rco.co.change_workflow;
  size_t slash = ref.find('/');
  std::string space = slash == std::string::npos ? ref : ref.substr(0, slash);
  std::string name = slash == std::string::npos ? ref : ref.substr(slash + 1);
  return absl::FailedPreconditionError(absl::StrCat(
      "stage '", stage, "' of workflow '", ref,
      "' is Automatic: cubd promotes into it by itself once its gates hold. To promote by hand,"
      " switch it to Manual: cub changeworkflow update --space ",
      space, " ", name, " --stage-mode ", stage, "=Manual"));
}

}  // namespace cub::ops
