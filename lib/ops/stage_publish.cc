#include "lib/ops/stage_publish.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <tuple>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "lib/ops/access.h"
#include "lib/ops/block_gate.h"
#include "lib/ops/delivery.h"
#include "lib/ops/freeze_gate.h"
#include "lib/ops/gate_next_change.h"
#include "lib/ops/gates.h"
#include "lib/ops/release_files.h"
#include "lib/ops/release_records.h"
#include "lib/store/change_orders.h"
#include "lib/store/engine_work.h"
#include "lib/store/events.h"
#include "lib/store/release_batch.h"
#include "lib/store/releases.h"
#include "lib/store/spaces.h"
#include "lib/store/sql.h"
#include "lib/util/json.h"
#include "lib/util/parallel_for.h"
#include "lib/util/status_macros.h"

namespace cub::ops {
namespace {

// What the transaction decided; the Releases are read back after delivery.
struct Decided {
  v1::PublishReleasesResponse response;  // refused, already_published, dry-run releases
  std::vector<absl::Status> refusals;
  std::vector<std::string> release_ids;  // recorded, by Space slug
};

// A Space of the Stage on its way to a Release, and the first reason it is refused, if any.
struct Candidate {
  v1::Space space;
  ReleaseToRecord release;
  std::optional<absl::Status> refusal;
};

void Refuse(Candidate& c, absl::Status s) {
  if (!c.refusal) c.refusal = std::move(s);
}

// The Stage `name` of the ChangeOrder's workflow, as an index; INVALID_ARGUMENT naming the
// Stages it has otherwise.
absl::StatusOr<int> StageIndex(const ResolvedChangeOrder& rco, const std::string& name) {
  if (!rco.workflow || rco.workflow->stages.empty()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "change order '", rco.base.slug(), "/", rco.co.slug,
        "' has no workflow, so it has no stages: publish its Spaces one at a time with cub "
        "release publish SPACE --revision ChangeOrder:",
        rco.base.slug(), "/", rco.co.slug));
  }
  std::vector<std::string> names;
  for (size_t i = 0; i < rco.workflow->stages.size(); ++i) {
    if (rco.workflow->stages[i].name == name) return static_cast<int>(i);
    names.push_back(rco.workflow->stages[i].name);
  }
  return absl::InvalidArgumentError(absl::StrCat("Stage: change order '", rco.co.slug,
                                                 "' has no stage '", name, "'; its stages are ",
                                                 absl::StrJoin(names, ", ")));
}

// The Spaces of Stage `stage` (the base excepted) that `where` selects, by slug.
absl::StatusOr<std::vector<v1::Space>> StageSpaces(
    store::Tx& tx, const ResolvedChangeOrder& rco,
    const std::vector<std::vector<v1::Space>>& members, int stage, const std::string& where) {
  std::vector<v1::Space> out;
  std::set<std::string> selected;
  if (!where.empty()) {
    std::vector<std::string> ids;
    for (const auto& s : members[stage]) ids.push_back(s.space_id());
    auto matched = store::SpacesAmong(tx, ids, where);
    if (!matched.ok()) {
      return absl::InvalidArgumentError(absl::StrCat("WhereSpace: ", matched.status().message()));
    }
    for (const auto& s : *matched) selected.insert(s.space_id());
  }
  for (const auto& s : members[stage]) {
    if (s.space_id() == rco.base.space_id()) continue;
    if (!where.empty() && !selected.count(s.space_id())) continue;
    out.push_back(s);
  }
  std::sort(out.begin(), out.end(),
            [](const v1::Space& a, const v1::Space& b) { return a.slug() < b.slug(); });
  if (!where.empty() && out.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("WhereSpace '", where, "' selects no Space of stage '",
                     rco.workflow->stages[stage].name, "' of change order '", rco.co.slug, "'"));
  }
  return out;
}

// The Targets the Spaces release to, by ID.
absl::StatusOr<std::map<std::string, v1::Target>> TargetsOf(store::Tx& tx,
                                                            const std::vector<v1::Space>& spaces) {
  std::map<std::string, v1::Target> out;
  for (const auto& s : spaces) {
    const std::string& id = s.release_target_id();
    if (id.empty() || out.count(id)) continue;
    CUB_ASSIGN_OR_RETURN(auto t, store::FindTargetByID(tx, id));
    if (!t) return absl::InternalError("release target vanished");
    out[id] = *std::move(t);
  }
  return out;
}

// Fills each candidate's bundle from one query over all their Units, refusing those whose
// bundle is empty or holds a revision with validation errors.
absl::Status BuildBundles(store::Tx& tx, const ResolvedChangeOrder& rco, const std::string& ref,
                          std::vector<Candidate>& candidates) {
  std::vector<std::string> ids;
  std::map<std::string, Candidate*> by_id;
  for (auto& c : candidates) {
    ids.push_back(c.space.space_id());
    by_id[c.space.space_id()] = &c;
  }
  CUB_ASSIGN_OR_RETURN(auto units, store::ReleasableUnits(tx, ids, rco.co.publish_tag_id));
  std::map<std::string, std::vector<targets::BundleFile>> files;
  for (auto& u : units) {
    Candidate& c = *by_id.at(u.space_id);
    if (u.revision_num == 0) continue;  // not there yet, and never deployed
    if (!u.revision_found) {
      Refuse(c, absl::InternalError(absl::StrCat("unit '", u.slug, "' of space '", c.space.slug(),
                                                 "': bundled revision ", u.revision_num,
                                                 " is missing")));
      continue;
    }
    if (!u.validation_errors.empty()) {
      Refuse(c, absl::FailedPreconditionError(absl::StrCat(
                    "unit '", u.slug, "' revision ", u.revision_num, " has validation errors (",
                    absl::StrJoin(u.validation_errors, "; "), "); fix them before releasing it")));
      continue;
    }
    v1::ReleaseUnit ru;
    ru.set_unit_id(u.unit_id);
    ru.set_unit(u.slug);
    ru.set_revision_num(static_cast<int32_t>(u.revision_num));
    ru.set_data_hash(u.data_hash);
    c.release.units.push_back(std::move(ru));
    c.release.file_names.push_back(BundleFileName(u.slug, u.toolchain));
    files[u.space_id].push_back({c.release.file_names.back(), std::move(u.data)});
  }
  for (auto& c : candidates) {
    if (c.release.units.empty()) {
      Refuse(c,
             absl::FailedPreconditionError(absl::StrCat(
                 "space '", c.space.slug(), "' has no unit to release at ", "ChangeOrder:", ref)));
      continue;
    }
    c.release.digest = BundleDigest(std::move(files[c.space.space_id()]));
  }
  return absl::OkStatus();
}

// The candidates not refused yet.
std::vector<Candidate*> Open(std::vector<Candidate>& candidates) {
  std::vector<Candidate*> out;
  for (auto& c : candidates) {
    if (!c.refusal) out.push_back(&c);
  }
  return out;
}

// Refuses each candidate that a failing finding of `report` names, with all of its failures
// (and, when time alone can lift them, the moment they may).
void RefuseFailures(const GateReport& report, const std::vector<Candidate*>& over) {
  std::map<std::string, GateReport> failing;  // space ID -> its failing findings
  for (const GateFinding* f : report.Failures()) {
    if (f->space_id.empty()) {
      for (Candidate* c : over) failing[c->space.space_id()].findings.push_back(*f);
    } else {
      failing[f->space_id].findings.push_back(*f);
    }
  }
  for (Candidate* c : over) {
    auto it = failing.find(c->space.space_id());
    if (it == failing.end()) continue;
    absl::Status s =
        absl::FailedPreconditionError(absl::StrJoin(it->second.FailureMessages(), "; "));
    SetNextChange(s, it->second.NextChange());
    Refuse(*c, std::move(s));
  }
}

// Freezes, blocked content and the release gates of every Stage each Space is a member of,
// each evaluated once over all the candidates it applies to. Also settles the attestation
// prerequisites whose votes are sealed onto each Release (the last such Stage's).
absl::Status CheckGates(store::Tx& tx, const ResolvedChangeOrder& rco,
                        const std::vector<std::vector<v1::Space>>& members,
                        std::vector<Candidate>& candidates) {
  const absl::Time now = absl::Now();
  {
    std::vector<Candidate*> open = Open(candidates);
    std::vector<v1::Space> spaces;
    for (Candidate* c : open) spaces.push_back(c->space);
    CUB_ASSIGN_OR_RETURN(GateReport frozen,
                         FreezeFindings(tx, spaces, now, "unable to publish a release", "Space"));
    RefuseFailures(frozen, open);
  }
  {
    std::vector<Candidate*> open = Open(candidates);
    std::vector<PublishToCheck> checks;
    for (Candidate* c : open) checks.push_back({&c->space, &c->release.units});
    CUB_ASSIGN_OR_RETURN(GateReport blocked, PublishBlockFindings(tx, checks));
    RefuseFailures(blocked, open);
  }
  const std::set<std::string> resolved(rco.co.resolved_space_ids.begin(),
                                       rco.co.resolved_space_ids.end());
  for (size_t i = 0; i < members.size(); ++i) {
    const auto& stage = rco.workflow->stages[i];
    if (stage.release_prerequisites.empty()) continue;
    std::set<std::string> in_stage;
    for (const auto& m : members[i]) in_stage.insert(m.space_id());
    std::vector<Candidate*> over;
    std::vector<v1::Space> spaces;
    for (Candidate* c : Open(candidates)) {
      if (!in_stage.count(c->space.space_id())) continue;
      over.push_back(c);
      spaces.push_back(c->space);
    }
    if (over.empty()) continue;
    GateContext ctx{&rco, resolved, now};
    CUB_ASSIGN_OR_RETURN(GateReport report,
                         EvaluateGates(tx, ctx, "", stage.release_prerequisites, spaces,
                                       absl::StrCat("unable to publish a release of change order '",
                                                    rco.co.slug, "' in stage '", stage.name, "'")));
    RefuseFailures(report, over);
    for (const auto& name : stage.release_prerequisites) {
      const auto* a = workflow::FindAttestationPrerequisite(*rco.workflow, name);
      if (a == nullptr) continue;
      for (Candidate* c : over) {
        c->release.seal.push_back(a);
        c->release.seal_stage = stage.name;
      }
    }
  }
  return absl::OkStatus();
}

// The answer of a dry run for one Space: what would be bundled, unsigned and unnumbered.
v1::Release Unpublished(const ReleaseToRecord& r, const std::string& description) {
  v1::Release out;
  out.set_space_id(r.space.space_id());
  out.set_space_slug(r.space.slug());
  out.set_target(ReleaseTargetName(r.target));
  out.set_change_order_id(r.change_order_id);
  out.set_change_order(r.change_order);
  out.set_revision_selector(r.selector);
  out.set_description(description);
  out.set_bundle_digest(r.digest);
  for (const auto& u : r.units) *out.add_units() = u;
  return out;
}

// The Stage's Spaces sorted into those already published, those refused before any bundle is
// read (no role, not taken, no Target) and the candidates.
absl::StatusOr<std::vector<Candidate>> SortSpaces(
    store::Tx& tx, const Principal& p, const ResolvedChangeOrder& rco, const std::string& ref,
    const StagePublishRequest& req, const std::vector<v1::Space>& spaces, Decided& out) {
  std::vector<std::string> ids;
  for (const auto& s : spaces) ids.push_back(s.space_id());
  CUB_ASSIGN_OR_RETURN(auto writable, store::WritableSpaces(tx, ToCaller(p), ids));
  CUB_ASSIGN_OR_RETURN(auto targets, TargetsOf(tx, spaces));
  const std::set<std::string> resolved(rco.co.resolved_space_ids.begin(),
                                       rco.co.resolved_space_ids.end());
  const std::set<std::string> released(rco.co.released_space_ids.begin(),
                                       rco.co.released_space_ids.end());
  std::vector<Candidate> candidates;
  for (const auto& s : spaces) {
    Candidate c;
    c.space = s;
    if (released.count(s.space_id())) {
      out.response.add_already_published(s.slug());
      continue;
    }
    const bool ready = resolved.count(s.space_id()) && !s.release_target_id().empty();
    if (!ready && req.only_ready) continue;
    if (!writable.count(s.space_id())) {
      Refuse(c, absl::PermissionDeniedError(absl::StrCat("user '", p.username,
                                                         "' may not publish in space '", s.slug(),
                                                         "': that needs the editor role there")));
    } else if (!resolved.count(s.space_id())) {
      Refuse(c, absl::FailedPreconditionError(absl::StrCat(
                    "space '", s.slug(), "' has not taken change order '", rco.co.slug, "'")));
    } else if (s.release_target_id().empty()) {
      Refuse(c, absl::FailedPreconditionError(
                    absl::StrCat("space '", s.slug(),
                                 "' has no release Target: set one with UpdateSpace, giving "
                                 "ReleaseTarget SPACE/TARGET")));
    } else {
      c.release.space = s;
      c.release.target = targets.at(s.release_target_id());
      c.release.selector = absl::StrCat("ChangeOrder:", ref);
      c.release.change_order_id = rco.co.id;
      c.release.change_order = ref;
      c.release.rco = &rco;
    }
    candidates.push_back(std::move(c));
  }
  return candidates;
}

absl::StatusOr<Decided> Decide(store::Tx& tx, const ReleaseEnv& env, const Principal& p,
                               const StagePublishRequest& req) {
  Decided out;
  CUB_ASSIGN_OR_RETURN(auto rco, ResolveChangeOrder(tx, p, req.change_order, "", false));
  CUB_ASSIGN_OR_RETURN(const int stage, StageIndex(rco, req.stage));
  CUB_ASSIGN_OR_RETURN(auto members, StageMembers(tx, rco));
  CUB_ASSIGN_OR_RETURN(auto spaces, StageSpaces(tx, rco, members, stage, req.where_space));
  if (!req.dry_run) {
    // Publishes into these Spaces take turns from here (each Space's release-number lock); what the
    // ChangeOrder says of them (taken, already published) is read again under the locks.
    std::vector<std::string> space_ids;
    for (const auto& s : spaces) space_ids.push_back(s.space_id());
    CUB_RETURN_IF_ERROR(store::LockNextReleaseNums(tx, space_ids).status());
    if (req.still_wanted) CUB_RETURN_IF_ERROR(req.still_wanted(tx));
    CUB_ASSIGN_OR_RETURN(rco, ResolveChangeOrder(tx, p, req.change_order, "", false));
  }
  const std::string ref = absl::StrCat(rco.base.slug(), "/", rco.co.slug);
  CUB_ASSIGN_OR_RETURN(auto candidates, SortSpaces(tx, p, rco, ref, req, spaces, out));
  {
    std::vector<Candidate> open;
    for (auto& c : candidates) {
      if (!c.refusal) open.push_back(std::move(c));
    }
    std::vector<Candidate> refused;
    for (auto& c : candidates) {
      if (c.refusal) refused.push_back(std::move(c));
    }
    if (!open.empty()) {
      CUB_RETURN_IF_ERROR(BuildBundles(tx, rco, ref, open));
      CUB_RETURN_IF_ERROR(CheckGates(tx, rco, members, open));
    }
    candidates = std::move(refused);
    for (auto& c : open) candidates.push_back(std::move(c));
    std::sort(candidates.begin(), candidates.end(), [](const Candidate& a, const Candidate& b) {
      return a.space.slug() < b.space.slug();
    });
  }
  std::vector<ReleaseToRecord> to_record;
  for (auto& c : candidates) {
    if (c.refusal) {
      v1::PublishRefusal* r = out.response.add_refused();
      r->set_space_id(c.space.space_id());
      r->set_space_slug(c.space.slug());
      r->set_message(std::string(c.refusal->message()));
      out.refusals.push_back(*c.refusal);
    } else if (req.dry_run) {
      v1::Release* r = out.response.add_releases();
      *r = Unpublished(c.release, req.description);
      if (req.brief) {
        r->clear_provenance();
        r->clear_sealed_approvals();
        r->clear_units();
      }
    } else {
      to_record.push_back(std::move(c.release));
      // The ChangeOrder the Release points to lives in `rco`, which outlives the recording.
      to_record.back().rco = &rco;
    }
  }
  if (to_record.empty()) return out;
  CUB_ASSIGN_OR_RETURN(out.release_ids, RecordReleases(tx, env, p, to_record, req.description));
  // `rco` was read under the locks; Completed is as far as a Stage goes and never moves back, so
  // only a ChangeOrder short of it is read again to see whether this publish moved it.
  if (rco.co.stage != "Completed") CUB_RETURN_IF_ERROR(AdvanceStage(tx, rco).status());
  return out;
}

// The Published event of Release `num` of `r`.
store::NewEvent PublishedEvent(const Principal& p, const ReleaseToRecord& r, int64_t num) {
  store::NewEvent e;
  e.kind = "Published";
  e.space_id = r.space.space_id();
  e.space_slug = r.space.slug();
  e.change_order_id = r.change_order_id;
  e.change_order = r.change_order;
  e.user_id = p.user_id;
  e.username = p.username;
  e.message = absl::StrCat("published Release ", num, " of space '", r.space.slug(), "'",
                           r.change_order.empty() ? "" : " for ", r.change_order);
  e.details_json =
      absl::StrCat(R"({"ReleaseNum":)", num, R"(,"BundleDigest":)", JsonQuote(r.digest), "}");
  return e;
}

// The approvals each Release of `releases` seals, judged in the transaction: per Release, its
// prerequisites' outcomes in its Space (empty when it seals none). Releases of one ChangeOrder
// sealing the same Stage's prerequisites (a whole Stage's) are judged together, so the number of
// queries does not grow with the number of Spaces. `judged` keeps the outcomes pointed to.
absl::StatusOr<std::vector<std::vector<const RequirementOutcome*>>> JudgeSeals(
    store::Tx& tx, const std::vector<ReleaseToRecord>& releases,
    std::vector<std::vector<std::vector<RequirementOutcome>>>* judged) {
  using Key = std::tuple<const ResolvedChangeOrder*, std::string,
                         std::vector<const workflow::AttestationPrerequisite*>>;
  std::map<Key, std::vector<size_t>> groups;
  for (size_t i = 0; i < releases.size(); ++i) {
    const ReleaseToRecord& r = releases[i];
    if (!r.seal.empty()) groups[Key(r.rco, r.seal_stage, r.seal)].push_back(i);
  }
  std::vector<std::vector<const RequirementOutcome*>> out(releases.size());
  judged->reserve(groups.size());
  for (const auto& [key, members] : groups) {
    std::vector<v1::Space> spaces;
    for (size_t i : members) spaces.push_back(releases[i].space);
    CUB_ASSIGN_OR_RETURN(auto outcomes,
                         JudgeApprovals(tx, *std::get<0>(key), std::get<2>(key), spaces));
    judged->push_back(std::move(outcomes));
    for (const auto& per_req : judged->back()) {
      for (size_t j = 0; j < members.size(); ++j) out[members[j]].push_back(&per_req[j]);
    }
  }
  return out;
}

// Signs each row's provenance and, where it seals approvals, their statement; (*rows)[i] is the
// row of releases[first + i], sealing seals[first + i]. Signing is pure computation (about 0.1
// ms a statement), so a batch's is shared over the cores while the transaction waits.
absl::Status SignRecords(const ReleaseEnv& env, const std::string& published_by,
                         const std::vector<ReleaseToRecord>& releases,
                         const std::vector<std::vector<const RequirementOutcome*>>& seals,
                         size_t first, std::vector<store::NewReleaseWithFiles>* rows) {
  std::vector<absl::Status> errors(rows->size());
  ParallelFor(rows->size(), /*min_per_thread=*/64, /*max_threads=*/0, [&](size_t i) {
    const ReleaseToRecord& r = releases[first + i];
    store::NewRelease& nr = (*rows)[i].row;
    auto provenance = SignReleaseProvenance(env, nr, published_by);
    if (!provenance.ok()) {
      errors[i] = provenance.status();
      return;
    }
    nr.provenance = *std::move(provenance);
    if (r.seal.empty()) return;
    auto sealed = SignApprovalSeal(env, *r.rco, r.seal_stage, r.seal, seals[first + i], r.space,
                                   nr.release_num, r.digest);
    if (!sealed.ok()) {
      errors[i] = sealed.status();
      return;
    }
    nr.sealed_approvals = *std::move(sealed);
  });
  for (const auto& e : errors) CUB_RETURN_IF_ERROR(e);
  return absl::OkStatus();
}

}  // namespace

// Releases are signed and inserted this many at a time. A whole Stage's signed records, with
// the insert's array parameters and libpq's copy of them, were most of a 10,000-Space publish's
// peak (550 of 740 MB in use, by a heap profile): about 55 KB a Release. A thousand keeps a
// Stage of up to a thousand Spaces in one batch, as fast as before.
constexpr size_t kReleaseBatch = 1000;

absl::StatusOr<std::vector<std::string>> RecordReleases(
    store::Tx& tx, const ReleaseEnv& env, const Principal& p,
    const std::vector<ReleaseToRecord>& releases, const std::string& description) {
  std::vector<std::string> space_ids;
  for (const auto& r : releases) space_ids.push_back(r.space.space_id());
  CUB_ASSIGN_OR_RETURN(auto nums, store::LockNextReleaseNums(tx, space_ids));
  // The transaction's time, so that the events it appends are never earlier than the Release
  // says it was published (`release publish --wait` lists events from then on).
  CUB_ASSIGN_OR_RETURN(const std::string published_at, store::TransactionTimeRfc3339(tx));
  // The approvals are judged once for every Release, so the queries stay as few as the Stages.
  std::vector<std::vector<std::vector<RequirementOutcome>>> judged;
  CUB_ASSIGN_OR_RETURN(auto seals, JudgeSeals(tx, releases, &judged));
  std::vector<std::string> ids;
  ids.reserve(releases.size());
  for (size_t first = 0; first < releases.size(); first += kReleaseBatch) {
    const size_t last = std::min(releases.size(), first + kReleaseBatch);
    std::vector<store::NewReleaseWithFiles> rows;
    std::vector<store::NewEvent> events;
    rows.reserve(last - first);
    for (size_t i = first; i < last; ++i) {
      const ReleaseToRecord& r = releases[i];
      store::NewReleaseWithFiles x;
      store::NewRelease& nr = x.row;
      nr.space_id = r.space.space_id();
      nr.space_slug = r.space.slug();
      nr.target_id = r.target.target_id();
      nr.target = ReleaseTargetName(r.target);
      nr.release_num = nums.at(nr.space_id);
      nr.change_order_id = r.change_order_id;
      nr.change_order = r.change_order;
      nr.revision_selector = r.selector;
      nr.description = description;
      nr.bundle_digest = r.digest;
      nr.published_by = p.user_id;
      nr.published_at = published_at;
      nr.units = r.units;
      x.file_names = r.file_names;
      events.push_back(PublishedEvent(p, r, nr.release_num));
      rows.push_back(std::move(x));
    }
    CUB_RETURN_IF_ERROR(SignRecords(env, p.username, releases, seals, first, &rows));
    CUB_ASSIGN_OR_RETURN(auto batch_ids, store::InsertReleases(tx, rows));
    for (auto& id : batch_ids) ids.push_back(std::move(id));
    CUB_RETURN_IF_ERROR(store::AppendEvents(tx, events));
  }
  CUB_RETURN_IF_ERROR(store::WakeChangeOrdersInSpaces(tx, space_ids));
  return ids;
}

absl::StatusOr<StagePublishResult> PublishStage(store::ConnectionPool& db, const ReleaseEnv& env,
                                                const Principal& p,
                                                const StagePublishRequest& req) {
  if (req.change_order.empty()) {
    return absl::InvalidArgumentError("ChangeOrder: name the change order, as BASE/NAME");
  }
  if (req.stage.empty()) {
    return absl::InvalidArgumentError("Stage: name the stage whose Spaces to publish");
  }
  CUB_ASSIGN_OR_RETURN(Decided decided,
                       store::InTransaction(db, [&](store::Tx& tx) -> absl::StatusOr<Decided> {
                         return Decide(tx, env, p, req);
                       }));
  StagePublishResult out;
  out.response = std::move(decided.response);
  out.refusals = std::move(decided.refusals);
  if (decided.release_ids.empty()) return out;
  CUB_ASSIGN_OR_RETURN(
      auto delivered,
      DeliverNow(db, env, DeliveryOptions(), decided.release_ids, req.delivery_wait,
                 req.brief ? store::ReleaseRead::kBrief : store::ReleaseRead::kWhole));
  for (auto& r : delivered) *out.response.add_releases() = std::move(r);
  return out;
}

absl::StatusOr<v1::PublishReleasesResponse> PublishReleases(store::ConnectionPool& db,
                                                            const ReleaseEnv& env,
                                                            const Principal& p,
                                                            const v1::PublishReleasesRequest& req) {
  StagePublishRequest r;
  r.change_order = req.change_order();
  r.stage = req.stage();
  r.where_space = req.where_space();
  r.description = req.description();
  r.dry_run = req.dry_run();
  r.brief = req.brief();
  CUB_ASSIGN_OR_RETURN(StagePublishResult out, PublishStage(db, env, p, r));
  return std::move(out.response);
}

}  // namespace cub::ops
