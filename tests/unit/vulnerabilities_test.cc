// Unit tests for lib/domain/vulnerabilities: the strict reading of a scanner's findings
// ("critical=0,high=2,medium=5,low=9"), the refusals naming the bad item, and the increase
// over a previous scan that the VulnerabilitiesIncreased event reports.
#include "lib/domain/vulnerabilities.h"

#include <catch2/catch.hpp>
#include <string>

namespace cub::domain {
namespace {

std::string Refusal(absl::string_view text) {
  auto v = ParseVulnerabilities(text);
  REQUIRE_FALSE(v.ok());
  CHECK(absl::IsInvalidArgument(v.status()));
  return std::string(v.status().message());
}

TEST_CASE("findings read every severity, in any order", "[vulnerabilities]") {
  auto v = ParseVulnerabilities("low=9,critical=0,medium=5,high=2");
  REQUIRE(v.ok());
  CHECK(v->size() == 4);
  CHECK(v->at(Severity::kCritical) == 0);
  CHECK(v->at(Severity::kHigh) == 2);
  CHECK(v->at(Severity::kMedium) == 5);
  CHECK(v->at(Severity::kLow) == 9);
  CHECK(FormatVulnerabilities(*v) == "critical=0,high=2,medium=5,low=9");
}

TEST_CASE("a severity left out is not known, not zero", "[vulnerabilities]") {
  auto v = ParseVulnerabilities("critical=0");
  REQUIRE(v.ok());
  CHECK(v->size() == 1);
  CHECK(v->count(Severity::kHigh) == 0);
  CHECK(FormatVulnerabilities(*v) == "critical=0");
  auto big = ParseVulnerabilities("high=2147483647");
  REQUIRE(big.ok());
  CHECK(big->at(Severity::kHigh) == 2147483647);
}

TEST_CASE("malformed findings are refused naming the bad item", "[vulnerabilities]") {
  CHECK(Refusal("") ==
        "no findings given: use SEVERITY=COUNT items separated by commas, such as "
        "critical=0,high=2 (severities: critical, high, medium or low)");
  CHECK(Refusal("urgent=1") ==
        "'urgent=1': unknown severity 'urgent' (use critical, high, medium or low)");
  CHECK(Refusal("Critical=0") ==
        "'Critical=0': unknown severity 'Critical' (use critical, high, medium or low)");
  CHECK(Refusal("critical=0,high=-2") ==
        "'high=-2': the count '-2' is not a non-negative integer (at most 2147483647)");
  CHECK(Refusal("high=2.5") ==
        "'high=2.5': the count '2.5' is not a non-negative integer (at most 2147483647)");
  CHECK(Refusal("high=") ==
        "'high=': the count '' is not a non-negative integer (at most 2147483647)");
  CHECK(Refusal("high=+1").find("the count '+1'") != std::string::npos);
  CHECK(Refusal("high= 1").find("the count ' 1'") != std::string::npos);
  CHECK(Refusal("high=2147483648").find("at most 2147483647") != std::string::npos);
  CHECK(Refusal("high=99999999999").find("the count '99999999999'") != std::string::npos);
  CHECK(Refusal("high=2,high=3") == "'high=3': high is given twice");
  CHECK(Refusal("high") == "'high': not SEVERITY=COUNT (such as high=2)");
  CHECK(Refusal("critical=0,,low=1") ==
        "an empty item in 'critical=0,,low=1': items are SEVERITY=COUNT, separated by single "
        "commas");
  CHECK(Refusal("critical=0,").find("an empty item") != std::string::npos);
  CHECK(Refusal(" critical=0").find("unknown severity ' critical'") != std::string::npos);
}

TEST_CASE("the API's map is checked the same way", "[vulnerabilities]") {
  auto v = VulnerabilitiesFromMap({{"critical", 1}, {"low", 0}});
  REQUIRE(v.ok());
  CHECK(FormatVulnerabilities(*v) == "critical=1,low=0");
  auto unknown = VulnerabilitiesFromMap({{"Critical", 1}});
  REQUIRE_FALSE(unknown.ok());
  CHECK(unknown.status().message() ==
        "Vulnerabilities: unknown severity 'Critical' (use critical, high, medium or low)");
  auto negative = VulnerabilitiesFromMap({{"high", -1}});
  REQUIRE_FALSE(negative.ok());
  CHECK(negative.status().message() == "Vulnerabilities: high -1 is not a non-negative count");
}

TEST_CASE("an increase counts only severities both scans give", "[vulnerabilities]") {
  const Vulnerabilities before{{Severity::kCritical, 0}, {Severity::kHigh, 2}};
  CHECK(Increases(before, {{Severity::kCritical, 0}, {Severity::kHigh, 2}}).empty());
  CHECK(Increases(before, {{Severity::kCritical, 0}, {Severity::kHigh, 1}}).empty());
  CHECK(Increases(before, {{Severity::kLow, 50}}).empty());
  CHECK(Increases(before, {{Severity::kCritical, 1}, {Severity::kHigh, 3}}) ==
        "critical 0 -> 1, high 2 -> 3");
  CHECK(Increases({}, {{Severity::kCritical, 4}}).empty());
}

TEST_CASE("severity names round-trip", "[vulnerabilities]") {
  for (Severity s : kAllSeverities) CHECK(ParseSeverity(SeverityName(s)) == s);
  CHECK(ParseSeverity("") == std::nullopt);
  CHECK(ParseSeverity("CRITICAL") == std::nullopt);
}

}  // namespace
}  // namespace cub::domain
