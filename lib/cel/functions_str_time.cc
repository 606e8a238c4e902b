// String functions (contains, startsWith, endsWith, matches) and the timestamp and duration
// accessors (getFullYear ... getMilliseconds).

#include <memory>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/civil_time.h"
#include "lib/cel/functions.h"
#include "lib/cel/time_util.h"
#include "lib/util/bounded_regex.h"
#include "re2/re2.h"

namespace cub::cel::internal {

namespace {

using K = Value::Kind;

Value Matches(const CallArgs& c, const Value& text, const Value& pattern) {
  if (text.kind() != K::kString || pattern.kind() != K::kString) return NoOverload(c);
  if (c.regex != nullptr) return Value::Bool(RE2::PartialMatch(text.str(), *c.regex));
  absl::StatusOr<std::shared_ptr<const RE2>> re =
      CompileBoundedRegex(pattern.str(), RE2::Options(), RegexBudget());
  if (!re.ok()) return Value::Error(std::string(re.status().message()));
  return Value::Bool(RE2::PartialMatch(text.str(), **re));
}

Value TimestampPart(const CallArgs& c) {
  const std::string& f = c.function;
  absl::TimeZone tz = absl::UTCTimeZone();
  if (c.values.size() == 2) {
    if (c.values[1].kind() != K::kString) return NoOverload(c);
    absl::StatusOr<absl::TimeZone> parsed = ParseTimeZone(c.values[1].str());
    if (!parsed.ok()) return Value::Error(std::string(parsed.status().message()));
    tz = *parsed;
  }
  absl::Time t = c.values[0].timestamp_value();
  absl::CivilSecond cs = absl::ToCivilSecond(t, tz);
  if (f == "getFullYear") return Value::Int(cs.year());
  if (f == "getMonth") return Value::Int(cs.month() - 1);
  if (f == "getDate") return Value::Int(cs.day());
  if (f == "getDayOfMonth") return Value::Int(cs.day() - 1);
  if (f == "getDayOfYear") return Value::Int(absl::GetYearDay(absl::CivilDay(cs)) - 1);
  if (f == "getDayOfWeek") {
    // absl: Monday..Sunday = 0..6; CEL: Sunday = 0.
    return Value::Int((static_cast<int>(absl::GetWeekday(absl::CivilDay(cs))) + 1) % 7);
  }
  if (f == "getHours") return Value::Int(cs.hour());
  if (f == "getMinutes") return Value::Int(cs.minute());
  if (f == "getSeconds") return Value::Int(cs.second());
  if (f == "getMilliseconds") {
    return Value::Int(absl::ToInt64Milliseconds(t - absl::FromCivil(cs, tz)));
  }
  return NoOverload(c);
}

Value DurationPart(const CallArgs& c) {
  const std::string& f = c.function;
  absl::Duration d = c.values[0].duration_value();
  if (c.values.size() != 1) return NoOverload(c);
  if (f == "getHours") return Value::Int(absl::IDivDuration(d, absl::Hours(1), &d));
  if (f == "getMinutes") return Value::Int(absl::IDivDuration(d, absl::Minutes(1), &d));
  if (f == "getSeconds") return Value::Int(absl::IDivDuration(d, absl::Seconds(1), &d));
  if (f == "getMilliseconds") {
    absl::Duration rem;
    absl::IDivDuration(d, absl::Seconds(1), &rem);
    return Value::Int(absl::ToInt64Milliseconds(rem));
  }
  return NoOverload(c);
}

bool IsTimeAccessor(const std::string& f) {
  static const char* const kNames[] = {
      "getFullYear",  "getMonth", "getDate",    "getDayOfMonth", "getDayOfWeek",
      "getDayOfYear", "getHours", "getMinutes", "getSeconds",    "getMilliseconds"};
  for (const char* n : kNames) {
    if (f == n) return true;
  }
  return false;
}

}  // namespace

Value CallStringTime(const CallArgs& c, bool* handled) {
  *handled = true;
  const std::string& f = c.function;
  const std::vector<Value>& v = c.values;
  if (f == "matches" && v.size() == 2) return Matches(c, v[0], v[1]);
  if (c.receiver && (f == "contains" || f == "startsWith" || f == "endsWith")) {
    if (v.size() != 2 || v[0].kind() != K::kString || v[1].kind() != K::kString) {
      return NoOverload(c);
    }
    if (f == "contains") return Value::Bool(absl::StrContains(v[0].str(), v[1].str()));
    if (f == "startsWith") return Value::Bool(absl::StartsWith(v[0].str(), v[1].str()));
    return Value::Bool(absl::EndsWith(v[0].str(), v[1].str()));
  }
  if (c.receiver && IsTimeAccessor(f) && !v.empty()) {
    if (v[0].kind() == K::kTimestamp && v.size() <= 2) return TimestampPart(c);
    if (v[0].kind() == K::kDuration) return DurationPart(c);
    return NoOverload(c);
  }
  if (f == "matches") return NoOverload(c);
  *handled = false;
  return Value();
}

}  // namespace cub::cel::internal
