// Tests for lib/ops/release_status_rules: the health rule and each step of the deployment-history
// state machine a status report can take, from facts alone (no database).

#include "lib/ops/release_status_rules.h"

#include <catch2/catch.hpp>
#include <string>

namespace cub::ops {
namespace {

store::StatusReport Report(std::string sync, std::string health, std::string operation = "") {
  return {std::move(sync), std::move(health), std::move(operation), ""};
}

const store::StatusReport kHealthy = Report("Synced", "Healthy", "Succeeded");
const store::StatusReport kDegraded = Report("Synced", "Degraded");

// The Release's entry is the Space's current one.
store::DeploymentFacts Current(bool healthy) {
  store::DeploymentFacts f;
  f.entry_id = "d1";
  f.entry_open = true;
  f.entry_healthy = healthy;
  f.space_open = true;
  return f;
}

// The Release's entry has ended (Degraded, say); what came after is up to the test.
store::DeploymentFacts Ended() {
  store::DeploymentFacts f;
  f.entry_id = "d1";
  return f;
}

TEST_CASE("release status rules: healthy is Synced, Healthy, no operation Running or Failed",
          "[release_status]") {
  CHECK(IsHealthyReport(Report("Synced", "Healthy")));
  CHECK(IsHealthyReport(Report("Synced", "Healthy", "Succeeded")));
  CHECK_FALSE(IsHealthyReport(Report("Synced", "Healthy", "Running")));
  CHECK_FALSE(IsHealthyReport(Report("Synced", "Healthy", "Failed")));
  CHECK_FALSE(IsHealthyReport(Report("OutOfSync", "Healthy")));
  CHECK_FALSE(IsHealthyReport(Report("Unknown", "Healthy")));
  for (const char* h : {"Progressing", "Degraded", "Suspended", "Missing", "Unknown"}) {
    CHECK_FALSE(IsHealthyReport(Report("Synced", h)));
  }
}

TEST_CASE("release status rules: the first healthy report of the current entry stamps it",
          "[release_status]") {
  CHECK(DeploymentStepFor(kHealthy, Current(false)) == DeploymentStep::kMarkHealthy);
  CHECK(SignsDeploymentRecord(DeploymentStep::kMarkHealthy));
  // Once only: a second healthy report leaves the entry (and its signed record) alone.
  CHECK(DeploymentStepFor(kHealthy, Current(true)) == DeploymentStep::kNone);
}

TEST_CASE("release status rules: a report that is not healthy does not stamp the entry",
          "[release_status]") {
  for (const auto& r :
       {Report("Synced", "Progressing"), Report("OutOfSync", "Healthy"),
        Report("Synced", "Healthy", "Running"), Report("Synced", "Healthy", "Failed"),
        Report("Synced", "Missing"), Report("Unknown", "Unknown")}) {
    CHECK(DeploymentStepFor(r, Current(false)) == DeploymentStep::kNone);
    CHECK(DeploymentStepFor(r, Ended()) == DeploymentStep::kNone);
  }
}

TEST_CASE("release status rules: Degraded ends the current entry, healthy or not",
          "[release_status]") {
  CHECK(DeploymentStepFor(kDegraded, Current(false)) == DeploymentStep::kEndDegraded);
  CHECK(DeploymentStepFor(kDegraded, Current(true)) == DeploymentStep::kEndDegraded);
  // Whatever the sync and the operation say.
  CHECK(DeploymentStepFor(Report("OutOfSync", "Degraded", "Failed"), Current(true)) ==
        DeploymentStep::kEndDegraded);
  CHECK_FALSE(SignsDeploymentRecord(DeploymentStep::kEndDegraded));
}

TEST_CASE("release status rules: Degraded on an entry that has ended changes nothing",
          "[release_status]") {
  CHECK(DeploymentStepFor(kDegraded, Ended()) == DeploymentStep::kNone);
  store::DeploymentFacts superseded = Ended();
  superseded.space_open = true;
  superseded.newer_release = true;
  CHECK(DeploymentStepFor(kDegraded, superseded) == DeploymentStep::kNone);
}

TEST_CASE("release status rules: healthy after Degraded, nothing newer, opens a new entry",
          "[release_status]") {
  CHECK(DeploymentStepFor(kHealthy, Ended()) == DeploymentStep::kOpenHealthy);
  CHECK(SignsDeploymentRecord(DeploymentStep::kOpenHealthy));
  // An entry that ended healthy recovers the same way.
  store::DeploymentFacts was_healthy = Ended();
  was_healthy.entry_healthy = true;
  CHECK(DeploymentStepFor(kHealthy, was_healthy) == DeploymentStep::kOpenHealthy);
}

TEST_CASE("release status rules: no recovery once a newer Release has been deployed",
          "[release_status]") {
  store::DeploymentFacts newer = Ended();
  newer.newer_release = true;
  CHECK(DeploymentStepFor(kHealthy, newer) == DeploymentStep::kNone);
  newer.space_open = true;  // the newer one is current
  CHECK(DeploymentStepFor(kHealthy, newer) == DeploymentStep::kNone);
  // Another entry is current, whatever its Release: the old one does not come back over it.
  store::DeploymentFacts other_open = Ended();
  other_open.space_open = true;
  CHECK(DeploymentStepFor(kHealthy, other_open) == DeploymentStep::kNone);
}

TEST_CASE("release status rules: a Release without an entry leaves the history alone",
          "[release_status]") {
  store::DeploymentFacts none;
  CHECK(DeploymentStepFor(kHealthy, none) == DeploymentStep::kNone);
  CHECK(DeploymentStepFor(kDegraded, none) == DeploymentStep::kNone);
  none.space_open = true;
  CHECK(DeploymentStepFor(kHealthy, none) == DeploymentStep::kNone);
  CHECK(DeploymentStepFor(kDegraded, none) == DeploymentStep::kNone);
  CHECK_FALSE(SignsDeploymentRecord(DeploymentStep::kNone));
}

}  // namespace
}  // namespace cub::ops
