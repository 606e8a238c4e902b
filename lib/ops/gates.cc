#include "lib/ops/gates.h"

#include <map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
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

absl::StatusOr<std::vector<std::string>> GateFailures(store::Tx& tx, const GateContext& ctx,
                                                      const std::vector<std::string>& prerequisites,
                                                      const std::vector<v1::Space>& over,
                                                      const std::string& prefix) {
  const ResolvedChangeOrder& rco = *ctx.rco;
  std::vector<std::string> failures;
  std::vector<const v1::Space*> taken;
  for (const auto& s : over) {
    if (ctx.resolved.count(s.space_id())) {
      taken.push_back(&s);
    } else {
      failures.push_back(absl::StrCat(prefix, ", ", Who(ctx, s), " has not taken change order '",
                                      rco.co.slug, "'"));
    }
  }
  if (taken.empty() || prerequisites.empty()) return failures;

  std::map<std::string, workflow::CompiledCustom> customs;
  if (rco.workflow) {
    CUB_ASSIGN_OR_RETURN(auto compiled, workflow::CompileCustomPrerequisites(*rco.workflow));
    customs = std::move(compiled);
  }
  std::string co_json;
  if (!customs.empty()) {
    CUB_ASSIGN_OR_RETURN(auto view, ChangeOrderView(rco));
    co_json = ApiJson(view);
  }
  std::vector<std::string> taken_ids;
  for (const auto* s : taken) taken_ids.push_back(s->space_id());

  for (const auto& name : prerequisites) {
    if (name == workflow::kValidated) {
      std::map<std::string, const v1::Space*> by_id;
      for (const auto* s : taken) by_id[s->space_id()] = s;
      for (const auto& f :
           store::ValidationFindings(tx, rco.co.start_tag_id, rco.co.publish_tag_id, taken_ids)) {
        failures.push_back(absl::StrCat(prefix, ", ", Who(ctx, *by_id[f.space_id]),
                                        ": requires Validated: unit '", f.unit_slug, "' revision ",
                                        f.revision_num,
                                        " has validation errors: ", absl::StrJoin(f.errors, "; ")));
      }
    } else if (name == workflow::kReleased) {
      // A Space without a release Target has nothing to release, and passes.
      CUB_ASSIGN_OR_RETURN(auto with_target, store::SpacesWithTarget(tx, taken_ids));
      CUB_ASSIGN_OR_RETURN(
          auto released,
          store::SpacesReleasing(tx, rco.co.start_tag_id, rco.co.publish_tag_id, taken_ids, false));
      for (const auto* s : taken) {
        if (with_target.count(s->space_id()) && !released.count(s->space_id())) {
          failures.push_back(absl::StrCat(prefix, ", ", Who(ctx, *s), " has taken change order '",
                                          rco.co.slug, "' but has not released it"));
        }
      }
    } else if (name == workflow::kHealthy) {
      // Read now, never cached: the latest Release must carry the change and be reported
      // Synced and Healthy with no operation Running or Failed.
      CUB_ASSIGN_OR_RETURN(auto with_target, store::SpacesWithTarget(tx, taken_ids));
      CUB_ASSIGN_OR_RETURN(
          auto released,
          store::SpacesReleasing(tx, rco.co.start_tag_id, rco.co.publish_tag_id, taken_ids, false));
      CUB_ASSIGN_OR_RETURN(
          auto healthy,
          store::SpacesReleasing(tx, rco.co.start_tag_id, rco.co.publish_tag_id, taken_ids, true));
      for (const auto* s : taken) {
        if (!with_target.count(s->space_id())) {
          failures.push_back(absl::StrCat(prefix, ", ", Who(ctx, *s),
                                          " has no release Target, so it cannot report Healthy"));
        } else if (!released.count(s->space_id())) {
          failures.push_back(absl::StrCat(prefix, ", ", Who(ctx, *s), " has taken change order '",
                                          rco.co.slug,
                                          "' but has not released it, so it cannot be Healthy"));
        } else if (!healthy.count(s->space_id())) {
          failures.push_back(absl::StrCat(prefix, ", ", Who(ctx, *s),
                                          " is not Healthy: its latest Release must carry change"
                                          " order '",
                                          rco.co.slug,
                                          "' and be reported Synced and Healthy with no operation"
                                          " Running or Failed"));
        }
      }
    } else if (auto it = customs.find(name); it != customs.end()) {
      for (const auto* s : taken) {
        auto held = workflow::EvaluateCustom(it->second, ApiJson(*s), co_json, "", ctx.now);
        if (!held.ok()) {
          failures.push_back(
              absl::StrCat(prefix, ", ", Who(ctx, *s), ": ", held.status().message()));
        } else if (!*held) {
          failures.push_back(absl::StrCat(prefix, ", ", Who(ctx, *s), ": ",
                                          workflow::NotSatisfiedMessage(it->second)));
        }
      }
    } else if (const auto* a = rco.workflow
                                   ? workflow::FindAttestationPrerequisite(*rco.workflow, name)
                                   : nullptr) {
      std::vector<v1::Space> spaces;
      for (const auto* t : taken) spaces.push_back(*t);
      CUB_ASSIGN_OR_RETURN(auto outcomes, EvaluateAttestation(tx, rco, *a, spaces, ctx.now));
      for (size_t i = 0; i < outcomes.size(); ++i) {
        if (!outcomes[i].held) {
          failures.push_back(
              absl::StrCat(prefix, ", ", Who(ctx, spaces[i]), ": ", outcomes[i].message));
        }
      }
    } else {
      failures.push_back(absl::StrCat(prefix, ": prerequisite '", name,
                                      "' is not declared by the change order's workflow"));
    }
  }
  return failures;
}

}  // namespace cub::ops
