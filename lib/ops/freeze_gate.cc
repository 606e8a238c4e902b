#include "lib/ops/freeze_gate.h"

#include <algorithm>
#include <set>
#include <utility>

#include "absl/strings/cord.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "lib/ops/access.h"
#include "lib/ops/freezes.h"
#include "lib/store/change_workflows.h"
#include "lib/store/freezes.h"
#include "lib/store/spaces.h"
#include "lib/util/json.h"
#include "lib/util/status_macros.h"
#include "lib/util/time_text.h"
#include "lib/workflow/workflow.h"

namespace cub::ops {
namespace {

// The IDs among `ids` that `f` covers (see the header).
absl::StatusOr<std::set<std::string>> CoveredAmong(store::Tx& tx, const store::StoredFreeze& f,
                                                   const std::vector<std::string>& ids) {
  if (f.change_workflow_id.empty()) return std::set<std::string>(ids.begin(), ids.end());
  std::set<std::string> out;
  CUB_ASSIGN_OR_RETURN(auto stored,
                       store::FindWorkflow(tx, f.change_workflow_space_id, f.change_workflow_id));
  if (!stored) return out;  // a workflow with a freeze cannot be deleted (0016_freezes.sql)
  auto w = workflow::ParseWorkflow(stored->definition_json);
  if (!w.ok()) {
    return absl::InternalError(absl::StrCat("changeworkflow '", f.change_workflow, "' of freeze '",
                                            f.slug,
                                            "' does not read back: ", w.status().message()));
  }
  for (const auto& stage : w->stages) {
    if (!f.stages.empty() &&
        std::find(f.stages.begin(), f.stages.end(), stage.name) == f.stages.end()) {
      continue;
    }
    CUB_ASSIGN_OR_RETURN(auto members, store::SpaceNamesAmongEach(tx, ids, {stage.where_space}));
    for (const auto& m : members[0]) out.insert(m.space_id);
  }
  return out;
}

GateFinding Finding(const store::StoredFreeze& f, const FreezeState& st, const store::SpaceName& s,
                    const std::string& prefix, const std::string& noun) {
  GateFinding g;
  g.gate = f.slug;
  g.kind = std::string(kGateFreeze);
  g.space_id = s.space_id;
  g.space = s.slug;
  g.held = false;
  g.earliest = st.until;
  g.needs =
      absl::StrCat("freeze '", f.slug, "' (", f.space_slug, "/", f.slug, ") lifted: ", f.reason);
  g.message = absl::StrCat(prefix, ": ", noun, " '", s.slug, "' is frozen by freeze '", f.slug,
                           "' in space '", f.space_slug, "' (reason: ", f.reason, ") until ",
                           st.until ? FormatRfc3339(*st.until) : "it is deleted");
  return g;
}

}  // namespace

absl::StatusOr<GateReport> FreezeFindings(store::Tx& tx, const std::vector<v1::Space>& spaces,
                                          absl::Time now, const std::string& prefix,
                                          const std::string& noun) {
  std::vector<store::SpaceName> names;
  names.reserve(spaces.size());
  for (const auto& s : spaces) names.push_back({s.space_id(), s.slug()});
  return FreezeFindings(tx, names, now, prefix, noun);
}

absl::StatusOr<GateReport> FreezeFindings(store::Tx& tx,
                                          const std::vector<store::SpaceName>& spaces,
                                          absl::Time now, const std::string& prefix,
                                          const std::string& noun) {
  GateReport out;
  if (spaces.empty()) return out;
  CUB_ASSIGN_OR_RETURN(auto freezes, store::AllFreezes(tx));
  std::vector<std::string> ids;  // built for the first freeze in force: there rarely is one
  for (const auto& f : freezes) {
    FreezeState st = StateOf(f, now);
    if (!st.in_force) continue;
    if (ids.empty()) {
      ids.reserve(spaces.size());
      for (const auto& s : spaces) ids.push_back(s.space_id);
    }
    CUB_ASSIGN_OR_RETURN(std::set<std::string> covered, CoveredAmong(tx, f, ids));
    for (const auto& s : spaces) {
      if (covered.count(s.space_id)) out.findings.push_back(Finding(f, st, s, prefix, noun));
    }
  }
  return out;
}

absl::Status CheckFreezeOverride(store::Tx& tx, const Principal& p, const GateReport& frozen) {
  std::set<std::string> checked;
  for (const GateFinding* f : frozen.Failures()) {
    if (!checked.insert(f->space_id).second) continue;
    auto admin = ResolveSpace(tx, p, f->space_id, Access::kAdmin);
    if (!admin.ok()) {
      return absl::PermissionDeniedError(absl::StrCat("Force needs the admin role on space '",
                                                      f->space, "' to pass freeze '", f->gate,
                                                      "' there: ", admin.status().message()));
    }
  }
  return absl::OkStatus();
}

store::NewEvent FreezeOverriddenEvent(store::NewEvent base, const GateReport& frozen,
                                      const std::string& reason) {
  std::set<std::string> names;
  Json passed = Json::array();
  for (const GateFinding* f : frozen.Failures()) {
    names.insert(absl::StrCat("'", f->gate, "'"));
    passed.push_back({{"Freeze", f->gate}, {"Space", f->space}, {"Needs", f->needs}});
  }
  base.kind = "FreezeOverridden";
  base.message = absl::StrCat("forced past freeze ", absl::StrJoin(names, ", "), " in ",
                              passed.size(), " Spaces: ", reason);
  base.details_json = JsonText(Json{{"Freezes", passed}, {"ForceReason", reason}});
  return base;
}

}  // namespace cub::ops
