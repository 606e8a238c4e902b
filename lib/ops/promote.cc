#include "lib/ops/promote.h"

#include <algorithm>
#include <array>
#include <map>
#include <string_view>
#include <type_traits>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/cord.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "lib/domain/vocabulary.h"
#include "lib/ops/access.h"
#include "lib/ops/api_json.h"
#include "lib/ops/block_gate.h"
#include "lib/ops/change_orders.h"
#include "lib/ops/engine_skip.h"
#include "lib/ops/events.h"
#include "lib/ops/freeze_gate.h"
#include "lib/ops/gate_next_change.h"
#include "lib/ops/gates.h"
#include "lib/ops/input.h"
#include "lib/ops/invoke_plan.h"
#include "lib/ops/promotion_batches.h"
#include "lib/ops/promotion_plan.h"
#include "lib/ops/promotion_records.h"
#include "lib/ops/resolve.h"
#include "lib/ops/source_plan.h"
#include "lib/ops/stage_control.h"
#include "lib/store/change_orders.h"
#include "lib/store/engine_work.h"
#include "lib/store/events.h"
#include "lib/store/promotion.h"
#include "lib/store/queued_promotions.h"
#include "lib/store/spaces.h"
#include "lib/store/units.h"
#include "lib/util/json.h"
#include "lib/util/status_macros.h"
#include "lib/util/time_text.h"

namespace cub::ops {
namespace {

// The Spaces to promote into and the index of the Stage they make up (-1: none). Not to be
// confused with a release Target (lib/targets), where a Release is published.
// By name: whole Spaces are read (SpacesNamed) only once the gates let the promotion through,
// so a refusal does not read a whole Stage of them.
struct PromotionSpaces {
  std::vector<store::SpaceName> spaces;
  int stage = -1;
};

absl::StatusOr<PromotionSpaces> ChoosePromotionSpaces(store::Tx& tx, const Principal& p,
                                                      const ResolvedChangeOrder& rco,
                                                      const v1::PromoteRequest& req,
                                                      const StageNames& members,
                                                      const std::set<std::string>& resolved) {
  PromotionSpaces out;
  const auto& co = rco.co;
  if (req.spaces_size() > 0 || !req.where_space().empty()) {
    if (!req.target_stage().empty()) {
      return absl::InvalidArgumentError("name a target stage or target spaces, not both");
    }
    CUB_ASSIGN_OR_RETURN(auto in_scope, store::SpaceSlugsAmong(tx, co.in_scope_space_ids));
    std::set<std::string> in_scope_ids;
    for (const auto& s : in_scope) in_scope_ids.insert(s.first);
    std::set<std::string> chosen;
    for (const auto& ref : req.spaces()) {
      CUB_ASSIGN_OR_RETURN(auto s, ResolveSpace(tx, p, ref, Access::kRead));
      if (!in_scope_ids.count(s.space_id())) {
        return absl::InvalidArgumentError(absl::StrCat(
            "space '", s.slug(), "' is not in the scope of change order '", co.slug, "'"));
      }
      chosen.insert(s.space_id());
    }
    if (!req.where_space().empty()) {
      auto matched = store::SpaceNamesAmongEach(tx, co.in_scope_space_ids, {req.where_space()});
      if (!matched.ok()) {
        return absl::InvalidArgumentError(absl::StrCat("WhereSpace: ", matched.status().message()));
      }
      for (const auto& s : (*matched)[0]) chosen.insert(s.space_id);
    }
    chosen.erase(rco.base.space_id());
    for (auto& [id, slug] : in_scope) {
      if (chosen.count(id)) out.spaces.push_back({id, slug});
    }
    if (out.spaces.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("no Space in the scope of change order '", co.slug, "' was selected"));
    }
    // Gated as the latest Stage any of them belongs to.
    for (size_t i = 0; i < members.size(); ++i) {
      for (const auto& m : members[i]) {
        if (chosen.count(m.space_id)) out.stage = static_cast<int>(i);
      }
    }
    return out;
  }
  if (!rco.workflow || rco.workflow->stages.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("change order '", co.slug,
                     "' has no workflow, so it has no stages: name the Spaces to promote into"));
  }
  const auto& stages = rco.workflow->stages;
  if (!req.target_stage().empty()) {
    for (size_t i = 0; i < stages.size(); ++i) {
      if (stages[i].name == req.target_stage()) out.stage = static_cast<int>(i);
    }
    if (out.stage < 0) {
      std::vector<std::string> names;
      for (const auto& s : stages) names.push_back(s.name);
      return absl::InvalidArgumentError(absl::StrCat("change order '", co.slug, "' has no stage '",
                                                     req.target_stage(), "'; its stages are ",
                                                     absl::StrJoin(names, ", ")));
    }
  } else {
    for (size_t i = 0; i < stages.size() && out.stage < 0; ++i) {
      for (const auto& m : members[i]) {
        if (!resolved.count(m.space_id)) out.stage = static_cast<int>(i);
      }
    }
    // Every Stage has the change: report the last one's Spaces as already promoted.
    if (out.stage < 0) out.stage = static_cast<int>(stages.size()) - 1;
  }
  for (const auto& m : members[out.stage]) {
    if (m.space_id != rco.base.space_id()) out.spaces.push_back(m);
  }
  return out;
}

// Writes the plans that did not fail: all in one batch; should that fail, Space by Space, each
// under its own savepoint, so one Space's failure does not take the others down.
// Notes in `heads` what `w`, written, leaves at each Unit's head: the revision its new head
// names, with that revision's DataHash (a head it moves to a revision it did not write is not
// noted, and is read when the records are written).
void NoteHeads(const store::PromotionWrites& w, LandedHeads& heads) {
  absl::flat_hash_map<std::pair<std::string_view, int64_t>, std::string_view> hash_of;
  hash_of.reserve(w.revisions.size());
  for (const auto& r : w.revisions) hash_of[{r.unit_id, r.num}] = r.data_hash;
  for (const auto& [unit_id, head] : w.heads) {
    auto h = hash_of.find(std::pair<std::string_view, int64_t>(unit_id, head));
    if (h == hash_of.end()) {
      heads.Forget(unit_id);
      continue;
    }
    heads.Note(unit_id, head, h->second);
  }
}

void Land(store::Tx& tx, std::vector<SpacePlan>& plans, LandedHeads& heads) {
  // One batch of every Space's rows. The plans keep their own only if a retry may need them:
  // while the batch is built they are moved, and rebuilt from it only when it fails.
  store::PromotionWrites all;
  std::vector<std::pair<size_t, std::array<size_t, 6>>> ranges;  // plan -> ends in `all`
  for (size_t i = 0; i < plans.size(); ++i) {
    if (StatusOf(plans[i].report) != PromotionStatus::kPromoted) continue;
    all.Append(std::move(plans[i].writes));
    ranges.push_back({i,
                      {all.units.size(), all.revisions.size(), all.heads.size(), all.links.size(),
                       all.cursors.size(), all.marks.size()}});
  }
  if (all.empty()) return;
  // On failure, find out below which Spaces fail.
  if (tx.Savepoint(true, [&] { return store::WritePromotion(tx, all); }).ok()) {
    NoteHeads(all, heads);
    return;
  }
  std::array<size_t, 6> begin{};
  for (const auto& [i, end] : ranges) {
    auto take = [](auto& from, size_t b, size_t e) {
      return std::vector<typename std::decay_t<decltype(from)>::value_type>(
          std::make_move_iterator(from.begin() + b), std::make_move_iterator(from.begin() + e));
    };
    store::PromotionWrites& w = plans[i].writes;
    w.units = take(all.units, begin[0], end[0]);
    w.revisions = take(all.revisions, begin[1], end[1]);
    w.heads = take(all.heads, begin[2], end[2]);
    w.links = take(all.links, begin[3], end[3]);
    w.cursors = take(all.cursors, begin[4], end[4]);
    w.marks = take(all.marks, begin[5], end[5]);
    begin = end;
  }
  for (auto& plan : plans) {
    if (StatusOf(plan.report) != PromotionStatus::kPromoted || plan.writes.empty()) continue;
    absl::Status s = tx.Savepoint(true, [&] { return store::WritePromotion(tx, plan.writes); });
    if (!s.ok()) {
      SetStatus(plan.report, PromotionStatus::kFailed);
      plan.report.set_error(absl::StrCat("its writes failed: ", s.message()));
      continue;
    }
    NoteHeads(plan.writes, heads);
  }
}

// What the target Stage's gates find: the gates of every Stage up to the target, each over the
// Stage before (the first over the base), with the evidence of those that hold. Nothing is
// gated when every target has the change already.
absl::StatusOr<GateReport> GatesFor(store::Tx& tx, const ResolvedChangeOrder& rco,
                                    const StageNames& members, const PromotionSpaces& into,
                                    const std::set<std::string>& resolved) {
  const bool nothing_to_move =
      std::all_of(into.spaces.begin(), into.spaces.end(),
                  [&](const store::SpaceName& s) { return resolved.count(s.space_id) > 0; });
  if (!rco.workflow || into.stage < 0 || nothing_to_move) return GateReport();
  return EntryGates(tx, rco, members, into.stage, resolved, /*evidence=*/true);
}

// Freezes in force over the targets that have yet to take the change (lib/ops/freeze_gate.h).
absl::StatusOr<GateReport> FreezesFor(store::Tx& tx, const PromotionSpaces& into,
                                      const std::set<std::string>& resolved,
                                      const std::string& stage_name) {
  std::vector<store::SpaceName> moving;
  for (const auto& s : into.spaces) {
    if (!resolved.count(s.space_id)) moving.push_back(s);
  }
  return FreezeFindings(tx, moving, absl::Now(),
                        stage_name.empty()
                            ? std::string("unable to promote")
                            : absl::StrCat("unable to promote to stage '", stage_name, "'"),
                        "Variant");
}

constexpr char kGateRefusalPayload[] = "cub/gate-refusal";

absl::Status GateRefusal(const std::vector<std::string>& failures) {
  absl::Status s = absl::FailedPreconditionError(absl::StrJoin(failures, "; "));
  s.SetPayload(kGateRefusalPayload, absl::Cord(absl::StrJoin(failures, "\n")));
  return s;
}

// Queue is for a Stage, and only instead of a refusal by its gates.
absl::Status CheckQueueRequest(const v1::PromoteRequest& req) {
  if (!req.queue()) return absl::OkStatus();
  if (req.force()) return absl::InvalidArgumentError("Queue and Force exclude each other");
  if (req.dry_run()) return absl::InvalidArgumentError("Queue and DryRun exclude each other");
  if (req.spaces_size() > 0 || !req.where_space().empty()) {
    return absl::InvalidArgumentError(
        "Queue is for a Stage: name TargetStage (or none), not Spaces or WhereSpace");
  }
  return absl::OkStatus();
}

// Only the engine promotes into an Automatic Stage; a dry run may look.
absl::Status CheckStageMode(store::Tx& tx, const ResolvedChangeOrder& rco,
                            const std::string& stage_name, const v1::PromoteRequest& req,
                            const PromoteBy& by) {
  if (by.engine || req.dry_run() || stage_name.empty()) return absl::OkStatus();
  CUB_ASSIGN_OR_RETURN(StageControls controls, CurrentStageControls(tx, rco));
  if (controls.Of(stage_name).mode == workflow::StageMode::kAutomatic) {
    return AutomaticStageRefusal(rco, stage_name);
  }
  return absl::OkStatus();
}

// Promotions into one Stage of one base Space take turns (store::LockStage), so what the
// engine checks here holds until it commits: that the queued promotion it carries out is still
// this ChangeOrder's and this user's, or, for its own, that the Stage is still Automatic and no
// newer ChangeOrder has been promoted there. Otherwise EngineSkip. A person's promotion into a
// Stage takes the turn too, so the engine's check sees it once it has committed.
absl::Status TakeStageTurn(store::Tx& tx, const Principal& p, const ResolvedChangeOrder& rco,
                           const std::string& stage, const v1::PromoteRequest& req,
                           const PromoteBy& by) {
  if (req.dry_run() || stage.empty()) return absl::OkStatus();
  CUB_RETURN_IF_ERROR(store::LockStage(tx, rco.base.space_id(), stage));
  if (!by.engine) return absl::OkStatus();
  if (!by.queued_by.empty()) {
    CUB_ASSIGN_OR_RETURN(auto q, store::FindQueuedPromotion(tx, rco.base.space_id(), stage));
    if (!q || q->view.change_order_id() != rco.co.id || q->queued_by_id != p.user_id) {
      return EngineSkip(absl::StrCat("the promotion into stage '", stage, "' queued by ",
                                     p.username, " was withdrawn or replaced"));
    }
    return absl::OkStatus();
  }
  CUB_ASSIGN_OR_RETURN(StageControls controls, CurrentStageControls(tx, rco));
  if (controls.Of(stage).mode != workflow::StageMode::kAutomatic) {
    return EngineSkip(absl::StrCat("stage '", stage, "' is no longer Automatic"));
  }
  CUB_ASSIGN_OR_RETURN(bool newer,
                       store::NewerPromotedInto(tx, rco.base.space_id(), rco.co.id, stage));
  if (newer) {
    return EngineSkip(
        absl::StrCat("a newer change order has been promoted into stage '", stage, "'"));
  }
  return absl::OkStatus();
}

std::string ChangeOrderRef(const ResolvedChangeOrder& rco) {
  return absl::StrCat(rco.base.slug(), "/", rco.co.slug);
}

// Records the promotion into `stage` as queued (what holds it: `failures`) and reports it in
// `out`, with the ChangeOrder whose queued promotion it replaced.
absl::Status QueueInstead(store::Tx& tx, const Principal& p, const ResolvedChangeOrder& rco,
                          const std::string& stage, const std::vector<std::string>& failures,
                          v1::PromoteResponse& out) {
  CUB_ASSIGN_OR_RETURN(auto replaced, store::QueuePromotion(tx, rco.base.space_id(), stage,
                                                            rco.co.id, p.user_id, failures));
  CUB_ASSIGN_OR_RETURN(auto queued, store::FindQueuedPromotion(tx, rco.base.space_id(), stage));
  if (!queued) return absl::InternalError("queued promotion vanished");
  *out.mutable_queued() = queued->view;
  if (replaced) {
    out.set_replaced(replaced->view.change_order());
    store::NewEvent e = ChangeOrderEvent(
        rco, p, "Replaced", stage,
        absl::StrCat("queued promotion of ", replaced->view.change_order(), " into stage '", stage,
                     "' replaced by one of ", ChangeOrderRef(rco)));
    e.change_order_id = replaced->view.change_order_id();
    e.change_order = replaced->view.change_order();
    CUB_RETURN_IF_ERROR(store::AppendEvent(tx, e));
    CUB_RETURN_IF_ERROR(store::Wake(tx, {replaced->view.change_order_id()}));
  }
  CUB_RETURN_IF_ERROR(store::AppendEvent(
      tx, ChangeOrderEvent(rco, p, "Queued", stage,
                           absl::StrCat("queued into stage '", stage,
                                        "', waiting for: ", absl::StrJoin(failures, "; ")))));
  // Gates may open before this commits; the engine looks again after it has.
  return store::Wake(tx, {rco.co.id});
}

// The details of a Promoted event: the counts, the gates evaluated (those of every Stage up to
// `stage_index`; any forced past are in a Forced event) and who queued it.
std::string PromotedDetails(const ResolvedChangeOrder& rco, int stage_index,
                            const v1::PromoteResponse& out, const PromoteBy& by) {
  Json gates = Json::array();
  for (int j = 0; rco.workflow && j <= stage_index; ++j) {
    for (const auto& g : rco.workflow->stages[j].prerequisites) gates.push_back(g);
  }
  Json d = {{"Landed", out.landed()},
            {"Already", out.already()},
            {"Failed", out.failed()},
            {"Gates", gates},
            {"ByEngine", by.engine}};
  if (!by.queued_by.empty()) d["QueuedBy"] = by.queued_by;
  return JsonText(d);
}

// The evidence the promotion's records carry: the gates evaluated (every Stage's up to
// `stage_index`) and what their evaluation found, held ones with their evidence and those
// forced past with their refusal.
PromotionEvidence EvidenceOf(const ResolvedChangeOrder& rco, int stage_index, GateReport gates) {
  PromotionEvidence e;
  for (int j = 0; rco.workflow && j <= stage_index; ++j) {
    for (const auto& g : rco.workflow->stages[j].prerequisites) e.gates.push_back(g);
  }
  e.findings = std::move(gates.findings);
  return e;
}

// Events of a promotion that landed or failed somewhere; a queued promotion it carried out
// fully is done; the engine is woken for what may now follow.
absl::Status RecordPromotionEvents(store::Tx& tx, const Principal& p,
                                   const ResolvedChangeOrder& rco, int stage_index,
                                   const std::string& stage, const v1::PromoteRequest& req,
                                   const v1::PromoteResponse& out, const PromoteBy& by) {
  // Every Space of the Stage has the change: a promotion queued into it is done, even when
  // this call landed nothing (someone else got there first). Not so after a promotion into
  // named Spaces, which may have left others of the Stage without it.
  const bool whole_stage = req.spaces_size() == 0 && req.where_space().empty();
  if (out.failed() == 0 && whole_stage && !stage.empty()) {
    CUB_RETURN_IF_ERROR(store::DeleteQueuedPromotion(tx, rco.co.id, stage).status());
  }
  if (out.landed() == 0 && out.failed() == 0) return absl::OkStatus();
  std::string who = by.queued_by.empty() ? "" : absl::StrCat(" (queued by ", by.queued_by, ")");
  if (out.landed() > 0) {
    store::NewEvent e = ChangeOrderEvent(
        rco, p, "Promoted", stage,
        absl::StrCat("promoted into ", stage.empty() ? "the named Spaces" : "stage '" + stage + "'",
                     ": ", out.landed(), " Spaces landed, ", out.already(), " had it, ",
                     out.failed(), " failed", who));
    e.details_json = PromotedDetails(rco, stage_index, out, by);
    CUB_RETURN_IF_ERROR(store::AppendEvent(tx, e));
  }
  if (out.overridden_gates_size() > 0 && out.landed() > 0) {
    CUB_RETURN_IF_ERROR(store::AppendEvent(
        tx,
        ChangeOrderEvent(rco, p, "Forced", stage, absl::StrJoin(out.overridden_gates(), "; "))));
  }
  if (out.failed() > 0) {
    CUB_RETURN_IF_ERROR(store::AppendEvent(
        tx, ChangeOrderEvent(rco, p, "PromotionFailed", stage,
                             absl::StrCat(out.failed(), " Spaces failed", who))));
  }
  // Only what landed can open a gate. Waking on a failure alone would have the engine, whose
  // failure it is, take the ChangeOrder again at once instead of backing off.
  if (out.landed() == 0) return absl::OkStatus();
  return store::Wake(tx, {rco.co.id});
}

// The targets the caller may write (or that have the change already, which is reported as
// such whoever asks), and a Failed report for each of the others: they fail on their own, the
// others still land.
struct SpacesByAccess {
  std::vector<v1::Space> allowed;
  std::vector<v1::PromotedSpace> denied;
};

absl::StatusOr<SpacesByAccess> SplitByAccess(store::Tx& tx, const Principal& p,
                                             const std::vector<v1::Space>& spaces,
                                             const std::set<std::string>& resolved) {
  std::vector<std::string> ids;
  for (const auto& s : spaces) ids.push_back(s.space_id());
  CUB_ASSIGN_OR_RETURN(std::set<std::string> writable, store::WritableSpaces(tx, ToCaller(p), ids));
  SpacesByAccess out;
  for (const auto& s : spaces) {
    if (writable.count(s.space_id()) || resolved.count(s.space_id())) {
      out.allowed.push_back(s);
      continue;
    }
    v1::PromotedSpace d;
    d.set_space_id(s.space_id());
    d.set_space(s.slug());
    SetStatus(d, PromotionStatus::kFailed);
    d.set_error(absl::StrCat("user '", p.username, "' may not change space '", s.slug(),
                             "': that needs the editor or admin role"));
    out.denied.push_back(std::move(d));
  }
  return out;
}

// The plans of the planners that take every target in one batch: Invoke's, and the copy from
// the sources.
absl::StatusOr<std::vector<SpacePlan>> PlanWhole(store::Tx& tx, const PlanOptions& opts,
                                                 const std::vector<v1::Space>& allowed,
                                                 bool dry_run) {
  if (opts.rco->update_type == domain::UpdateType::kInvoke) return PlanInvoke(tx, opts, allowed);
  return PromoteFromSources(tx, opts, allowed, dry_run);
}

// AutoUpdate Links follow what the promotion wrote (the landed plans' Units), as they follow
// any write. A Unit they write has a head other than the one the promotion left: it leaves
// `heads`, to be read again.
absl::Status Follow(store::Tx& tx, const Principal& p, const std::vector<SpacePlan>& plans,
                    LandedHeads& heads) {
  std::vector<std::string> written;
  for (const auto& plan : plans) {
    if (StatusOf(plan.report) != PromotionStatus::kPromoted) continue;
    for (const auto& u : plan.report.units()) {
      if (u.revisions_written() > 0) written.push_back(u.unit_id());
    }
  }
  if (written.empty()) return absl::OkStatus();
  std::vector<std::string> followed;
  CUB_RETURN_IF_ERROR(FollowAutoUpdates(tx, p, std::move(written), &followed));
  for (const auto& id : followed) heads.Forget(id);
  return absl::OkStatus();
}

// Target Spaces planned and landed together by the merge planner. A whole-Stage promote of
// 10,000 Spaces held every Space's new revisions (and the head data they were merged from, and
// the array parameters built from both) at once: several hundred MB. In batches, what a batch
// plans is written and let go before the next is planned; the statements stay set-based.
constexpr size_t kPromoteBatch = 500;

// The plans, checked for blocked content (Force does not pass it, lib/ops/block_gate.h; the
// findings join `gates`) and, unless a dry run, landed; the reports are kept, the writes are
// not. The merge planner runs kPromoteBatch Spaces at a time, after locking every target's
// Units at once, each batch merged while the one before is checked and landed
// (lib/ops/promotion_batches.h); the other planners take the whole set as one batch. Once a
// batch is refused, the rest are still planned (not landed) so that the refusal names every
// blocked Unit, and the transaction is rolled back. `heads` receives the heads written.
absl::StatusOr<std::vector<SpacePlan>> PlanAndLand(
    store::Tx& tx, const Principal& p, const std::string& stage_name, const PlanOptions& opts,
    const std::vector<v1::Space>& allowed, bool dry_run, GateReport& gates, LandedHeads& heads) {
  const domain::UpdateType type = opts.rco->update_type;
  const bool merges = type != domain::UpdateType::kInvoke && !domain::CopiesFromSources(type);
  PlanOptions batch_opts = opts;
  if (merges && opts.lock) {
    std::vector<std::string> ids;
    ids.reserve(allowed.size());
    for (const auto& s : allowed) ids.push_back(s.space_id());
    CUB_RETURN_IF_ERROR(store::LockPromotionUnits(tx, ids));
    batch_opts.lock = false;
  }
  std::vector<SpacePlan> plans;
  plans.reserve(allowed.size());
  GateReport blocks;
  bool refused = false;
  auto check_and_land = [&](std::vector<SpacePlan> part) -> absl::Status {
    CUB_ASSIGN_OR_RETURN(GateReport found, PromotionBlockFindings(tx, *opts.rco, stage_name, part));
    refused = refused || !found.ok();
    blocks.Append(std::move(found));
    if (!refused && !dry_run) Land(tx, part, heads);
    for (auto& plan : part) {
      plan.writes = store::PromotionWrites();
      plans.push_back(std::move(plan));
    }
    return absl::OkStatus();
  };
  if (merges) {
    PromotionBatches batches(tx, batch_opts, allowed, kPromoteBatch);
    while (!batches.done()) {
      CUB_ASSIGN_OR_RETURN(auto part, batches.Next());
      CUB_RETURN_IF_ERROR(check_and_land(std::move(part)));
    }
  } else {
    CUB_ASSIGN_OR_RETURN(auto part, PlanWhole(tx, batch_opts, allowed, dry_run));
    CUB_RETURN_IF_ERROR(check_and_land(std::move(part)));
  }
  if (refused) return GateRefusal(blocks.FailureMessages());
  gates.Append(std::move(blocks));
  if (!dry_run) CUB_RETURN_IF_ERROR(Follow(tx, p, plans, heads));
  return plans;
}

// Reports every Space in `out` (the denied first; the plans' reports are moved there) with the
// counts, and returns the failures to record: each failed Space with its error and its failed
// Units'.
v1::PromotionFailure Tally(const std::vector<v1::PromotedSpace>& denied,
                           std::vector<SpacePlan>& plans, bool dry_run, v1::PromoteResponse& out) {
  v1::PromotionFailure failure;
  for (const auto& d : denied) *out.add_spaces() = d;
  for (auto& plan : plans) {
    if (dry_run && StatusOf(plan.report) == PromotionStatus::kPromoted) {
      SetStatus(plan.report, PromotionStatus::kWouldPromote);
    }
    *out.add_spaces() = std::move(plan.report);
  }
  for (const auto& s : out.spaces()) {
    if (StatusOf(s) == PromotionStatus::kPromoted ||
        StatusOf(s) == PromotionStatus::kWouldPromote) {
      out.set_landed(out.landed() + 1);
      for (const auto& u : s.units()) {
        out.set_revisions_written(out.revisions_written() + u.revisions_written());
      }
    } else if (StatusOf(s) == PromotionStatus::kAlreadyPromoted) {
      out.set_already(out.already() + 1);
    } else {
      out.set_failed(out.failed() + 1);
      v1::PromotionSpaceFailure* f = failure.add_spaces();
      f->set_space_id(s.space_id());
      f->set_space(s.space());
      f->set_error(s.error());
      for (const auto& u : s.units()) {
        if (ActionOf(u) != PromotionAction::kFailed) continue;
        v1::PromotionUnitFailure* uf = f->add_units();
        uf->set_unit(u.unit());
        uf->set_error(u.error());
      }
    }
  }
  return failure;
}

// Appends to the ChangeOrder the PromotionFailure (if any Space failed) and the
// PromotionOverride (if gates were forced and something landed).
absl::Status RecordOutcome(store::Tx& tx, const Principal& p, const store::StoredChangeOrder& co,
                           const v1::PromoteRequest& req, const std::string& stage_name,
                           v1::PromotionFailure failure, const v1::PromoteResponse& out) {
  store::ChangeOrderChanges changes;
  if (out.failed() > 0) {
    failure.set_user_id(p.user_id);
    failure.set_user(p.username);
    failure.set_at(FormatRfc3339(absl::Now()));
    failure.set_stage(stage_name);
    failure.set_landed(out.landed());
    changes.append_failure_json = ApiJson(failure);
  }
  // A forced rerun that lands nothing overrode nothing.
  if (req.force() && out.overridden_gates_size() > 0 && out.landed() > 0) {
    v1::PromotionOverride o;
    o.set_user_id(p.user_id);
    o.set_user(p.username);
    o.set_at(FormatRfc3339(absl::Now()));
    o.set_stage(stage_name);
    o.set_reason(req.force_reason());
    *o.mutable_failed_gates() = out.overridden_gates();
    changes.append_override_json = ApiJson(o);
  }
  if (changes.append_failure_json.empty() && changes.append_override_json.empty()) {
    return absl::OkStatus();
  }
  return store::UpdateChangeOrder(tx, co.id, changes);
}

}  // namespace

absl::Status UpgradeToChangeOrder(store::Tx& tx, const Principal& p, const v1::Space& space,
                                  const v1::Unit& unit, const v1::UpdateUnitRequest& req,
                                  v1::UpdateUnitResponse* out) {
  if (!req.merge_source().empty() || req.merge_base() > 0 || req.merge_end() > 0 || req.squash()) {
    return absl::InvalidArgumentError(
        "ChangeOrder supplies the range to merge: drop MergeSource, MergeBase,"
        " MergeEnd and Squash");
  }
  CUB_ASSIGN_OR_RETURN(std::optional<domain::PriorRevisions> mode,
                       PriorRevisionsField(req.prior_revisions()));
  // No ChangeOrder row lock here: UpdateUnit already holds this Unit's lock, and a promotion
  // takes the ChangeOrder's lock before Units' locks; taking them in the other order could
  // deadlock. A promotion waiting on this Unit reads its marks after the lock is released.
  CUB_ASSIGN_OR_RETURN(auto rco,
                       ResolveChangeOrder(tx, p, req.change_order(), space.slug(), false));
  if (!domain::MergesUpstream(rco.update_type)) {
    return absl::FailedPreconditionError(
        absl::StrCat("change order '", rco.co.slug, "' is of type ", rco.co.update_type,
                     ": there is no upstream revision to merge; promote it into the Space with"
                     " the Promote method"));
  }
  if (!rco.co.aborted_reason.empty()) {
    return absl::FailedPreconditionError(
        absl::StrCat("change order '", rco.co.slug, "' was aborted (", rco.co.aborted_reason, ")"));
  }
  PlanOptions opts;
  opts.rco = &rco;
  opts.principal = &p;
  opts.prior_revisions = mode.value_or(rco.prior_revisions);
  opts.only_unit_id = unit.unit_id();
  opts.lock = false;  // the caller holds the Unit's lock
  CUB_ASSIGN_OR_RETURN(auto spaces, store::SpacesAmong(tx, {space.space_id()}, ""));
  CUB_ASSIGN_OR_RETURN(auto plans, PlanPromotion(tx, opts, spaces));
  const SpacePlan& plan = plans.at(0);
  for (const auto& u : plan.report.units()) {
    if (ActionOf(u) == PromotionAction::kFailed) {
      return absl::FailedPreconditionError(absl::StrCat("unit '", unit.slug(), "': ", u.error()));
    }
  }
  if (plan.failed()) return absl::FailedPreconditionError(plan.report.error());
  CUB_ASSIGN_OR_RETURN(GateReport blocks, PromotionBlockFindings(tx, rco, "", plans));
  if (!blocks.ok()) return GateRefusal(blocks.FailureMessages());
  CUB_RETURN_IF_ERROR(store::WritePromotion(tx, plan.writes));
  for (const auto& r : plan.writes.revisions) {
    CUB_ASSIGN_OR_RETURN(auto written, store::FindRevision(tx, r.unit_id, r.num));
    if (!written) return absl::InternalError("promoted revision missing");
    *out->add_revisions() = *written;
    *out->mutable_revision() = *written;
  }
  if (out->revisions_size() == 0) out->set_unchanged(true);
  return absl::OkStatus();
}

bool IsGateRefusal(const absl::Status& s) {
  return s.code() == absl::StatusCode::kFailedPrecondition &&
         s.GetPayload(kGateRefusalPayload).has_value();
}

std::vector<std::string> GateRefusalReasons(const absl::Status& s) {
  auto reasons = s.GetPayload(kGateRefusalPayload);
  if (!reasons) return {};
  return absl::StrSplit(std::string(*reasons), '\n');
}

absl::StatusOr<v1::PromoteResponse> Promote(store::ConnectionPool& db, const Principal& p,
                                            const v1::PromoteRequest& req) {
  return Promote(db, p, req, PromoteBy());
}

absl::StatusOr<v1::PromoteResponse> Promote(store::ConnectionPool& db, const Principal& p,
                                            const v1::PromoteRequest& req, const PromoteBy& by) {
  if (req.force() && req.force_reason().empty()) {
    return absl::InvalidArgumentError("Force needs ForceReason, which is recorded");
  }
  CUB_RETURN_IF_ERROR(CheckQueueRequest(req));
  CUB_ASSIGN_OR_RETURN(std::optional<domain::PriorRevisions> mode,
                       PriorRevisionsField(req.prior_revisions()));
  return store::InTransaction(db, [&](store::Tx& tx) -> absl::StatusOr<v1::PromoteResponse> {
    v1::PromoteResponse out;
    out.set_dry_run(req.dry_run());
    CUB_ASSIGN_OR_RETURN(auto rco,
                         ResolveChangeOrder(tx, p, req.change_order(), "", !req.dry_run()));
    const auto& co = rco.co;
    out.set_change_order(ChangeOrderRef(rco));
    if (!co.aborted_reason.empty()) {
      return absl::FailedPreconditionError(absl::StrCat("change order '", co.slug,
                                                        "' was aborted (", co.aborted_reason,
                                                        "); it cannot be promoted"));
    }
    if (req.force()) {
      if (auto w = ResolveSpace(tx, p, rco.base.slug(), Access::kWrite); !w.ok()) {
        return absl::PermissionDeniedError(
            absl::StrCat("Force needs the editor role on the base: ", w.status().message()));
      }
    }
    std::set<std::string> resolved(co.resolved_space_ids.begin(), co.resolved_space_ids.end());
    resolved.insert(rco.base.space_id());
    CUB_ASSIGN_OR_RETURN(auto members, StageMemberNames(tx, rco));
    CUB_ASSIGN_OR_RETURN(auto into, ChoosePromotionSpaces(tx, p, rco, req, members, resolved));
    std::string stage_name =
        into.stage >= 0 ? rco.workflow->stages[into.stage].name : std::string();
    out.set_target_stage(stage_name);
    CUB_RETURN_IF_ERROR(CheckStageMode(tx, rco, stage_name, req, by));
    CUB_RETURN_IF_ERROR(TakeStageTurn(tx, p, rco, stage_name, req, by));
    // The findings, held ones with their evidence, are what the promotion was judged on.
    CUB_ASSIGN_OR_RETURN(GateReport gates, GatesFor(tx, rco, members, into, resolved));
    CUB_ASSIGN_OR_RETURN(GateReport frozen, FreezesFor(tx, into, resolved, stage_name));
    std::vector<std::string> failures = frozen.FailureMessages();
    for (auto& m : gates.FailureMessages()) failures.push_back(std::move(m));
    if (!failures.empty() && req.queue()) {
      if (auto w = ResolveSpace(tx, p, rco.base.slug(), Access::kWrite); !w.ok()) {
        return absl::PermissionDeniedError(
            absl::StrCat("Queue needs the editor role on the base: ", w.status().message()));
      }
      CUB_RETURN_IF_ERROR(QueueInstead(tx, p, rco, stage_name, failures, out));
      return out;
    }
    if (!failures.empty() && !req.force()) {
      // When the engine looks again: the soonest a soak or a freeze window can end.
      absl::Status refusal = GateRefusal(failures);
      SetNextChange(refusal, SoonestOf(gates.NextChange(), frozen.NextChange()));
      return refusal;
    }
    if (!frozen.ok()) CUB_RETURN_IF_ERROR(CheckFreezeOverride(tx, p, frozen));
    for (const auto& f : failures) out.add_overridden_gates(f);

    PlanOptions opts;
    opts.rco = &rco;
    opts.principal = &p;
    opts.prior_revisions = mode.value_or(rco.prior_revisions);
    opts.resolved = resolved;
    opts.lock = !req.dry_run();
    opts.mutations = req.mutations();
    CUB_ASSIGN_OR_RETURN(std::vector<v1::Space> into_spaces, SpacesNamed(tx, into.spaces));
    CUB_ASSIGN_OR_RETURN(SpacesByAccess by_access, SplitByAccess(tx, p, into_spaces, resolved));
    // Blocked content: Force does not pass it (lib/ops/block_gate.h).
    LandedHeads heads;
    CUB_ASSIGN_OR_RETURN(auto plans, PlanAndLand(tx, p, stage_name, opts, by_access.allowed,
                                                 req.dry_run(), gates, heads));
    v1::PromotionFailure failure = Tally(by_access.denied, plans, req.dry_run(), out);
    if (req.dry_run()) return out;
    CUB_RETURN_IF_ERROR(RecordOutcome(tx, p, co, req, stage_name, std::move(failure), out));
    CUB_RETURN_IF_ERROR(RecordPromotionEvents(tx, p, rco, into.stage, stage_name, req, out, by));
    if (!frozen.ok() && out.landed() > 0) {
      CUB_RETURN_IF_ERROR(
          store::AppendEvent(tx, FreezeOverriddenEvent(ChangeOrderEvent(rco, p, "", stage_name, ""),
                                                       frozen, req.force_reason())));
    }
    // The record lists the freezes passed with the gates.
    gates.Append(std::move(frozen));
    CUB_RETURN_IF_ERROR(RecordPromotions(tx, p, rco, stage_name, req, by,
                                         EvidenceOf(rco, into.stage, std::move(gates)), out,
                                         heads));
    CUB_ASSIGN_OR_RETURN(auto stage, AdvanceStage(tx, rco));
    out.set_stage(stage);
    return out;
  });
}

}  // namespace cub::ops
