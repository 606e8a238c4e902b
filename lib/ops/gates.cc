#include "lib/ops/gates.h"

#include <map>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "lib/ops/api_json.h"
#include "lib/ops/attestation_gate.h"
#include "lib/store/change_orders.h"
#include "lib/store/releases.h"
#include "lib/store/spaces.h"
#include "lib/util/status_macros.h"
#include "lib/workflow/custom_gate.h"

namespace cub::ops {
namespace {

// "Variant 'staging'", or "Space 'acme-base'" for the base.
std::string Who(const GateContext& ctx, const v1::Space& s) {
  return absl::StrCat(s.space_id() == ctx.rco->base.space_id() ? "Space '" : "Variant '", s.slug(),
                      "'");
}

}  // namespace

absl::StatusOr<std::vector<std::vector<v1::Space>>> StageMembers(store::Tx& tx,
                                                                 const ResolvedChangeOrder& rco) {
  std::vector<std::vector<v1::Space>> out;
  if (!rco.workflow) return out;
  for (const auto& stage : rco.workflow->stages) {
    auto members = store::SpacesAmong(tx, rco.co.in_scope_space_ids, stage.where_space);
    if (!members.ok()) {
      return absl::InternalError(absl::StrCat("stage '", stage.name, "' of change order '",
                                              rco.co.slug, "': ", members.status().message()));
    }
    out.push_back(*std::move(members));
  }
  return out;
}

namespace {

// Evaluates prerequisites over the Spaces of `over` that have taken the change, appending one
// message per (prerequisite, Space) that does not hold.
class GateEvaluator {
 public:
  GateEvaluator(store::Tx& tx, const GateContext& ctx, const std::string& prefix,
                std::vector<const v1::Space*> taken, std::vector<std::string>& failures)
      : tx_(tx),
        ctx_(ctx),
        co_(ctx.rco->co),
        prefix_(prefix),
        taken_(std::move(taken)),
        failures_(failures) {
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
    } else if (auto it = customs_.find(name); it != customs_.end()) {
      Custom(it->second);
    } else if (const auto* a = rco.workflow
                                   ? workflow::FindAttestationPrerequisite(*rco.workflow, name)
                                   : nullptr) {
      CUB_RETURN_IF_ERROR(Attestation(*a));
    } else {
      failures_.push_back(absl::StrCat(prefix_, ": prerequisite '", name,
                                       "' is not declared by the change order's workflow"));
    }
    return absl::OkStatus();
  }

 private:
  absl::Status Validated() {
    std::map<std::string, const v1::Space*> by_id;
    for (const auto* s : taken_) by_id[s->space_id()] = s;
    CUB_ASSIGN_OR_RETURN(auto findings, store::ValidationFindings(tx_, co_.start_tag_id,
                                                                  co_.publish_tag_id, taken_ids_));
    for (const auto& f : findings) {
      failures_.push_back(absl::StrCat(prefix_, ", ", Who(ctx_, *by_id[f.space_id]),
                                       ": requires Validated: unit '", f.unit_slug, "' revision ",
                                       f.revision_num,
                                       " has validation errors: ", absl::StrJoin(f.errors, "; ")));
    }
    return absl::OkStatus();
  }

  absl::Status Released() {
    // A Space without a release Target has nothing to release, and passes.
    CUB_ASSIGN_OR_RETURN(auto with_target, store::SpacesWithTarget(tx_, taken_ids_));
    CUB_ASSIGN_OR_RETURN(
        auto released,
        store::SpacesReleasing(tx_, co_.start_tag_id, co_.publish_tag_id, taken_ids_, false));
    for (const auto* s : taken_) {
      if (with_target.count(s->space_id()) && !released.count(s->space_id())) {
        failures_.push_back(absl::StrCat(prefix_, ", ", Who(ctx_, *s), " has taken change order '",
                                         co_.slug, "' but has not released it"));
      }
    }
    return absl::OkStatus();
  }

  absl::Status Healthy() {
    // Read now, never cached: the latest Release must carry the change and be reported
    // Synced and Healthy with no operation Running or Failed.
    CUB_ASSIGN_OR_RETURN(auto with_target, store::SpacesWithTarget(tx_, taken_ids_));
    CUB_ASSIGN_OR_RETURN(
        auto released,
        store::SpacesReleasing(tx_, co_.start_tag_id, co_.publish_tag_id, taken_ids_, false));
    CUB_ASSIGN_OR_RETURN(
        auto healthy,
        store::SpacesReleasing(tx_, co_.start_tag_id, co_.publish_tag_id, taken_ids_, true));
    for (const auto* s : taken_) {
      if (!with_target.count(s->space_id())) {
        failures_.push_back(absl::StrCat(prefix_, ", ", Who(ctx_, *s),
                                         " has no release Target, so it cannot report Healthy"));
      } else if (!released.count(s->space_id())) {
        failures_.push_back(absl::StrCat(prefix_, ", ", Who(ctx_, *s), " has taken change order '",
                                         co_.slug,
                                         "' but has not released it, so it cannot be Healthy"));
      } else if (!healthy.count(s->space_id())) {
        failures_.push_back(absl::StrCat(prefix_, ", ", Who(ctx_, *s),
                                         " is not Healthy: its latest Release must carry change"
                                         " order '",
                                         co_.slug,
                                         "' and be reported Synced and Healthy with no operation"
                                         " Running or Failed"));
      }
    }
    return absl::OkStatus();
  }

  void Custom(const workflow::CompiledCustom& gate) {
    for (const auto* s : taken_) {
      auto held = workflow::EvaluateCustom(gate, ApiJson(*s), co_json_, "", ctx_.now);
      if (!held.ok()) {
        failures_.push_back(
            absl::StrCat(prefix_, ", ", Who(ctx_, *s), ": ", held.status().message()));
      } else if (!*held) {
        failures_.push_back(
            absl::StrCat(prefix_, ", ", Who(ctx_, *s), ": ", workflow::NotSatisfiedMessage(gate)));
      }
    }
  }

  absl::Status Attestation(const workflow::AttestationPrerequisite& a) {
    std::vector<v1::Space> spaces;
    for (const auto* t : taken_) spaces.push_back(*t);
    CUB_ASSIGN_OR_RETURN(auto outcomes, EvaluateAttestation(tx_, *ctx_.rco, a, spaces, ctx_.now));
    for (size_t i = 0; i < outcomes.size(); ++i) {
      if (!outcomes[i].held) {
        failures_.push_back(
            absl::StrCat(prefix_, ", ", Who(ctx_, spaces[i]), ": ", outcomes[i].message));
      }
    }
    return absl::OkStatus();
  }

  store::Tx& tx_;
  const GateContext& ctx_;
  const store::StoredChangeOrder& co_;
  const std::string& prefix_;
  const std::vector<const v1::Space*> taken_;
  std::vector<std::string> taken_ids_;
  std::vector<std::string>& failures_;
  std::map<std::string, workflow::CompiledCustom> customs_;
  std::string co_json_;
};

}  // namespace

absl::StatusOr<std::vector<std::string>> GateFailures(store::Tx& tx, const GateContext& ctx,
                                                      const std::vector<std::string>& prerequisites,
                                                      const std::vector<v1::Space>& over,
                                                      const std::string& prefix) {
  std::vector<std::string> failures;
  std::vector<const v1::Space*> taken;
  for (const auto& s : over) {
    if (ctx.resolved.count(s.space_id())) {
      taken.push_back(&s);
    } else {
      failures.push_back(absl::StrCat(prefix, ", ", Who(ctx, s), " has not taken change order '",
                                      ctx.rco->co.slug, "'"));
    }
  }
  if (taken.empty() || prerequisites.empty()) return failures;
  GateEvaluator gates(tx, ctx, prefix, std::move(taken), failures);
  CUB_RETURN_IF_ERROR(gates.CompileCustoms());
  for (const auto& name : prerequisites) CUB_RETURN_IF_ERROR(gates.Evaluate(name));
  return failures;
}

absl::StatusOr<std::vector<std::string>> EntryGateFailures(
    store::Tx& tx, const ResolvedChangeOrder& rco,
    const std::vector<std::vector<v1::Space>>& members, int stage,
    const std::set<std::string>& resolved) {
  std::vector<std::string> failures;
  if (!rco.workflow) return failures;
  GateContext ctx{&rco, resolved, absl::Now()};
  const std::string prefix =
      absl::StrCat("unable to promote to stage '", rco.workflow->stages[stage].name, "'");
  for (int j = 0; j <= stage; ++j) {
    std::vector<v1::Space> over = j == 0 ? std::vector<v1::Space>{rco.base} : members[j - 1];
    CUB_ASSIGN_OR_RETURN(
        auto f, GateFailures(tx, ctx, rco.workflow->stages[j].prerequisites, over, prefix));
    failures.insert(failures.end(), f.begin(), f.end());
  }
  return failures;
}

}  // namespace cub::ops
