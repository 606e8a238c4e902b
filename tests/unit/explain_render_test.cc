// How an explanation is printed: every kind of finding the same way (one the CLI has never
// heard of included), names only, and an earliest only when time alone can make it hold.
#include "cli/explain_render.h"

#include <catch2/catch.hpp>

#include "cub/v1/changeorder.pb.h"

namespace cub::cli {
namespace {

v1::ExplainChangeOrderResponse Sample() {
  v1::ExplainChangeOrderResponse e;
  e.set_change_order("acme-base/v2");
  v1::StageExplanation* prod = e.add_stages();
  prod->set_stage("prod");
  prod->set_phase("Entry");
  prod->set_mode("Manual");
  prod->set_next(true);
  prod->set_queued(true);
  prod->set_queued_by("alice");
  prod->set_queued_at("2026-12-01T18:00:00Z");
  v1::GateWait* approvals = prod->add_waits();
  approvals->set_gate("two-approvers");
  approvals->set_kind("Attestation");
  approvals->set_space("acme-staging");
  approvals->set_gate_stage("prod");
  approvals->set_needs("approvals 1 of 2");
  approvals->add_needs_from("bob");
  approvals->add_needs_from("carol");
  v1::GateWait* freeze = prod->add_waits();
  freeze->set_gate("xmas");
  freeze->set_kind("SomeKindNotYetInvented");
  freeze->set_space("acme-prod");
  freeze->set_message("unable to promote to stage 'prod': freeze 'xmas' is in force");
  freeze->set_earliest("2026-12-27T00:00:00Z");
  v1::StageExplanation* staging = e.add_stages();
  staging->set_stage("staging");
  staging->set_phase("Release");
  staging->set_mode("Automatic");
  v1::GateWait* soak = staging->add_waits();
  soak->set_gate("Soaked");
  soak->set_kind("Builtin");
  soak->set_space("staging-eu");
  soak->set_gate_stage("dev");
  soak->set_needs("Healthy for 1h (42m left)");
  soak->set_earliest("2026-12-01T19:02:00Z");
  staging->set_earliest("2026-12-01T19:02:00Z");
  return e;
}

TEST_CASE("each Stage's line says what it is, who queued it and whether time alone opens it") {
  const std::string text = ExplanationText(Sample());
  CHECK_THAT(text, Catch::Contains("prod (next stage, Manual; promotion queued by alice at "
                                   "2026-12-01T18:00:00Z): 2 gates do not hold; it waits for "
                                   "more than time\n"));
  CHECK_THAT(text, Catch::Contains("staging (releasing in its spaces): 1 gate does not hold; "
                                   "earliest 2026-12-01T19:02:00Z\n"));
}

TEST_CASE("every finding is a row, whatever its kind, with who could approve by name") {
  const std::string text = ExplanationText(Sample());
  CHECK_THAT(text, Catch::Contains("STAGE"));
  CHECK_THAT(text, Catch::Matches(
                       "(.|\n)*prod +two-approvers +Attestation +acme-staging +approvals 1 of 2; "
                       "could approve: bob, carol\n(.|\n)*"));
  // No Needs: the refusal is shown instead; an unknown kind is shown as it comes.
  CHECK_THAT(text, Catch::Matches("(.|\n)*prod +xmas +SomeKindNotYetInvented +acme-prod +unable "
                                  "to promote to stage 'prod': freeze 'xmas' is in force +"
                                  "2026-12-27T00:00:00Z\n(.|\n)*"));
  // A gate of another Stage says whose it is.
  CHECK_THAT(text, Catch::Matches("(.|\n)*staging \\(release\\) +Soaked \\(of dev\\) +Builtin +"
                                  "staging-eu +Healthy for 1h \\(42m left\\) +"
                                  "2026-12-01T19:02:00Z\n(.|\n)*"));
}

TEST_CASE("who could approve is not repeated when Needs names them already") {
  v1::GateWait w;
  w.set_gate("two-approvers");
  w.set_space("acme-staging");
  w.set_needs("approvals 1 of 2, from bob or carol");
  w.add_needs_from("bob");
  w.add_needs_from("carol");
  CHECK(NeedsText(w) == "approvals 1 of 2, from bob or carol");
  w.set_earliest("2026-12-01T19:02:00Z");
  CHECK(WaitLine(w) ==
        "two-approvers in acme-staging: approvals 1 of 2, from bob or carol (earliest "
        "2026-12-01T19:02:00Z)");
}

TEST_CASE("nothing to wait for") {
  v1::ExplainChangeOrderResponse e;
  CHECK(ExplanationText(e) == "Nothing to wait for\n");
  e.set_completed(true);
  CHECK(ExplanationText(e) == "Nothing to wait for: completed\n");
  e.set_aborted_reason("superseded");
  CHECK(ExplanationText(e) == "Nothing to wait for: aborted (superseded)\n");
  v1::StageExplanation* dev = e.mutable_stages()->Add();
  e.set_completed(false);
  e.clear_aborted_reason();
  dev->set_stage("dev");
  dev->set_phase("Entry");
  dev->set_mode("Automatic");
  dev->set_next(true);
  CHECK(ExplanationText(e) == "dev (next stage, Automatic): every gate holds; cubd promotes it\n");
}

}  // namespace
}  // namespace cub::cli
