#include "lib/ops/explain.h"

#include <algorithm>
#include <set>
#include <tuple>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "lib/ops/freeze_gate.h"
#include "lib/ops/gates.h"
#include "lib/ops/stage_control.h"
#include "lib/store/spaces.h"
#include "lib/store/user_names.h"
#include "lib/util/status_macros.h"
#include "lib/util/time_text.h"

namespace cub::ops {
namespace {

// Only what does not hold: an evaluation asked for evidence would also carry what holds.
GateReport Failing(GateReport report) {
  GateReport out;
  for (auto& f : report.findings) {
    if (!f.held) out.findings.push_back(std::move(f));
  }
  return out;
}

// What holds Stage `k`: its entry gates, and the freezes over the Spaces it would move into.
absl::StatusOr<GateReport> EntryReport(store::Tx& tx, const ResolvedChangeOrder& rco,
                                       const StageNames& members, int k,
                                       const std::set<std::string>& resolved, absl::Time at) {
  CUB_ASSIGN_OR_RETURN(GateReport report, EntryGates(tx, rco, members, k, resolved));
  std::vector<store::SpaceName> moving;
  for (const auto& s : members[k]) {
    if (!resolved.count(s.space_id)) moving.push_back(s);
  }
  const std::string& name = rco.workflow->stages[k].name;
  CUB_ASSIGN_OR_RETURN(
      GateReport frozen,
      FreezeFindings(tx, moving, at, absl::StrCat("unable to promote to stage '", name, "'"),
                     "Variant"));
  for (auto& f : frozen.findings) f.stage = name;
  frozen.Append(std::move(report));
  return frozen;
}

std::string TimeText(const std::optional<absl::Time>& t) {
  return t ? FormatRfc3339(*t) : std::string();
}

}  // namespace

// Whether Explain has nothing to evaluate: no workflow or no Stage, Completed, or aborted.
bool NothingToExplain(const ResolvedChangeOrder& rco) {
  return !rco.workflow || rco.workflow->stages.empty() || rco.co.stage == "Completed" ||
         !rco.co.aborted_reason.empty();
}

absl::StatusOr<Explanation> Explain(store::Tx& tx, const ResolvedChangeOrder& rco) {
  if (NothingToExplain(rco)) return Explanation{absl::Now(), {}};
  CUB_ASSIGN_OR_RETURN(auto members, StageMemberNames(tx, rco));
  return Explain(tx, rco, members);
}

absl::StatusOr<Explanation> Explain(store::Tx& tx, const ResolvedChangeOrder& rco,
                                    const StageNames& members) {
  Explanation out;
  out.at = absl::Now();
  if (NothingToExplain(rco)) return out;
  const auto& stages = rco.workflow->stages;
  CUB_ASSIGN_OR_RETURN(StageControls controls, CurrentStageControls(tx, rco));
  CUB_ASSIGN_OR_RETURN(auto queued_list, store::QueuedPromotionsOf(tx, rco.co.id));
  std::map<std::string, store::StoredQueuedPromotion> queued;
  for (auto& q : queued_list) queued.emplace(q.view.stage(), std::move(q));

  const auto& co = rco.co;
  std::set<std::string> resolved(co.resolved_space_ids.begin(), co.resolved_space_ids.end());
  resolved.insert(rco.base.space_id());
  const std::set<std::string> released(co.released_space_ids.begin(), co.released_space_ids.end());
  const std::set<std::string> with_target(co.target_space_ids.begin(), co.target_space_ids.end());
  int next = -1;
  for (size_t k = 0; k < members.size() && next < 0; ++k) {
    for (const auto& s : members[k]) {
      if (!resolved.count(s.space_id)) {
        next = static_cast<int>(k);
        break;
      }
    }
  }
  const GateContext ctx{&rco, resolved, out.at};

  for (size_t k = 0; k < stages.size(); ++k) {
    const auto& stage = stages[k];
    ExplainedStage base_entry;
    base_entry.stage = stage.name;
    base_entry.mode = controls.Of(stage.name).mode;
    base_entry.next = static_cast<int>(k) == next;

    auto q = queued.find(stage.name);
    if (base_entry.next || q != queued.end()) {
      ExplainedStage entry = base_entry;
      entry.phase = std::string(kPhaseEntry);
      if (q != queued.end()) entry.queued = q->second;
      CUB_ASSIGN_OR_RETURN(auto report,
                           EntryReport(tx, rco, members, static_cast<int>(k), resolved, out.at));
      entry.report = Failing(std::move(report));
      out.stages.push_back(std::move(entry));
    }

    // Spaces that took the change and could publish it (they have a release Target; the base
    // is never released into by the rollout) but have not.
    if (stage.release_prerequisites.empty()) continue;
    std::vector<store::SpaceName> unreleased_names;
    for (const auto& s : members[k]) {
      const std::string& id = s.space_id;
      if (id != rco.base.space_id() && resolved.count(id) && with_target.count(id) &&
          !released.count(id)) {
        unreleased_names.push_back(s);
      }
    }
    if (unreleased_names.empty()) continue;
    CUB_ASSIGN_OR_RETURN(auto unreleased, SpacesNamed(tx, unreleased_names));
    CUB_ASSIGN_OR_RETURN(auto report,
                         EvaluateGates(tx, ctx, stage.name, stage.release_prerequisites, unreleased,
                                       absl::StrCat("unable to publish a release of change order '",
                                                    co.slug, "' in stage '", stage.name, "'")));
    GateReport failing = Failing(std::move(report));
    if (failing.findings.empty()) continue;
    ExplainedStage release = base_entry;
    release.phase = std::string(kPhaseRelease);
    release.report = std::move(failing);
    out.stages.push_back(std::move(release));
  }

  if (next < 0) {
    CUB_ASSIGN_OR_RETURN(auto last, GatedSpaces(tx, members.back(), resolved, *rco.workflow,
                                                rco.workflow->final.prerequisites));
    CUB_ASSIGN_OR_RETURN(auto report, EvaluateGates(tx, ctx, "", rco.workflow->final.prerequisites,
                                                    last, "not completed"));
    GateReport failing = Failing(std::move(report));
    if (!failing.findings.empty()) {
      ExplainedStage final;
      final.stage = stages.back().name;
      final.phase = std::string(kPhaseFinal);
      final.mode = controls.Of(final.stage).mode;
      final.report = std::move(failing);
      out.stages.push_back(std::move(final));
    }
  }
  return out;
}

std::vector<std::string> UsersNamedIn(const Explanation& e) {
  std::set<std::string> ids;
  for (const auto& s : e.stages) {
    for (const auto& f : s.report.findings) ids.insert(f.needs_from.begin(), f.needs_from.end());
  }
  return {ids.begin(), ids.end()};
}

v1::ExplainChangeOrderResponse ExplanationView(const ResolvedChangeOrder& rco, const Explanation& e,
                                               const std::map<std::string, std::string>& names) {
  v1::ExplainChangeOrderResponse out;
  out.set_change_order(absl::StrCat(rco.base.slug(), "/", rco.co.slug));
  out.set_change_order_id(rco.co.id);
  out.set_stage(rco.co.stage);
  out.set_completed(rco.co.stage == "Completed");
  out.set_aborted_reason(rco.co.aborted_reason);
  out.set_at(FormatRfc3339(e.at));
  for (const auto& s : e.stages) {
    v1::StageExplanation* v = out.add_stages();
    v->set_stage(s.stage);
    v->set_phase(s.phase);
    v->set_mode(std::string(workflow::StageModeName(s.mode)));
    v->set_next(s.next);
    if (s.queued) {
      v->set_queued(true);
      v->set_queued_by(s.queued->view.queued_by());
      v->set_queued_at(s.queued->view.queued_at());
    }
    for (const auto& f : s.report.findings) {
      v1::GateWait* w = v->add_waits();
      w->set_phase(s.phase);
      w->set_gate(f.gate);
      w->set_kind(f.kind);
      w->set_space_id(f.space_id);
      w->set_space(f.space);
      w->set_message(f.message);
      w->set_needs(f.needs);
      std::vector<std::string> who;  // by name, in name order
      for (const auto& id : f.needs_from) {
        auto it = names.find(id);
        who.push_back(it != names.end() ? it->second : "unknown user");
      }
      std::sort(who.begin(), who.end());
      for (auto& u : who) w->add_needs_from(std::move(u));
      w->set_earliest(TimeText(f.earliest));
      w->set_gate_stage(f.stage);
    }
    v->set_earliest(TimeText(s.report.Earliest()));
  }
  return out;
}

const v1::StageExplanation* EntryOf(const v1::ExplainChangeOrderResponse& view,
                                    const std::string& stage) {
  for (const auto& s : view.stages()) {
    if (s.stage() == stage && s.phase() == kPhaseEntry) return &s;
  }
  return nullptr;
}

void FillPendingRequirements(const Explanation& e, v1::ChangeOrder& view) {
  std::set<std::tuple<std::string, std::string, std::string, std::string>> seen;
  std::set<std::string> needs;
  for (const auto& s : e.stages) {
    for (const auto& f : s.report.findings) {
      if (f.kind != kGateAttestation) continue;
      // A queued Stage beyond the next one repeats the next one's gates: each is listed once,
      // under the Stage whose gate it is, as before there were explanations.
      const std::string& stage = f.stage.empty() ? s.stage : f.stage;
      if (!seen.emplace(s.phase, stage, f.gate, f.space_id).second) continue;
      v1::PendingRequirement* p = view.add_pending_requirements();
      p->set_stage(stage);
      p->set_kind(s.phase);
      p->set_prerequisite(f.gate);
      p->set_space_id(f.space_id);
      p->set_space(f.space);
      p->set_message(f.message);
      for (const auto& u : f.needs_from) {
        p->add_needs_approval_from(u);
        needs.insert(u);
      }
    }
  }
  for (const auto& u : needs) view.add_needs_approval_from(u);
}

absl::StatusOr<v1::ExplainChangeOrderResponse> ExplainView(store::Tx& tx,
                                                           const ResolvedChangeOrder& rco) {
  CUB_ASSIGN_OR_RETURN(Explanation e, Explain(tx, rco));
  CUB_ASSIGN_OR_RETURN(auto names, store::UserNames(tx, UsersNamedIn(e)));
  v1::ExplainChangeOrderResponse out = ExplanationView(rco, e, names);
  v1::SpaceName* base = out.add_spaces();
  base->set_space_id(rco.base.space_id());
  base->set_slug(rco.base.slug());
  // Only names are shown: IDs and slugs, not whole Spaces (a thousand of them at fleet size).
  CUB_ASSIGN_OR_RETURN(auto in_scope, InScopeNames(tx, rco));
  for (auto& s : in_scope) {
    if (s.space_id == rco.base.space_id()) continue;
    v1::SpaceName* n = out.add_spaces();
    n->set_space_id(std::move(s.space_id));
    n->set_slug(std::move(s.slug));
  }
  return out;
}

absl::StatusOr<v1::ExplainChangeOrderResponse> ExplainChangeOrder(
    store::ConnectionPool& db, const Principal& p, const v1::ExplainChangeOrderRequest& req) {
  return store::InReadTransaction(
      db, [&](store::Tx& tx) -> absl::StatusOr<v1::ExplainChangeOrderResponse> {
        CUB_ASSIGN_OR_RETURN(auto rco,
                             ResolveChangeOrder(tx, p, req.change_order(), req.space(), false));
        return ExplainView(tx, rco);
      });
}

}  // namespace cub::ops
