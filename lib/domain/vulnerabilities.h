// Scan findings of a Release: how many vulnerabilities a scanner found, by severity.
//
// The severities are critical, high, medium and low, spelled in lower case as in the text a
// scanner sends (`--vulnerabilities critical=0,high=2,medium=5,low=9`), in the API's
// Release.Vulnerabilities map and in CEL gates (`Release.Vulnerabilities.critical == 0`).
// A scan reports the severities it counts: one it leaves out is not known (not zero), so a
// gate reading it fails closed.
#ifndef CUB_LIB_DOMAIN_VULNERABILITIES_H_
#define CUB_LIB_DOMAIN_VULNERABILITIES_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace cub::domain {

enum class Severity { kCritical, kHigh, kMedium, kLow };
inline constexpr Severity kAllSeverities[] = {Severity::kCritical, Severity::kHigh,
                                              Severity::kMedium, Severity::kLow};
std::optional<Severity> ParseSeverity(absl::string_view text);
absl::string_view SeverityName(Severity s);

// What one scan reported: a count per severity it gave, each at least 0.
using Vulnerabilities = std::map<Severity, int32_t>;

// Reads "critical=0,high=2,medium=5,low=9": one or more SEVERITY=COUNT items separated by
// commas, each severity at most once, each count a non-negative decimal integer (digits only,
// at most 2147483647). No spaces, no empty item. INVALID_ARGUMENT naming the offending item:
//   "'urgent=1': unknown severity 'urgent' (use critical, high, medium or low)"
//   "'high=-2': the count must be a non-negative integer"
//   "'high=3': high is given twice"
absl::StatusOr<Vulnerabilities> ParseVulnerabilities(absl::string_view text);

// The same checks over a map keyed by severity name, as the API carries it: INVALID_ARGUMENT
// naming the key or the value ("Vulnerabilities: unknown severity 'Critical' ...").
absl::StatusOr<Vulnerabilities> VulnerabilitiesFromMap(const std::map<std::string, int64_t>& m);

// "critical=0,high=2,medium=5,low=9", in severity order, only the severities given; "" for none.
std::string FormatVulnerabilities(const Vulnerabilities& v);

// The severities in which `now` reports more than `before` (both must give the severity),
// as "critical 0 -> 1, high 2 -> 3"; "" when none increased.
std::string Increases(const Vulnerabilities& before, const Vulnerabilities& now);

}  // namespace cub::domain

#endif  // CUB_LIB_DOMAIN_VULNERABILITIES_H_
