#include "lib/ops/engine_step.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "lib/ops/change_orders.h"
#include "lib/ops/engine_skip.h"
#include "lib/ops/events.h"
#include "lib/ops/freeze_gate.h"
#include "lib/ops/gate_next_change.h"
#include "lib/ops/gates.h"
#include "lib/ops/promote.h"
#include "lib/ops/stage_control.h"
#include "lib/ops/stage_publish.h"
#include "lib/ops/users.h"
#include "lib/store/change_orders.h"
#include "lib/store/errors.h"
#include "lib/store/events.h"
#include "lib/store/queued_promotions.h"
#include "lib/store/users.h"
#include "lib/util/status_macros.h"

namespace cub::ops {
namespace {

using workflow::StageMode;

struct QueuedFor {
  std::string stage;
  Principal by;
};

// What a step acts on, read in one transaction.
struct Snapshot {
  std::string ref;  // "BASE/NAME"
  ResolvedChangeOrder rco;
  StageControls controls;
  std::vector<std::vector<v1::Space>> members;  // by Stage
  std::set<std::string> resolved, released, with_target;
  std::vector<QueuedFor> queued;
  std::set<std::string> superseded;  // Automatic Stages a newer ChangeOrder has reached
};

// A Completed ChangeOrder has nothing left to promote, but AutoRelease may still publish it.
bool IsOpen(const ResolvedChangeOrder& rco) {
  return rco.co.aborted_reason.empty() && rco.workflow;
}

absl::Status ReadQueued(store::Tx& tx, Snapshot& s) {
  CUB_ASSIGN_OR_RETURN(auto queued, store::QueuedPromotionsOf(tx, s.rco.co.id));
  for (const auto& q : queued) {
    CUB_ASSIGN_OR_RETURN(auto user, store::FindUserById(tx, q.queued_by_id));
    if (user) s.queued.push_back({q.view.stage(), PrincipalOf(*user)});
  }
  return absl::OkStatus();
}

absl::Status ReadSuperseded(store::Tx& tx, Snapshot& s) {
  for (const auto& stage : s.rco.workflow->stages) {
    if (s.controls.Of(stage.name).mode != StageMode::kAutomatic) continue;
    CUB_ASSIGN_OR_RETURN(
        bool newer, store::NewerPromotedInto(tx, s.rco.base.space_id(), s.rco.co.id, stage.name));
    if (newer) s.superseded.insert(stage.name);
  }
  return absl::OkStatus();
}

// The ChangeOrder as it is now; nullopt when it is gone, aborted or follows no workflow.
absl::StatusOr<std::optional<Snapshot>> ReadSnapshot(store::ConnectionPool& db,
                                                     const std::string& id) {
  return store::InReadTransaction(
      db, [&](store::Tx& tx) -> absl::StatusOr<std::optional<Snapshot>> {
        CUB_ASSIGN_OR_RETURN(auto ref, store::ChangeOrderRefById(tx, id));
        if (!ref) return std::optional<Snapshot>();
        auto rco = ResolveChangeOrder(tx, ServerPrincipal(), *ref, "", false);
        if (absl::IsNotFound(rco.status())) return std::optional<Snapshot>();
        CUB_RETURN_IF_ERROR(rco.status());
        if (!IsOpen(*rco)) return std::optional<Snapshot>();
        Snapshot s;
        s.ref = *ref;
        s.rco = *std::move(rco);
        CUB_ASSIGN_OR_RETURN(s.controls, CurrentStageControls(tx, s.rco));
        CUB_ASSIGN_OR_RETURN(s.members, StageMembers(tx, s.rco));
        const auto& co = s.rco.co;
        s.resolved.insert(co.resolved_space_ids.begin(), co.resolved_space_ids.end());
        s.resolved.insert(s.rco.base.space_id());
        s.released.insert(co.released_space_ids.begin(), co.released_space_ids.end());
        s.with_target.insert(co.target_space_ids.begin(), co.target_space_ids.end());
        CUB_RETURN_IF_ERROR(ReadQueued(tx, s));
        CUB_RETURN_IF_ERROR(ReadSuperseded(tx, s));
        return std::optional<Snapshot>(std::move(s));
      });
}

// The first Stage some member of which has not taken the change; -1 when all have.
int NextStage(const Snapshot& s) {
  for (size_t i = 0; i < s.members.size(); ++i) {
    for (const auto& m : s.members[i]) {
      if (!s.resolved.count(m.space_id())) return static_cast<int>(i);
    }
  }
  return -1;
}

// Accumulates what a step did and what it waits for.
struct Progress {
  bool landed = false;   // something moved this round: look again
  bool waiting = false;  // a gate did not hold
  std::vector<std::string> errors;
  StepResult result;
  // The soonest moment a gate that held a promotion can hold by time alone.
  std::optional<absl::Time> next_change;

  void NextChange(std::optional<absl::Time> at) {
    if (at && (!next_change || *at < *next_change)) next_change = at;
  }
};

// Folds the outcome of one promotion into `pr`; returns the gate failures when gates held it.
std::vector<std::string> Fold(const absl::StatusOr<v1::PromoteResponse>& r, const std::string& what,
                              Progress& pr) {
  if (IsEngineSkip(r.status())) return {};  // no longer wanted: nothing to wait for or retry
  if (IsGateRefusal(r.status())) {
    pr.waiting = true;
    if (pr.result.waiting.empty())
      pr.result.waiting = absl::StrCat(what, ": ", r.status().message());
    pr.NextChange(NextChangeOf(r.status()));
    return GateRefusalReasons(r.status());
  }
  if (!r.ok()) {
    pr.errors.push_back(absl::StrCat(what, ": ", r.status().message()));
    return {};
  }
  if (r->landed() > 0) {
    pr.landed = true;
    ++pr.result.promotions;
  }
  if (r->failed() > 0) {
    pr.errors.push_back(absl::StrCat(what, ": ", r->failed(), " Spaces failed"));
  }
  return {};
}

absl::Status TryQueued(const EngineEnv& env, const Snapshot& s, Progress& pr) {
  for (const auto& q : s.queued) {
    v1::PromoteRequest req;
    req.set_change_order(s.ref);
    req.set_target_stage(q.stage);
    PromoteBy by;
    by.engine = true;
    by.queued_by = q.by.username;
    by.keys = env.release.targets.keys;
    auto r = Promote(*env.db, q.by, req, by);
    if (!r.ok() && store::FailedInDatabase(r.status())) return r.status();
    std::vector<std::string> waiting =
        Fold(r, absl::StrCat("queued promotion into stage '", q.stage, "'"), pr);
    if (IsEngineSkip(r.status())) continue;
    if (!r.ok() && !IsGateRefusal(r.status())) waiting = {std::string(r.status().message())};
    if (waiting.empty()) continue;
    CUB_RETURN_IF_ERROR(store::WithTransaction(*env.db, [&](store::Tx& tx) {
      return store::SetQueuedWaiting(tx, s.rco.co.id, q.stage, waiting);
    }));
  }
  return absl::OkStatus();
}

// Records once that the ChangeOrder is superseded in `stage`.
absl::Status RecordSuperseded(const EngineEnv& env, const Snapshot& s, const std::string& stage) {
  return store::WithTransaction(*env.db, [&](store::Tx& tx) -> absl::Status {
    CUB_ASSIGN_OR_RETURN(bool recorded, store::HasEvent(tx, "Superseded", s.rco.co.id, stage));
    if (recorded) return absl::OkStatus();
    return store::AppendEvent(
        tx, ChangeOrderEvent(s.rco, env.automatic, "Superseded", stage,
                             absl::StrCat("a newer change order of space '", s.rco.base.slug(),
                                          "' has been promoted into stage '", stage,
                                          "'; this one is no longer promoted there "
                                          "automatically")));
  });
}

// Records once that the gates of `stage`, a Manual Stage nothing is queued into, hold: people
// following the log learn it may now be promoted into. A freeze over it holds it too. Gates
// that open by time alone (a soak, a freeze window) have the step look again when they do.
absl::Status RecordGateOpened(const EngineEnv& env, const Snapshot& s, int stage, Progress& pr) {
  const std::string& name = s.rco.workflow->stages[stage].name;
  return store::WithTransaction(*env.db, [&](store::Tx& tx) -> absl::Status {
    CUB_ASSIGN_OR_RETURN(bool recorded, store::HasEvent(tx, "GateOpened", s.rco.co.id, name));
    if (recorded) return absl::OkStatus();
    CUB_ASSIGN_OR_RETURN(GateReport gates, EntryGates(tx, s.rco, s.members, stage, s.resolved));
    std::vector<v1::Space> moving;
    for (const auto& m : s.members[stage]) {
      if (!s.resolved.count(m.space_id())) moving.push_back(m);
    }
    CUB_ASSIGN_OR_RETURN(GateReport frozen,
                         FreezeFindings(tx, moving, absl::Now(), name, "Variant"));
    gates.Append(std::move(frozen));
    if (!gates.ok()) {
      if (gates.NextChange()) pr.waiting = true;
      pr.NextChange(gates.NextChange());
      return absl::OkStatus();
    }
    return store::AppendEvent(
        tx, ChangeOrderEvent(s.rco, env.automatic, "GateOpened", name,
                             absl::StrCat("the gates of stage '", name,
                                          "' hold: it may be promoted into (its Mode is Manual)")));
  });
}

absl::Status TryAutomatic(const EngineEnv& env, const Snapshot& s, Progress& pr) {
  int next = NextStage(s);
  if (next < 0) return absl::OkStatus();
  const std::string& stage = s.rco.workflow->stages[next].name;
  for (const auto& q : s.queued) {
    if (q.stage == stage) return absl::OkStatus();  // a person's queued promotion goes first
  }
  if (s.controls.Of(stage).mode != StageMode::kAutomatic) {
    return RecordGateOpened(env, s, next, pr);
  }
  if (s.superseded.count(stage)) return RecordSuperseded(env, s, stage);
  v1::PromoteRequest req;
  req.set_change_order(s.ref);
  req.set_target_stage(stage);
  PromoteBy by;
  by.engine = true;
  by.keys = env.release.targets.keys;
  auto r = Promote(*env.db, env.automatic, req, by);
  if (!r.ok() && store::FailedInDatabase(r.status())) return r.status();
  Fold(r, absl::StrCat("promotion into stage '", stage, "'"), pr);
  return absl::OkStatus();
}

// Checked in the publish's transaction, under the locks of the Stage's Spaces and Targets: what
// the snapshot said about `stage` still holds. A person may have switched the Stage to Manual
// (to roll back), aborted the ChangeOrder, or promoted a newer one meanwhile. (A Space that
// published it meanwhile is left out by PublishStage, which reads that under the same locks.)
absl::Status StillAutoReleased(store::Tx& tx, const Snapshot& s, const std::string& stage) {
  CUB_ASSIGN_OR_RETURN(auto rco, ResolveChangeOrder(tx, ServerPrincipal(), s.ref, "", false));
  if (!rco.co.aborted_reason.empty()) return EngineSkip("the change order was aborted");
  CUB_ASSIGN_OR_RETURN(StageControls controls, CurrentStageControls(tx, rco));
  StageControl c = controls.Of(stage);
  if (c.mode != StageMode::kAutomatic || !c.auto_release) {
    return EngineSkip(absl::StrCat("stage '", stage, "' no longer has AutoRelease"));
  }
  CUB_ASSIGN_OR_RETURN(bool newer,
                       store::NewerPromotedInto(tx, rco.base.space_id(), rco.co.id, stage));
  if (newer) return EngineSkip(absl::StrCat("a newer change order is in stage '", stage, "'"));
  return absl::OkStatus();
}

// Publishes every Space of `stage` that is ready (taken, with a Target, not yet published) in
// one step, as `cub release publish --change-order --stage` does.
absl::Status PublishStageOf(const EngineEnv& env, const Snapshot& s, const std::string& stage,
                            Progress& pr) {
  StagePublishRequest req;
  req.change_order = s.ref;
  req.stage = stage;
  req.description = absl::StrCat("AutoRelease of ", s.ref);
  req.only_ready = true;
  // The engine counts the Releases; their signed statements would only be read and dropped.
  req.brief = true;
  req.still_wanted = [&](store::Tx& tx) { return StillAutoReleased(tx, s, stage); };
  auto r = PublishStage(*env.db, env.release, env.automatic, req);
  if (IsEngineSkip(r.status())) return absl::OkStatus();
  if (!r.ok()) {
    if (store::FailedInDatabase(r.status())) return r.status();
    pr.errors.push_back(absl::StrCat("publish of stage '", stage, "': ", r.status().message()));
    return absl::OkStatus();
  }
  if (r->response.releases_size() > 0) {
    pr.landed = true;
    pr.result.publishes += r->response.releases_size();
  }
  // A refusal (release gates, validation errors, a freeze) waits for what changes it;
  // anything else is retried.
  for (int i = 0; i < r->response.refused_size(); ++i) {
    const absl::Status& why = r->refusals[i];
    const std::string what = absl::StrCat("publish in space '", r->response.refused(i).space_slug(),
                                          "': ", why.message());
    if (absl::IsFailedPrecondition(why)) {
      pr.waiting = true;
      pr.NextChange(NextChangeOf(why));
      if (pr.result.waiting.empty()) pr.result.waiting = what;
    } else {
      pr.errors.push_back(what);
    }
  }
  return absl::OkStatus();
}

absl::Status TryAutoRelease(const EngineEnv& env, const Snapshot& s, Progress& pr) {
  for (size_t i = 0; i < s.members.size(); ++i) {
    const std::string& stage = s.rco.workflow->stages[i].name;
    StageControl c = s.controls.Of(stage);
    if (c.mode != StageMode::kAutomatic || !c.auto_release || s.superseded.count(stage)) continue;
    bool any = false;
    for (const auto& space : s.members[i]) {
      const std::string& id = space.space_id();
      any = any || (id != s.rco.base.space_id() && s.resolved.count(id) &&
                    s.with_target.count(id) && !s.released.count(id));
    }
    if (!any) continue;
    if (env.stopping && env.stopping()) return absl::OkStatus();
    CUB_RETURN_IF_ERROR(PublishStageOf(env, s, stage, pr));
  }
  return absl::OkStatus();
}

StepResult Conclude(Progress pr, const Snapshot* last) {
  StepResult out = std::move(pr.result);
  if (!pr.errors.empty()) {
    out.next = StepResult::Next::kRetry;
    out.error = absl::StrJoin(pr.errors, "; ");
  } else if (pr.waiting && ((last && last->controls.time_gated) || pr.next_change)) {
    out.next = StepResult::Next::kRecheck;
    out.recheck_at = pr.next_change;
    out.sweep = last && last->controls.time_gated;
  }
  return out;
}

}  // namespace

absl::StatusOr<Principal> AutomaticPrincipal(store::ConnectionPool& db) {
  return store::InReadTransaction(db, [&](store::Tx& tx) -> absl::StatusOr<Principal> {
    CUB_ASSIGN_OR_RETURN(auto user, store::FindUserByName(tx, kEngineUser));
    if (!user) {
      return absl::FailedPreconditionError(
          "the user 'automatic' the engine acts as is missing: run cubd migrate");
    }
    // The migration does not replace a user of that name created before it: one that is not
    // the engine's own (an admin service account) must not be acted as.
    if (!user->admin() || !user->service_account()) {
      return absl::FailedPreconditionError(
          "the user 'automatic' is not the engine's own (an admin service account): it was "
          "created by someone else; rename it in the database, run cubd migrate again, or "
          "start cubd with --no-engine");
    }
    return PrincipalOf(*user);
  });
}

absl::StatusOr<StepResult> RunEngineStep(const EngineEnv& env, const std::string& change_order_id) {
  Progress pr;
  std::optional<Snapshot> last;
  // Each round that lands something may open the next Stage; the number of Stages bounds the
  // rounds that can (one more finds nothing to do).
  for (int round = 0; round < 64 && !(env.stopping && env.stopping()); ++round) {
    CUB_ASSIGN_OR_RETURN(std::optional<Snapshot> s, ReadSnapshot(*env.db, change_order_id));
    if (!s) break;
    pr.landed = false;
    pr.waiting = false;
    pr.next_change.reset();
    CUB_RETURN_IF_ERROR(TryQueued(env, *s, pr));
    CUB_RETURN_IF_ERROR(TryAutomatic(env, *s, pr));
    CUB_RETURN_IF_ERROR(TryAutoRelease(env, *s, pr));
    last = std::move(s);
    if (!pr.landed || !pr.errors.empty()) break;
  }
  return Conclude(std::move(pr), last ? &*last : nullptr);
}

}  // namespace cub::ops
