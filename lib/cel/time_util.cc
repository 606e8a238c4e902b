#include "lib/cel/time_util.h"

#include <cstdlib>
#include <limits>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/civil_time.h"
#include "lib/cel/absl_compat.h"

namespace cub::cel {

namespace {

constexpr int64_t kMinUnixSeconds = -62135596800;  // 0001-01-01T00:00:00Z
constexpr int64_t kMaxUnixSeconds = 253402300799;  // 9999-12-31T23:59:59Z

absl::Status RangeError(std::string_view what) {
  return absl::OutOfRangeError(absl::StrCat("range error: ", internal::Sv(what)));
}

// Reads exactly `n` digits at `*pos` into `*out`.
bool Digits(std::string_view s, size_t* pos, int n, int* out) {
  if (*pos + n > s.size()) return false;
  int v = 0;
  for (int i = 0; i < n; ++i) {
    char c = s[*pos + i];
    if (!absl::ascii_isdigit(c)) return false;
    v = v * 10 + (c - '0');
  }
  *pos += n;
  *out = v;
  return true;
}

bool Expect(std::string_view s, size_t* pos, char c) {
  if (*pos >= s.size() || absl::ascii_tolower(s[*pos]) != absl::ascii_tolower(c)) return false;
  ++*pos;
  return true;
}

}  // namespace

bool TimestampInRange(absl::Time t) {
  return t >= absl::FromUnixSeconds(kMinUnixSeconds) &&
         t < absl::FromUnixSeconds(kMaxUnixSeconds + 1);
}

bool DurationInRange(absl::Duration d) {
  return d >= absl::Nanoseconds(std::numeric_limits<int64_t>::min()) &&
         d <= absl::Nanoseconds(std::numeric_limits<int64_t>::max());
}

absl::StatusOr<absl::Time> ParseTimestamp(std::string_view text) {
  auto bad = [&] {
    return absl::InvalidArgumentError(absl::StrCat("invalid timestamp '", internal::Sv(text),
                                                   "' (want RFC 3339, e.g. 2026-12-24T00:00:00Z)"));
  };
  size_t pos = 0;
  int year, month, day, hour, minute, second;
  if (text.size() >= 5 && absl::ascii_isdigit(text[0]) && absl::ascii_isdigit(text[4])) {
    return RangeError(absl::StrCat("timestamp '", internal::Sv(text), "' is after 9999-12-31"));
  }
  if (!Digits(text, &pos, 4, &year) || !Expect(text, &pos, '-') || !Digits(text, &pos, 2, &month) ||
      !Expect(text, &pos, '-') || !Digits(text, &pos, 2, &day) || !Expect(text, &pos, 'T') ||
      !Digits(text, &pos, 2, &hour) || !Expect(text, &pos, ':') ||
      !Digits(text, &pos, 2, &minute) || !Expect(text, &pos, ':') ||
      !Digits(text, &pos, 2, &second)) {
    return bad();
  }
  int64_t nanos = 0;
  if (pos < text.size() && text[pos] == '.') {
    ++pos;
    int n = 0;
    while (pos < text.size() && absl::ascii_isdigit(text[pos])) {
      if (n == 9) return bad();
      nanos = nanos * 10 + (text[pos] - '0');
      ++n;
      ++pos;
    }
    if (n == 0) return bad();
    for (; n < 9; ++n) nanos *= 10;
  }
  int offset = 0;
  if (Expect(text, &pos, 'Z')) {
  } else if (pos < text.size() && (text[pos] == '+' || text[pos] == '-')) {
    int sign = text[pos] == '-' ? -1 : 1;
    ++pos;
    int oh, om;
    if (!Digits(text, &pos, 2, &oh) || !Expect(text, &pos, ':') || !Digits(text, &pos, 2, &om) ||
        oh > 23 || om > 59) {
      return bad();
    }
    offset = sign * (oh * 3600 + om * 60);
  } else {
    return bad();
  }
  if (pos != text.size()) return bad();
  absl::CivilSecond cs(year, month, day, hour, minute, second);
  if (cs.year() != year || cs.month() != month || cs.day() != day || cs.hour() != hour ||
      cs.minute() != minute || cs.second() != second) {
    return bad();  // e.g. 2026-02-30 or 25:00
  }
  if (year == 0)
    return RangeError(absl::StrCat("timestamp '", internal::Sv(text), "' is before 0001-01-01"));
  absl::Time t =
      absl::FromCivil(cs, absl::UTCTimeZone()) - absl::Seconds(offset) + absl::Nanoseconds(nanos);
  if (!TimestampInRange(t)) {
    return RangeError(
        absl::StrCat("timestamp '", internal::Sv(text), "' is outside 0001-01-01..9999-12-31"));
  }
  return t;
}

absl::StatusOr<absl::Time> TimestampFromUnixSeconds(int64_t seconds) {
  if (seconds < kMinUnixSeconds || seconds > kMaxUnixSeconds) {
    return RangeError(absl::StrCat("timestamp(", seconds, ") is outside 0001-01-01..9999-12-31"));
  }
  return absl::FromUnixSeconds(seconds);
}

absl::StatusOr<absl::Duration> ParseDuration(std::string_view text) {
  absl::Duration d;
  std::string lower = absl::AsciiStrToLower(internal::Sv(text));
  if (lower.find("inf") != std::string::npos || !absl::ParseDuration(internal::Sv(text), &d)) {
    return absl::InvalidArgumentError(absl::StrCat("invalid duration '", internal::Sv(text),
                                                   "' (want e.g. 72h, 1h30m, 1.5s, 250ms)"));
  }
  if (!DurationInRange(d)) {
    return RangeError(absl::StrCat("duration '", internal::Sv(text), "' is outside +-292 years"));
  }
  return d;
}

std::string TimestampToString(absl::Time t) {
  absl::CivilSecond cs = absl::ToCivilSecond(t, absl::UTCTimeZone());
  int64_t nanos =
      absl::ToInt64Nanoseconds(t - absl::FromCivil(cs, absl::UTCTimeZone()));  // [0, 1s)
  std::string out = absl::StrFormat("%04d-%02d-%02dT%02d:%02d:%02d", cs.year(), cs.month(),
                                    cs.day(), cs.hour(), cs.minute(), cs.second());
  if (nanos > 0) {
    std::string frac = absl::StrFormat("%09d", nanos);
    while (frac.back() == '0') frac.pop_back();
    absl::StrAppend(&out, ".", frac);
  }
  out.push_back('Z');
  return out;
}

std::string DurationToString(absl::Duration d) {
  std::string out;
  if (d < absl::ZeroDuration()) {
    out.push_back('-');
    d = -d;
  }
  absl::Duration rem;
  int64_t seconds = absl::IDivDuration(d, absl::Seconds(1), &rem);
  absl::StrAppend(&out, seconds);
  int64_t nanos = absl::ToInt64Nanoseconds(rem);
  if (nanos > 0) {
    std::string frac = absl::StrFormat("%09d", nanos);
    while (frac.back() == '0') frac.pop_back();
    absl::StrAppend(&out, ".", frac);
  }
  out.push_back('s');
  return out;
}

absl::StatusOr<absl::TimeZone> ParseTimeZone(std::string_view text) {
  // [+-]HH:MM
  std::string_view s = text;
  int sign = 1;
  if (!s.empty() && (s[0] == '+' || s[0] == '-')) {
    sign = s[0] == '-' ? -1 : 1;
    s.remove_prefix(1);
  }
  size_t pos = 0;
  int h, m;
  if (s.size() == 5 && Digits(s, &pos, 2, &h) && Expect(s, &pos, ':') && Digits(s, &pos, 2, &m)) {
    if (h > 23 || m > 59) {
      return absl::InvalidArgumentError(
          absl::StrCat("invalid time zone offset '", internal::Sv(text), "'"));
    }
    return absl::FixedTimeZone(sign * (h * 3600 + m * 60));
  }
  // IANA names only (Area/Location, letters, digits, _ + -): no paths into the file system.
  bool plausible = !text.empty() && text.size() <= 64 && text[0] != '/' &&
                   text.find("..") == std::string_view::npos;
  for (char c : text) {
    if (!absl::ascii_isalnum(c) && c != '/' && c != '_' && c != '+' && c != '-') {
      plausible = false;
    }
  }
  absl::TimeZone tz;
  if (!plausible || !absl::LoadTimeZone(std::string(text), &tz)) {
    return absl::InvalidArgumentError(absl::StrCat("unknown time zone '", internal::Sv(text), "'"));
  }
  return tz;
}

}  // namespace cub::cel
