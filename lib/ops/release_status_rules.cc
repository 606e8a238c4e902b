#include "lib/ops/release_status_rules.h"

namespace cub::ops {

bool IsHealthyReport(const store::StatusReport& s) {
  return s.sync == "Synced" && s.health == "Healthy" && s.operation != "Running" &&
         s.operation != "Failed";
}

DeploymentStep DeploymentStepFor(const store::StatusReport& s, const store::DeploymentFacts& f) {
  const bool has_entry = !f.entry_id.empty();
  if (s.health == "Degraded") {
    return has_entry && f.entry_open ? DeploymentStep::kEndDegraded : DeploymentStep::kNone;
  }
  if (!IsHealthyReport(s) || !has_entry) return DeploymentStep::kNone;
  if (f.entry_open) return f.entry_healthy ? DeploymentStep::kNone : DeploymentStep::kMarkHealthy;
  // The entry has ended: a recovery only when nothing has been deployed in the Space since.
  if (f.newer_release || f.space_open) return DeploymentStep::kNone;
  return DeploymentStep::kOpenHealthy;
}

bool SignsDeploymentRecord(DeploymentStep step) {
  return step == DeploymentStep::kMarkHealthy || step == DeploymentStep::kOpenHealthy;
}

}  // namespace cub::ops
