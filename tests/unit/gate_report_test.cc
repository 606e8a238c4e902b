#include "lib/ops/gate_report.h"

#include <catch2/catch.hpp>

namespace cub::ops {
namespace {

GateFinding Failing(std::string gate, std::optional<absl::Time> earliest) {
  GateFinding f;
  f.gate = std::move(gate);
  f.message = "unable to promote: " + f.gate;
  f.earliest = earliest;
  return f;
}

GateFinding Holding(std::string gate) {
  GateFinding f;
  f.gate = std::move(gate);
  f.held = true;
  return f;
}

TEST_CASE("GateReport: held findings do not fail it", "[gate_report]") {
  GateReport r;
  REQUIRE(r.ok());
  r.findings.push_back(Holding("Healthy"));
  CHECK(r.ok());
  CHECK(r.FailureMessages().empty());
  CHECK_FALSE(r.Earliest().has_value());
  CHECK_FALSE(r.NextChange().has_value());
  r.findings.push_back(Failing("Soaked", std::nullopt));
  CHECK_FALSE(r.ok());
  REQUIRE(r.Failures().size() == 1);
  CHECK(r.Failures()[0]->gate == "Soaked");
  CHECK(r.FailureMessages() == std::vector<std::string>{"unable to promote: Soaked"});
}

TEST_CASE("GateReport: Earliest waits for every failure, NextChange for the first",
          "[gate_report]") {
  const absl::Time t0 = absl::FromUnixSeconds(1'800'000'000);
  GateReport r;
  r.findings.push_back(Failing("Soaked", t0 + absl::Hours(2)));
  r.findings.push_back(Failing("xmas", t0 + absl::Hours(1)));
  r.findings.push_back(Holding("Healthy"));
  CHECK(r.Earliest() == t0 + absl::Hours(2));
  CHECK(r.NextChange() == t0 + absl::Hours(1));

  // One failure that time alone cannot lift: nobody knows when the whole holds, but the engine
  // still has a moment to look again.
  r.findings.push_back(Failing("two-approvers", std::nullopt));
  CHECK_FALSE(r.Earliest().has_value());
  CHECK(r.NextChange() == t0 + absl::Hours(1));
}

TEST_CASE("GateReport: Append keeps order", "[gate_report]") {
  GateReport a, b;
  a.findings.push_back(Failing("one", std::nullopt));
  b.findings.push_back(Failing("two", std::nullopt));
  b.findings.push_back(Holding("three"));
  a.Append(std::move(b));
  REQUIRE(a.findings.size() == 3);
  CHECK(a.findings[0].gate == "one");
  CHECK(a.findings[1].gate == "two");
  CHECK(a.findings[2].gate == "three");
}

}  // namespace
}  // namespace cub::ops
