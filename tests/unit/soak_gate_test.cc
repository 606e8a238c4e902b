// Unit tests for the Soaked gate's judgement (lib/ops/soak_gate.h): from what the store read of
// a Space, whether the soak holds, what it needs, when it can hold at the earliest and the
// evidence of a held one. The store's query and the engine's timing are tested end to end
// (tests/e2e/soak_test.sh).
#include "lib/ops/soak_gate.h"

#include <catch2/catch.hpp>
#include <string>

namespace cub::ops {
namespace {

const absl::Time kHealthyAt = absl::FromUnixSeconds(1796119200);  // 2026-12-01T10:00:00Z

struct Fixture {
  v1::Space space;
  SoakSubject subject;
  store::SoakState state;

  Fixture() {
    space.set_space_id("7c1f0a52-0000-4000-8000-000000000001");
    space.set_slug("acme-staging");
    subject = {&space, "Variant 'acme-staging'", "prod", "unable to promote to stage 'prod'", "v2"};
    state.has_target = true;
    state.release_num = 4;
    state.carries = true;
    state.bundle_digest = "sha256:abc";
    state.sync = "Synced";
    state.health = "Healthy";
    state.operation = "Succeeded";
    state.healthy_since = kHealthyAt;
  }

  GateFinding Judge(absl::Time now, bool evidence = false) const {
    return JudgeSoak(subject, &state, absl::Hours(24), "24h", now, evidence);
  }
};

TEST_CASE("soaking: refused with the time left, and the soak's end as the earliest") {
  Fixture fx;
  GateFinding f = fx.Judge(kHealthyAt + absl::Hours(20) + absl::Minutes(48));
  CHECK_FALSE(f.held);
  CHECK(f.gate == "Soaked");
  CHECK(f.kind == "Builtin");
  CHECK(f.stage == "prod");
  CHECK(f.space == "acme-staging");
  CHECK(f.space_id == fx.space.space_id());
  CHECK(f.message ==
        "unable to promote to stage 'prod', Variant 'acme-staging' is not Soaked: Release 4 has "
        "been Healthy since 2026-12-01T10:00:00Z, 20h48m of its 24h SoakTime (3h12m left)");
  CHECK(f.needs == "Healthy for 24h since 2026-12-01T10:00:00Z (3h12m left)");
  REQUIRE(f.earliest);
  CHECK(*f.earliest == kHealthyAt + absl::Hours(24));
  CHECK(f.evidence_json.empty());
  // Part of a second left reads as a whole one, never "0s left".
  CHECK(fx.Judge(kHealthyAt + absl::Hours(24) - absl::Milliseconds(300)).needs ==
        "Healthy for 24h since 2026-12-01T10:00:00Z (1s left)");
}

TEST_CASE("soaked: holds from the soak's end, with its evidence when asked") {
  Fixture fx;
  CHECK(fx.Judge(kHealthyAt + absl::Hours(24)).held);
  CHECK(fx.Judge(kHealthyAt + absl::Hours(24)).evidence_json.empty());
  GateFinding f = fx.Judge(kHealthyAt + absl::Hours(30), /*evidence=*/true);
  CHECK(f.held);
  CHECK(f.message.empty());
  CHECK_FALSE(f.earliest);
  CHECK(f.evidence_json ==
        R"({"SoakStart":"2026-12-01T10:00:00Z","SoakEnd":"2026-12-02T10:00:00Z",)"
        R"("SoakTime":"24h","Release":4,"BundleDigest":"sha256:abc"})");
}

TEST_CASE("not Healthy now: refused with no earliest time (a report must come first)") {
  Fixture fx;
  fx.state.health = "Degraded";
  GateFinding f = fx.Judge(kHealthyAt + absl::Hours(30));
  CHECK_FALSE(f.held);
  CHECK_FALSE(f.earliest);
  CHECK(f.message ==
        "unable to promote to stage 'prod', Variant 'acme-staging' is not Soaked: Release 4 is "
        "not Healthy (reported Synced, Degraded, Succeeded): it must be reported Healthy, then "
        "stay so for 24h (a Degraded report restarts the clock)");
  CHECK(f.needs == "Release 4 reported Healthy, then Healthy for 24h");
  fx.state.health = "Healthy";
  fx.state.operation = "Running";
  CHECK_FALSE(fx.Judge(kHealthyAt + absl::Hours(30)).held);
  fx.state.operation = "";
  fx.state.sync = "OutOfSync";
  CHECK_FALSE(fx.Judge(kHealthyAt + absl::Hours(30)).held);
  // Healthy, but its current deployment has no healthy time (none open).
  fx.state.sync = "Synced";
  fx.state.healthy_since.reset();
  f = fx.Judge(kHealthyAt + absl::Hours(30));
  CHECK_FALSE(f.held);
  CHECK_FALSE(f.earliest);
}

TEST_CASE("no Target, no Release carrying the change: refused, saying which") {
  Fixture fx;
  fx.state.carries = false;
  GateFinding f = fx.Judge(kHealthyAt + absl::Hours(30));
  CHECK_FALSE(f.held);
  CHECK(f.message ==
        "unable to promote to stage 'prod', Variant 'acme-staging' is not Soaked: it has taken "
        "change order 'v2' but its latest Release does not carry it, so it has not begun the "
        "24h soak");
  CHECK(f.needs == "a Release carrying the change, Healthy for 24h");
  fx.state = store::SoakState();
  fx.state.has_target = true;
  CHECK_FALSE(fx.Judge(kHealthyAt).held);
  fx.state.has_target = false;
  f = fx.Judge(kHealthyAt);
  CHECK(f.message ==
        "unable to promote to stage 'prod', Variant 'acme-staging' is not Soaked: it has no "
        "release Target, so it cannot report Healthy for the 24h SoakTime");
  CHECK_FALSE(f.earliest);
  CHECK_FALSE(JudgeSoak(fx.subject, nullptr, absl::Hours(24), "24h", kHealthyAt, false).held);
}

}  // namespace
}  // namespace cub::ops
