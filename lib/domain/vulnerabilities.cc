#include "lib/domain/vulnerabilities.h"

#include <limits>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"

namespace cub::domain {
namespace {

constexpr char kSeverityList[] = "critical, high, medium or low";

absl::Status UnknownSeverity(absl::string_view where, absl::string_view name) {
  return absl::InvalidArgumentError(
      absl::StrCat(where, "unknown severity '", name, "' (use ", kSeverityList, ")"));
}

// A count: digits only, no sign, within int32.
std::optional<int32_t> ParseCount(absl::string_view text) {
  if (text.empty() || text.size() > 10) return std::nullopt;
  int64_t n = 0;
  for (char c : text) {
    if (!absl::ascii_isdigit(static_cast<unsigned char>(c))) return std::nullopt;
    n = n * 10 + (c - '0');
  }
  if (n > std::numeric_limits<int32_t>::max()) return std::nullopt;
  return static_cast<int32_t>(n);
}

}  // namespace

absl::string_view SeverityName(Severity s) {
  switch (s) {
    case Severity::kCritical:
      return "critical";
    case Severity::kHigh:
      return "high";
    case Severity::kMedium:
      return "medium";
    case Severity::kLow:
      return "low";
  }
  return "";
}

std::optional<Severity> ParseSeverity(absl::string_view text) {
  for (Severity s : kAllSeverities) {
    if (SeverityName(s) == text) return s;
  }
  return std::nullopt;
}

absl::StatusOr<Vulnerabilities> ParseVulnerabilities(absl::string_view text) {
  if (text.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("no findings given: use SEVERITY=COUNT items separated by commas, such as "
                     "critical=0,high=2 (severities: ",
                     kSeverityList, ")"));
  }
  Vulnerabilities out;
  for (absl::string_view item : absl::StrSplit(text, ',')) {
    const std::string where = absl::StrCat("'", item, "': ");
    if (item.empty()) {
      return absl::InvalidArgumentError(absl::StrCat("an empty item in '", text,
                                                     "': items are SEVERITY=COUNT, separated by"
                                                     " single commas"));
    }
    const size_t eq = item.find('=');
    if (eq == absl::string_view::npos) {
      return absl::InvalidArgumentError(absl::StrCat(where, "not SEVERITY=COUNT (such as high=2)"));
    }
    const absl::string_view name = item.substr(0, eq);
    const absl::string_view count = item.substr(eq + 1);
    std::optional<Severity> s = ParseSeverity(name);
    if (!s) return UnknownSeverity(where, name);
    std::optional<int32_t> n = ParseCount(count);
    if (!n) {
      return absl::InvalidArgumentError(absl::StrCat(
          where, "the count '", count, "' is not a non-negative integer (at most 2147483647)"));
    }
    if (!out.emplace(*s, *n).second) {
      return absl::InvalidArgumentError(absl::StrCat(where, name, " is given twice"));
    }
  }
  return out;
}

absl::StatusOr<Vulnerabilities> VulnerabilitiesFromMap(const std::map<std::string, int64_t>& m) {
  Vulnerabilities out;
  for (const auto& [name, count] : m) {
    std::optional<Severity> s = ParseSeverity(name);
    if (!s) return UnknownSeverity("Vulnerabilities: ", name);
    if (count < 0 || count > std::numeric_limits<int32_t>::max()) {
      return absl::InvalidArgumentError(
          absl::StrCat("Vulnerabilities: ", name, " ", count, " is not a non-negative count"));
    }
    out[*s] = static_cast<int32_t>(count);
  }
  return out;
}

std::string FormatVulnerabilities(const Vulnerabilities& v) {
  std::vector<std::string> parts;
  for (const auto& [s, n] : v) parts.push_back(absl::StrCat(SeverityName(s), "=", n));
  return absl::StrJoin(parts, ",");
}

std::string Increases(const Vulnerabilities& before, const Vulnerabilities& now) {
  std::vector<std::string> parts;
  for (const auto& [s, n] : now) {
    auto it = before.find(s);
    if (it != before.end() && n > it->second) {
      parts.push_back(absl::StrCat(SeverityName(s), " ", it->second, " -> ", n));
    }
  }
  return absl::StrJoin(parts, ", ");
}

}  // namespace cub::domain
