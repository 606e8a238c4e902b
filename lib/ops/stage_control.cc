#include "lib/ops/stage_control.h"

#include <cctype>

#include "absl/strings/str_cat.h"
#include "lib/ops/access.h"
#include "lib/store/change_workflows.h"
#include "lib/store/spaces.h"
#include "lib/util/status_macros.h"
#include "lib/workflow/parse.h"

namespace cub::ops {

namespace {

// Whether a CEL gate mentions the variable `now` (a name of its own, not a field `x.now`). A
// mention inside a string literal counts too: looking again once too often is harmless.
bool ReadsNow(const std::string& expression) {
  auto word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  for (size_t i = expression.find("now"); i != std::string::npos;
       i = expression.find("now", i + 1)) {
    bool starts = i == 0 || (!word(expression[i - 1]) && expression[i - 1] != '.');
    bool ends = i + 3 >= expression.size() || !word(expression[i + 3]);
    if (starts && ends) return true;
  }
  return false;
}

}  // namespace

absl::StatusOr<StageControls> CurrentStageControls(store::Tx& tx, const ResolvedChangeOrder& rco) {
  StageControls out;
  const std::string& ref = rco.co.change_workflow;
  SpacedRef r = SplitRef(ref, "");
  if (r.space.empty()) return out;
  CUB_ASSIGN_OR_RETURN(auto space, store::FindSpace(tx, r.space));
  if (!space) return out;
  CUB_ASSIGN_OR_RETURN(auto stored, store::FindWorkflow(tx, space->space_id(), r.name));
  if (!stored) return out;
  absl::StatusOr<workflow::Workflow> w = workflow::ParseWorkflow(stored->definition_json);
  if (!w.ok()) {
    return absl::InternalError(
        absl::StrCat("workflow '", ref, "' as stored does not read: ", w.status().message()));
  }
  for (const auto& s : w->stages) out.by_stage[s.name] = {s.mode, s.auto_release};
  for (const auto& c : w->custom_prerequisites) {
    if (ReadsNow(c.expression)) out.time_gated = true;
  }
  return out;
}

absl::Status AutomaticStageRefusal(const ResolvedChangeOrder& rco, const std::string& stage) {
  const std::string& ref = rco.co.change_workflow;
  SpacedRef r = SplitRef(ref, "");
  return absl::FailedPreconditionError(absl::StrCat(
      "stage '", stage, "' of workflow '", ref,
      "' is Automatic: cubd promotes into it by itself once its gates hold. To promote by hand,"
      " switch it to Manual: cub changeworkflow update --space ",
      r.space, " ", r.name, " --stage-mode ", stage, "=Manual"));
}

}  // namespace cub::ops
