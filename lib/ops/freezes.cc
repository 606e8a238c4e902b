#include "lib/ops/freezes.h"

#include <algorithm>
#include <set>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "lib/ops/access.h"
#include "lib/ops/input.h"
#include "lib/store/change_workflows.h"
#include "lib/store/engine_work.h"
#include "lib/store/events.h"
#include "lib/store/spaces.h"
#include "lib/util/json.h"
#include "lib/util/status_macros.h"
#include "lib/util/time_text.h"
#include "lib/workflow/workflow.h"

namespace cub::ops {
namespace {

constexpr size_t kMaxFreezeReason = 1024;

FreezeScheduleText TextOf(const store::StoredFreeze& f) {
  FreezeScheduleText t;
  t.from = f.starts_at;
  t.until = f.ends_at;
  t.cron = f.cron;
  if (f.duration_seconds > 0) t.duration = absl::FormatDuration(absl::Seconds(f.duration_seconds));
  t.time_zone = f.time_zone;
  return t;
}

v1::Freeze ToProto(const store::StoredFreeze& f, absl::Time now) {
  v1::Freeze out;
  out.set_freeze_id(f.id);
  out.set_space_id(f.space_id);
  out.set_space(f.space_slug);
  out.set_slug(f.slug);
  out.set_reason(f.reason);
  out.set_change_workflow(f.change_workflow);
  for (const auto& s : f.stages) out.add_stages(s);
  FreezeScheduleText t = TextOf(f);
  auto schedule = ParseFreezeSchedule(t);
  out.set_schedule(
      std::string(FreezeKindName(schedule.ok() ? schedule->kind : FreezeKind::kUntilDeleted)));
  if (schedule.ok() && schedule->kind == FreezeKind::kWindow) {
    out.set_from(FormatRfc3339(schedule->from));
    out.set_until(FormatRfc3339(schedule->until));
  }
  out.set_cron(t.cron);
  out.set_duration(t.duration);
  out.set_time_zone(t.time_zone);
  out.set_created_by(f.created_by);
  out.set_created_at(f.created_at);
  FreezeState st = StateOf(f, now);
  out.set_in_force(st.in_force);
  if (st.until) out.set_in_force_until(FormatRfc3339(*st.until));
  if (st.next_start) out.set_next_start(FormatRfc3339(*st.next_start));
  return out;
}

absl::StatusOr<store::StoredFreeze> Find(store::Tx& tx, const v1::Space& space,
                                         const std::string& ref) {
  if (ref.empty()) return absl::InvalidArgumentError("name the freeze (Freeze)");
  CUB_ASSIGN_OR_RETURN(auto f, store::FindFreeze(tx, space.space_id(), ref));
  if (!f) {
    return absl::NotFoundError(
        absl::StrCat("freeze '", ref, "' not found in space '", space.slug(), "'"));
  }
  return *std::move(f);
}

// The workflow a freeze is scoped to (and its Stages, checked against it), into `nf`.
absl::Status ResolveScope(store::Tx& tx, const Principal& p, const v1::Space& space,
                          const v1::CreateFreezeRequest& req, store::NewFreeze& nf) {
  if (req.change_workflow().empty()) {
    if (req.stages_size() > 0) {
      return absl::InvalidArgumentError(
          "Stages are Stages of a workflow: give ChangeWorkflow (SPACE/NAME) as well");
    }
    // Without a workflow it stops every Space of the server: the decision of a server admin,
    // not of whoever administers one Space.
    if (!p.admin) {
      return absl::PermissionDeniedError(
          "a freeze without ChangeWorkflow covers every Space, and needs a server admin; name "
          "the workflow (and Stages) it is for to freeze only those Spaces");
    }
    return absl::OkStatus();
  }
  SpacedRef ref = SplitRef(req.change_workflow(), space.slug());
  // The Spaces a workflow's Stages select are its owners' to stop: admin on its Space.
  auto wspace_or = ResolveSpace(tx, p, ref.space, Access::kAdmin);
  if (absl::IsPermissionDenied(wspace_or.status())) {
    return absl::PermissionDeniedError(
        absl::StrCat("ChangeWorkflow: freezing the Spaces of a workflow needs the admin role on "
                     "its space: ",
                     wspace_or.status().message()));
  }
  CUB_ASSIGN_OR_RETURN(auto wspace, std::move(wspace_or));
  CUB_ASSIGN_OR_RETURN(auto stored, store::FindWorkflow(tx, wspace.space_id(), ref.name));
  if (!stored) {
    return absl::NotFoundError(absl::StrCat("ChangeWorkflow: changeworkflow '", ref.name,
                                            "' not found in space '", wspace.slug(), "'"));
  }
  CUB_ASSIGN_OR_RETURN(auto w, workflow::ParseWorkflow(stored->definition_json));
  std::vector<std::string> names;
  for (const auto& s : w.stages) names.push_back(s.name);
  for (const auto& stage : req.stages()) {
    if (std::find(names.begin(), names.end(), stage) == names.end()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Stages: changeworkflow '", wspace.slug(), "/", stored->slug, "' has no stage '", stage,
          "'; its stages are ", absl::StrJoin(names, ", ")));
    }
    if (std::find(nf.stages.begin(), nf.stages.end(), stage) == nf.stages.end()) {
      nf.stages.push_back(stage);
    }
  }
  nf.change_workflow_id = stored->id;
  return absl::OkStatus();
}

// The schedule of a new freeze, into `nf`.
absl::Status ResolveSchedule(const v1::CreateFreezeRequest& req, absl::Time now,
                             store::NewFreeze& nf) {
  FreezeScheduleText t{req.from(), req.until(), req.cron(), req.duration(), req.time_zone()};
  CUB_ASSIGN_OR_RETURN(FreezeSchedule s, ParseFreezeSchedule(t));
  if (s.kind == FreezeKind::kWindow) {
    if (absl::ToUnixSeconds(s.until) <= absl::ToUnixSeconds(s.from)) {
      return absl::InvalidArgumentError("the window from From to Until is shorter than a second");
    }
    if (s.until <= now) {
      return absl::InvalidArgumentError(
          absl::StrCat("Until '", req.until(), "' has passed: the window would never be in force"));
    }
    nf.starts_at = absl::FormatTime(absl::RFC3339_full, s.from, absl::UTCTimeZone());
    nf.ends_at = absl::FormatTime(absl::RFC3339_full, s.until, absl::UTCTimeZone());
  } else if (s.kind == FreezeKind::kRecurring) {
    nf.cron = s.cron.text;
    nf.duration_seconds = absl::ToInt64Seconds(s.duration);
    if (absl::Seconds(nf.duration_seconds) != s.duration) {
      return absl::InvalidArgumentError(
          absl::StrCat("Duration '", req.duration(), "' is not a whole number of seconds"));
    }
    nf.time_zone = s.time_zone;
  }
  return absl::OkStatus();
}

// "until deleted", "from A until B", "at CRON (ZONE) for D", for event messages.
std::string Describe(const v1::Freeze& f) {
  std::string scope =
      f.change_workflow().empty()
          ? "every Space"
          : absl::StrCat("changeworkflow '", f.change_workflow(), "'",
                         f.stages().empty() ? "" : " stages ", absl::StrJoin(f.stages(), ", "));
  std::string when =
      f.schedule() == "Window" ? absl::StrCat("from ", f.from(), " until ", f.until())
      : f.schedule() == "Recurring"
          ? absl::StrCat("at '", f.cron(), "' (", f.time_zone(), ") for ", f.duration())
          : "until deleted";
  return absl::StrCat("covers ", scope, ", ", when);
}

store::NewEvent FreezeEvent(const Principal& p, const v1::Freeze& f, const std::string& kind,
                            const std::string& what) {
  store::NewEvent e;
  e.kind = kind;
  e.space_id = f.space_id();
  e.space_slug = f.space();
  e.user_id = p.user_id;
  e.username = p.username;
  e.message =
      absl::StrCat("freeze '", f.slug(), "' ", what, " (reason: ", f.reason(), "); ", Describe(f));
  e.details_json = JsonText(Json{{"Freeze", f.slug()},
                                 {"FreezeID", f.freeze_id()},
                                 {"Reason", f.reason()},
                                 {"ChangeWorkflow", f.change_workflow()},
                                 {"Schedule", f.schedule()}});
  return e;
}

// Wakes the engine for the ChangeOrders reaching the Spaces `f` covered.
absl::Status WakeHeld(store::Tx& tx, const store::StoredFreeze& f) {
  std::vector<std::string> covered;
  if (!f.change_workflow_id.empty()) {
    CUB_ASSIGN_OR_RETURN(auto stored,
                         store::FindWorkflow(tx, f.change_workflow_space_id, f.change_workflow_id));
    if (!stored) return absl::OkStatus();
    CUB_ASSIGN_OR_RETURN(auto w, workflow::ParseWorkflow(stored->definition_json));
    store::Caller everyone{/*admin=*/true, "", {}};
    for (const auto& stage : w.stages) {
      if (!f.stages.empty() &&
          std::find(f.stages.begin(), f.stages.end(), stage.name) == f.stages.end()) {
        continue;
      }
      CUB_ASSIGN_OR_RETURN(auto spaces, store::ListSpaces(tx, everyone, stage.where_space, ""));
      for (const auto& s : spaces) covered.push_back(s.space_id());
    }
    if (covered.empty()) return absl::OkStatus();
  }
  CUB_ASSIGN_OR_RETURN(auto ids, store::ChangeOrdersReaching(tx, covered));
  if (ids.empty()) return absl::OkStatus();
  return store::Wake(tx, ids);
}

}  // namespace

FreezeState StateOf(const store::StoredFreeze& f, absl::Time now) {
  auto s = ParseFreezeSchedule(TextOf(f));
  if (!s.ok()) return FreezeStateAt(FreezeSchedule(), now);
  return FreezeStateAt(*s, now);
}

absl::StatusOr<v1::Freeze> CreateFreeze(store::ConnectionPool& db, const Principal& p,
                                        const v1::CreateFreezeRequest& req) {
  CUB_RETURN_IF_ERROR(ValidateSlug("freeze", req.slug()));
  if (req.reason().empty()) {
    return absl::InvalidArgumentError("Reason is required: say why the line is frozen");
  }
  // Every refusal and explanation repeats it, once per Space held.
  if (req.reason().size() > kMaxFreezeReason ||
      std::any_of(req.reason().begin(), req.reason().end(),
                  [](char c) { return static_cast<unsigned char>(c) < 0x20; })) {
    return absl::InvalidArgumentError(
        absl::StrCat("Reason: at most ", kMaxFreezeReason, " bytes on one line (",
                     req.reason().size(), " given); say why in a sentence, and link to the rest"));
  }
  const absl::Time now = absl::Now();
  absl::StatusOr<v1::Freeze> out =
      store::InTransaction(db, [&](store::Tx& tx) -> absl::StatusOr<v1::Freeze> {
        CUB_ASSIGN_OR_RETURN(auto space, ResolveSpace(tx, p, req.space(), Access::kAdmin));
        store::NewFreeze nf;
        nf.space_id = space.space_id();
        nf.slug = req.slug();
        nf.reason = req.reason();
        nf.created_by_id = p.user_id;
        nf.created_by = p.username;
        // Who may freeze what before reading the schedule: a caller refused reads nothing more.
        CUB_RETURN_IF_ERROR(ResolveScope(tx, p, space, req, nf));
        CUB_RETURN_IF_ERROR(ResolveSchedule(req, now, nf));
        CUB_ASSIGN_OR_RETURN(auto existing, store::FindFreeze(tx, space.space_id(), req.slug()));
        if (existing) {
          return absl::AlreadyExistsError(absl::StrCat(
              "freeze '", req.slug(), "' already exists in space '", space.slug(), "'"));
        }
        CUB_ASSIGN_OR_RETURN(auto stored, store::InsertFreeze(tx, nf));
        v1::Freeze view = ToProto(stored, now);
        CUB_RETURN_IF_ERROR(
            store::AppendEvent(tx, FreezeEvent(p, view, "FreezeCreated", "created")));
        return view;
      });
  if (!out.ok()) return AlreadyExistsAs(out.status(), absl::StrCat("freeze '", req.slug(), "'"));
  return out;
}

absl::StatusOr<v1::Freeze> GetFreeze(store::ConnectionPool& db, const Principal& p,
                                     const v1::GetFreezeRequest& req) {
  return store::InReadTransaction(db, [&](store::Tx& tx) -> absl::StatusOr<v1::Freeze> {
    CUB_ASSIGN_OR_RETURN(auto space, ResolveSpace(tx, p, req.space(), Access::kRead));
    CUB_ASSIGN_OR_RETURN(auto f, Find(tx, space, req.freeze()));
    return ToProto(f, absl::Now());
  });
}

absl::StatusOr<v1::ListFreezesResponse> ListFreezes(store::ConnectionPool& db, const Principal& p,
                                                    const v1::ListFreezesRequest& req) {
  return store::InReadTransaction(
      db, [&](store::Tx& tx) -> absl::StatusOr<v1::ListFreezesResponse> {
        std::string space_id;
        if (!req.space().empty() && req.space() != "*") {
          CUB_ASSIGN_OR_RETURN(auto space, ResolveSpace(tx, p, req.space(), Access::kRead));
          space_id = space.space_id();
        }
        CUB_ASSIGN_OR_RETURN(auto rows, store::ListFreezes(tx, ToCaller(p), space_id));
        v1::ListFreezesResponse out;
        const absl::Time now = absl::Now();
        for (const auto& f : rows) *out.add_freezes() = ToProto(f, now);
        return out;
      });
}

namespace {

// Lifting a freeze takes the authority setting it took: a server admin for one over every
// Space, the admin role on the workflow's Space for one over a workflow's Stages.
absl::Status MayLift(store::Tx& tx, const Principal& p, const store::StoredFreeze& f) {
  if (f.change_workflow_id.empty()) {
    if (p.admin) return absl::OkStatus();
    return absl::PermissionDeniedError(
        "this freeze covers every Space: only a server admin may delete it");
  }
  auto w = ResolveSpace(tx, p, f.change_workflow_space_id, Access::kAdmin);
  if (w.ok()) return absl::OkStatus();
  return absl::PermissionDeniedError(absl::StrCat(
      "this freeze holds the Stages of workflow '", f.change_workflow,
      "': deleting it needs the admin role on the workflow's space: ", w.status().message()));
}

}  // namespace

absl::StatusOr<v1::DeleteFreezeResponse> DeleteFreeze(store::ConnectionPool& db, const Principal& p,
                                                      const v1::DeleteFreezeRequest& req) {
  return store::InTransaction(db, [&](store::Tx& tx) -> absl::StatusOr<v1::DeleteFreezeResponse> {
    CUB_ASSIGN_OR_RETURN(auto space, ResolveSpace(tx, p, req.space(), Access::kAdmin));
    CUB_ASSIGN_OR_RETURN(auto f, Find(tx, space, req.freeze()));
    CUB_RETURN_IF_ERROR(MayLift(tx, p, f));
    v1::DeleteFreezeResponse out;
    *out.mutable_deleted() = ToProto(f, absl::Now());
    CUB_RETURN_IF_ERROR(WakeHeld(tx, f));
    CUB_RETURN_IF_ERROR(store::DeleteFreeze(tx, f.id));
    CUB_RETURN_IF_ERROR(
        store::AppendEvent(tx, FreezeEvent(p, out.deleted(), "FreezeDeleted", "deleted")));
    return out;
  });
}

}  // namespace cub::ops
