#include "lib/ops/gates.h"

#include <algorithm>
#include <map>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "lib/ops/api_json.h"
#include "lib/ops/attestation_gate.h"
#include "lib/ops/release_status_rules.h"
#include "lib/ops/soak_gate.h"
#include "lib/store/change_orders.h"
#include "lib/store/releases.h"
#include "lib/store/spaces.h"
#include "lib/util/json.h"
#include "lib/util/sha256.h"
#include "lib/util/status_macros.h"
#include "lib/util/time_text.h"
#include "lib/workflow/custom_gate.h"

namespace cub::ops {
namespace {

// "Variant 'staging'", or "Space 'acme-base'" for the base.
std::string Who(const GateContext& ctx, const v1::Space& s) {
  return absl::StrCat(s.space_id() == ctx.rco->base.space_id() ? "Space '" : "Variant '", s.slug(),
                      "'");
}

// A Release as gate evidence: what it is and its live status when the gate read it.
Json ReleaseEvidence(const v1::Release& r, absl::Time observed) {
  Json j = Json::object();
  j["Release"] = r.release_num();
  j["BundleDigest"] = r.bundle_digest();
  j["Sync"] = r.live_status().sync();
  j["Health"] = r.live_status().health();
  j["Operation"] = r.live_status().operation();
  j["ReportedAt"] = r.live_status().reported_at();
  j["ObservedAt"] = FormatRfc3339(observed);
  return j;
}

// The health rule (release_status_rules.h) over a Release's stored live status.
bool ReportsHealthy(const v1::LiveStatus& s) {
  return IsHealthyReport(store::StatusReport{s.sync(), s.health(), s.operation(), s.message()});
}

// The where of each of `rco`'s Stages, in order.
std::vector<std::string> StageWheres(const ResolvedChangeOrder& rco) {
  std::vector<std::string> wheres;
  for (const auto& stage : rco.workflow->stages) wheres.push_back(stage.where_space);
  return wheres;
}

// A Stage's where that the store refused (`bad`: its index, or past the end when none was
// named), as the error of reading `rco`'s Stage members.
absl::Status StageWhereError(const ResolvedChangeOrder& rco, size_t bad, const absl::Status& s) {
  const std::string which = bad < rco.workflow->stages.size()
                                ? absl::StrCat("stage '", rco.workflow->stages[bad].name, "' of")
                                : "stages of";
  return absl::InternalError(
      absl::StrCat(which, " change order '", rco.co.slug, "': ", s.message()));
}

}  // namespace

absl::StatusOr<std::vector<std::vector<v1::Space>>> StageMembers(store::Tx& tx,
                                                                 const ResolvedChangeOrder& rco) {
  if (!rco.workflow) return std::vector<std::vector<v1::Space>>();
  const std::vector<std::string> wheres = StageWheres(rco);
  size_t bad = wheres.size();
  auto members = store::SpacesAmongEach(tx, rco.co.in_scope_space_ids, wheres, &bad);
  if (!members.ok()) return StageWhereError(rco, bad, members.status());
  return *std::move(members);
}

absl::StatusOr<StageNames> StageMemberNames(store::Tx& tx, const ResolvedChangeOrder& rco) {
  if (!rco.workflow) return StageNames();
  const std::vector<std::string> wheres = StageWheres(rco);
  size_t bad = wheres.size();
  // The scope as stored when it is still the one `rco` holds (the same version), else as held
  // (also for a ChangeOrder not stored yet).
  auto members = [&]() -> absl::StatusOr<StageNames> {
    if (!rco.co.id.empty()) {
      CUB_ASSIGN_OR_RETURN(auto stored, store::SpaceNamesInScopeEach(
                                            tx, rco.co.id, rco.co.version,
                                            rco.co.in_scope_space_ids.size(), wheres, &bad));
      if (stored) return *std::move(stored);
    }
    return store::SpaceNamesAmongEach(tx, rco.co.in_scope_space_ids, wheres, &bad);
  }();
  if (!members.ok()) return StageWhereError(rco, bad, members.status());
  return *std::move(members);
}

absl::StatusOr<std::vector<store::SpaceName>> InScopeNames(store::Tx& tx,
                                                           const ResolvedChangeOrder& rco) {
  if (!rco.co.id.empty()) {
    CUB_ASSIGN_OR_RETURN(auto stored, store::SpaceNamesInScope(tx, rco.co.id, rco.co.version));
    if (stored) return *std::move(stored);
  }
  CUB_ASSIGN_OR_RETURN(auto pairs, store::SpaceSlugsAmong(tx, rco.co.in_scope_space_ids));
  std::vector<store::SpaceName> out;
  out.reserve(pairs.size());
  for (auto& [id, slug] : pairs) out.push_back({std::move(id), std::move(slug)});
  return out;
}

absl::StatusOr<std::vector<v1::Space>> SpacesNamed(store::Tx& tx,
                                                   const std::vector<store::SpaceName>& names) {
  if (names.empty()) return std::vector<v1::Space>();
  std::vector<std::string> ids;
  ids.reserve(names.size());
  for (const auto& n : names) ids.push_back(n.space_id);
  return store::SpacesAmong(tx, ids, "");
}

namespace {

// Evaluates prerequisites over the Spaces of `over` that have taken the change, adding one
// finding per (prerequisite, Space) that does not hold, and with ctx.evidence per one that does.
class GateEvaluator {
 public:
  GateEvaluator(store::Tx& tx, const GateContext& ctx, const std::string& stage,
                const std::string& prefix, std::vector<const v1::Space*> taken, GateReport& report)
      : tx_(tx),
        ctx_(ctx),
        co_(ctx.rco->co),
        stage_(stage),
        prefix_(prefix),
        taken_(std::move(taken)),
        report_(report) {
    for (const auto* s : taken_) taken_ids_.push_back(s->space_id());
  }

  // The custom (CEL) prerequisites of the workflow, compiled, and the ChangeOrder they read.
  absl::Status CompileCustoms() {
    const ResolvedChangeOrder& rco = *ctx_.rco;
    if (rco.workflow) {
      CUB_ASSIGN_OR_RETURN(auto compiled, workflow::CompileCustomPrerequisites(*rco.workflow));
      customs_ = std::move(compiled);
    }
    if (!customs_.empty()) {
      CUB_ASSIGN_OR_RETURN(auto view, ChangeOrderView(rco));
      co_json_ = ApiJson(view);
    }
    return absl::OkStatus();
  }

  absl::Status Evaluate(const std::string& name) {
    const ResolvedChangeOrder& rco = *ctx_.rco;
    if (name == workflow::kValidated) {
      CUB_RETURN_IF_ERROR(Validated());
    } else if (name == workflow::kReleased) {
      CUB_RETURN_IF_ERROR(Released());
    } else if (name == workflow::kHealthy) {
      CUB_RETURN_IF_ERROR(Healthy());
    } else if (name == workflow::kSoaked) {
      CUB_RETURN_IF_ERROR(Soaked());
    } else if (auto it = customs_.find(name); it != customs_.end()) {
      CUB_RETURN_IF_ERROR(Custom(it->second));
    } else if (const auto* a = rco.workflow
                                   ? workflow::FindAttestationPrerequisite(*rco.workflow, name)
                                   : nullptr) {
      CUB_RETURN_IF_ERROR(Attestation(*a));
    } else {
      GateFinding f = Finding(name, kGateUndeclared, nullptr);
      f.message = absl::StrCat(prefix_, ": prerequisite '", name,
                               "' is not declared by the change order's workflow");
      f.needs = absl::StrCat("the workflow to declare '", name, "'");
      report_.findings.push_back(std::move(f));
    }
    return absl::OkStatus();
  }

 private:
  GateFinding Finding(const std::string& gate, std::string_view kind, const v1::Space* s) {
    GateFinding f;
    f.stage = stage_;
    f.gate = gate;
    f.kind = std::string(kind);
    if (s) {
      f.space_id = s->space_id();
      f.space = s->slug();
    }
    return f;
  }

  void Fail(GateFinding f, const v1::Space& s, const std::string& why, std::string needs) {
    f.held = false;
    f.message = absl::StrCat(prefix_, ", ", Who(ctx_, s), why);
    f.needs = std::move(needs);
    report_.findings.push_back(std::move(f));
  }

  void Hold(GateFinding f, const Json& evidence) {
    if (!ctx_.evidence) return;
    f.held = true;
    f.evidence_json = JsonText(evidence);
    report_.findings.push_back(std::move(f));
  }

  absl::Status ReadReleases() {
    if (releases_read_) return absl::OkStatus();
    CUB_ASSIGN_OR_RETURN(with_target_, store::SpacesWithTarget(tx_, taken_ids_));
    CUB_ASSIGN_OR_RETURN(
        releases_, store::ReleasesCarrying(tx_, co_.start_tag_id, co_.publish_tag_id, taken_ids_));
    releases_read_ = true;
    return absl::OkStatus();
  }

  const store::CarryingRelease* ReleaseOf(const v1::Space& s) const {
    auto it = releases_.find(s.space_id());
    return it == releases_.end() ? nullptr : &it->second;
  }

  absl::Status Validated() {
    std::map<std::string, std::vector<const store::ValidationFinding*>> by_space;
    CUB_ASSIGN_OR_RETURN(auto findings, store::ValidationFindings(tx_, co_.start_tag_id,
                                                                  co_.publish_tag_id, taken_ids_));
    for (const auto& f : findings) by_space[f.space_id].push_back(&f);
    for (const auto* s : taken_) {
      GateFinding g = Finding(std::string(workflow::kValidated), kGateBuiltin, s);
      auto it = by_space.find(s->space_id());
      if (it == by_space.end()) {
        Hold(std::move(g), Json{{"ValidationErrors", 0}});
        continue;
      }
      for (const auto* f : it->second) {
        Fail(g, *s,
             absl::StrCat(": requires Validated: unit '", f->unit_slug, "' revision ",
                          f->revision_num,
                          " has validation errors: ", absl::StrJoin(f->errors, "; ")),
             absl::StrCat("unit '", f->unit_slug, "' revision ", f->revision_num,
                          " free of validation errors"));
      }
    }
    return absl::OkStatus();
  }

  absl::Status Released() {
    CUB_RETURN_IF_ERROR(ReadReleases());
    for (const auto* s : taken_) {
      GateFinding g = Finding(std::string(workflow::kReleased), kGateBuiltin, s);
      const store::CarryingRelease* r = ReleaseOf(*s);
      if (r) {
        Hold(std::move(g), ReleaseEvidence(r->release, ctx_.now));
      } else if (!with_target_.count(s->space_id())) {
        // A Space without a release Target has nothing to release, and passes.
        Hold(std::move(g), Json{{"ReleaseTarget", nullptr}});
      } else {
        Fail(std::move(g), *s,
             absl::StrCat(" has taken change order '", co_.slug, "' but has not released it"),
             absl::StrCat("a Release carrying change order '", co_.slug, "'"));
      }
    }
    return absl::OkStatus();
  }

  // The soak itself is soak_gate.h's; the SoakTime is that of the Stage whose gate this is.
  absl::Status Soaked() {
    std::vector<SoakSubject> over;
    for (const auto* s : taken_) over.push_back({s, Who(ctx_, *s), stage_, prefix_, co_.slug});
    const workflow::Stage* stage =
        ctx_.rco->workflow ? workflow::FindStage(*ctx_.rco->workflow, stage_) : nullptr;
    CUB_ASSIGN_OR_RETURN(auto findings,
                         SoakedFindings(tx_, *ctx_.rco, stage, over, ctx_.now, ctx_.evidence));
    for (auto& f : findings) {
      if (!f.held || ctx_.evidence) report_.findings.push_back(std::move(f));
    }
    return absl::OkStatus();
  }

  absl::Status Healthy() {
    // Read now, never cached: the latest Release must carry the change and be reported
    // Synced and Healthy with no operation Running or Failed.
    CUB_RETURN_IF_ERROR(ReadReleases());
    for (const auto* s : taken_) {
      GateFinding g = Finding(std::string(workflow::kHealthy), kGateBuiltin, s);
      const store::CarryingRelease* r = ReleaseOf(*s);
      if (!with_target_.count(s->space_id())) {
        Fail(std::move(g), *s, " has no release Target, so it cannot report Healthy",
             "a release Target");
      } else if (!r) {
        Fail(std::move(g), *s,
             absl::StrCat(" has taken change order '", co_.slug,
                          "' but has not released it, so it cannot be Healthy"),
             absl::StrCat("a Release carrying change order '", co_.slug,
                          "', reported Synced and Healthy"));
      } else if (!r->latest || !ReportsHealthy(r->release.live_status())) {
        const v1::LiveStatus& live = r->release.live_status();
        Fail(std::move(g), *s,
             absl::StrCat(" is not Healthy: its latest Release must carry change order '", co_.slug,
                          "' and be reported Synced and Healthy with no operation Running or"
                          " Failed"),
             r->latest ? absl::StrCat("Release ", r->release.release_num(),
                                      " reported Synced and Healthy (now ", live.sync(), "/",
                                      live.health(), live.operation().empty() ? "" : ", operation ",
                                      live.operation(), ")")
                       : absl::StrCat("its latest Release to carry change order '", co_.slug,
                                      "' (Release ", r->release.release_num(),
                                      " does, but a later one does not)"));
      } else {
        Hold(std::move(g), ReleaseEvidence(r->release, ctx_.now));
      }
    }
    return absl::OkStatus();
  }

  absl::Status Custom(const workflow::CompiledCustom& gate) {
    CUB_RETURN_IF_ERROR(ReadReleases());
    for (const auto* s : taken_) {
      GateFinding g = Finding(gate.name, kGateCustom, s);
      const store::CarryingRelease* r = ReleaseOf(*s);
      const std::string space_json = ApiJson(*s);
      const std::string release_json = r ? ApiJson(r->release) : "";
      auto held = workflow::EvaluateCustom(gate, space_json, co_json_, release_json, ctx_.now);
      if (!held.ok()) {
        Fail(std::move(g), *s, absl::StrCat(": ", held.status().message()),
             absl::StrCat("CEL gate '", gate.name, "' to evaluate without error"));
      } else if (!*held) {
        Fail(std::move(g), *s, absl::StrCat(": ", workflow::NotSatisfiedMessage(gate)),
             absl::StrCat("CEL gate '", gate.name, "' true: ", gate.expression));
      } else {
        Json e = Json::object();
        e["Expression"] = gate.expression;
        // What it read, so that a record can be checked against the inputs if they are kept.
        e["InputsDigest"] = absl::StrCat(
            "sha256:", Sha256Hex(absl::StrCat(space_json, "\n", co_json_, "\n", release_json, "\n",
                                              FormatRfc3339(ctx_.now))));
        e["Now"] = FormatRfc3339(ctx_.now);
        if (r) e["Release"] = r->release.release_num();
        Hold(std::move(g), e);
      }
    }
    return absl::OkStatus();
  }

  absl::Status Attestation(const workflow::AttestationPrerequisite& a) {
    std::vector<v1::Space> spaces;
    for (const auto* t : taken_) spaces.push_back(*t);
    CUB_ASSIGN_OR_RETURN(auto outcomes, EvaluateAttestation(tx_, *ctx_.rco, a, spaces, ctx_.now));
    for (size_t i = 0; i < outcomes.size(); ++i) {
      const RequirementOutcome& o = outcomes[i];
      GateFinding g = Finding(a.name, kGateAttestation, &spaces[i]);
      if (!o.held) {
        g.needs_from.assign(o.needs_from.begin(), o.needs_from.end());
        Fail(std::move(g), spaces[i], absl::StrCat(": ", o.message),
             absl::StrCat(a.type, " ", absl::StrJoin(o.shortfalls, "; ")));
        continue;
      }
      Json votes = Json::array();
      for (const auto& v : o.votes) {
        if (!v.counted) continue;
        votes.push_back(Json{{"AttestationID", v.vote.attestation_id},
                             {"User", v.vote.username},
                             {"Result", v.vote.result},
                             {"At", FormatRfc3339(v.vote.at)},
                             {"Unit", v.unit},
                             {"Revision", v.revision_num}});
      }
      Hold(std::move(g), Json{{"Type", a.type}, {"Count", a.count}, {"Votes", votes}});
    }
    return absl::OkStatus();
  }

  store::Tx& tx_;
  const GateContext& ctx_;
  const store::StoredChangeOrder& co_;
  const std::string& stage_;
  const std::string& prefix_;
  const std::vector<const v1::Space*> taken_;
  std::vector<std::string> taken_ids_;
  GateReport& report_;
  std::map<std::string, workflow::CompiledCustom> customs_;
  std::string co_json_;
  bool releases_read_ = false;
  std::set<std::string> with_target_;
  std::map<std::string, store::CarryingRelease> releases_;
};

}  // namespace

absl::StatusOr<GateReport> EvaluateGates(store::Tx& tx, const GateContext& ctx,
                                         const std::string& stage,
                                         const std::vector<std::string>& prerequisites,
                                         const std::vector<v1::Space>& over,
                                         const std::string& prefix) {
  GateReport report;
  std::vector<const v1::Space*> taken;
  for (const auto& s : over) {
    GateFinding f;
    f.stage = stage;
    f.gate = std::string(kGateTaken);
    f.kind = std::string(kGateTaken);
    f.space_id = s.space_id();
    f.space = s.slug();
    if (ctx.resolved.count(s.space_id())) {
      taken.push_back(&s);
      continue;
    }
    f.message = absl::StrCat(prefix, ", ", Who(ctx, s), " has not taken change order '",
                             ctx.rco->co.slug, "'");
    f.needs = absl::StrCat("change order '", ctx.rco->co.slug, "' promoted into it");
    report.findings.push_back(std::move(f));
  }
  if (taken.empty() || prerequisites.empty()) return report;
  GateEvaluator gates(tx, ctx, stage, prefix, std::move(taken), report);
  CUB_RETURN_IF_ERROR(gates.CompileCustoms());
  for (const auto& name : prerequisites) CUB_RETURN_IF_ERROR(gates.Evaluate(name));
  return report;
}

absl::StatusOr<std::vector<std::string>> GateFailures(store::Tx& tx, const GateContext& ctx,
                                                      const std::vector<std::string>& prerequisites,
                                                      const std::vector<v1::Space>& over,
                                                      const std::string& prefix) {
  CUB_ASSIGN_OR_RETURN(auto report, EvaluateGates(tx, ctx, "", prerequisites, over, prefix));
  return report.FailureMessages();
}

absl::StatusOr<std::vector<v1::Space>> GatedSpaces(store::Tx& tx,
                                                   const std::vector<store::SpaceName>& names,
                                                   const std::set<std::string>& resolved,
                                                   const workflow::Workflow& wf,
                                                   const std::vector<std::string>& prerequisites) {
  // Only a CEL gate sees more of a Space than its ID and slug; at 10,000 Spaces reading them
  // whole (labels, annotations, Target) was 65 ms of SQL and the messages built from it.
  const bool whole_needed =
      std::any_of(prerequisites.begin(), prerequisites.end(), [&](const std::string& name) {
        return workflow::FindCustomPrerequisite(wf, name) != nullptr;
      });
  std::vector<store::SpaceName> taken;
  for (const auto& n : names) {
    if (whole_needed && resolved.count(n.space_id)) taken.push_back(n);
  }
  CUB_ASSIGN_OR_RETURN(std::vector<v1::Space> whole, SpacesNamed(tx, taken));
  std::map<std::string, v1::Space*> by_id;
  for (auto& s : whole) by_id[s.space_id()] = &s;
  std::vector<v1::Space> out;
  out.reserve(names.size());
  for (const auto& n : names) {
    if (whole_needed && resolved.count(n.space_id)) {
      auto it = by_id.find(n.space_id);
      if (it != by_id.end()) out.push_back(std::move(*it->second));  // else deleted since
      continue;
    }
    v1::Space& s = out.emplace_back();
    s.set_space_id(n.space_id);
    s.set_slug(n.slug);
  }
  return out;
}

namespace {

// EntryGates with the Spaces each gate is evaluated over given by `over(j)`: those of Stage j-1.
template <typename Over>
absl::StatusOr<GateReport> EntryGatesOver(store::Tx& tx, const ResolvedChangeOrder& rco, int stage,
                                          const std::set<std::string>& resolved, bool evidence,
                                          Over over) {
  GateReport report;
  if (!rco.workflow) return report;
  GateContext ctx{&rco, resolved, absl::Now(), evidence};
  const auto& stages = rco.workflow->stages;
  const std::string prefix = absl::StrCat("unable to promote to stage '", stages[stage].name, "'");
  for (int j = 0; j <= stage; ++j) {
    std::vector<v1::Space> spaces;
    if (j == 0) {
      spaces = {rco.base};
    } else {
      CUB_ASSIGN_OR_RETURN(spaces, over(j - 1));
    }
    CUB_ASSIGN_OR_RETURN(
        auto r, EvaluateGates(tx, ctx, stages[j].name, stages[j].prerequisites, spaces, prefix));
    report.Append(std::move(r));
  }
  return report;
}

}  // namespace

absl::StatusOr<GateReport> EntryGates(store::Tx& tx, const ResolvedChangeOrder& rco,
                                      const std::vector<std::vector<v1::Space>>& members, int stage,
                                      const std::set<std::string>& resolved, bool evidence) {
  return EntryGatesOver(
      tx, rco, stage, resolved, evidence,
      [&](int k) -> absl::StatusOr<std::vector<v1::Space>> { return members[k]; });
}

absl::StatusOr<GateReport> EntryGates(store::Tx& tx, const ResolvedChangeOrder& rco,
                                      const StageNames& members, int stage,
                                      const std::set<std::string>& resolved, bool evidence) {
  return EntryGatesOver(tx, rco, stage, resolved, evidence, [&](int k) {
    return GatedSpaces(tx, members[k], resolved, *rco.workflow,
                       rco.workflow->stages[k + 1].prerequisites);
  });
}

}  // namespace cub::ops
