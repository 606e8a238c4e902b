#include "lib/ops/freeze_schedule.h"

#include <algorithm>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "re2/re2.h"

namespace cub::ops {
namespace {

absl::StatusOr<absl::Time> ParseInstant(absl::string_view field, const std::string& text) {
  absl::Time t;
  std::string err;
  if (!absl::ParseTime(absl::RFC3339_full, text, &t, &err)) {
    return absl::InvalidArgumentError(absl::StrCat(
        field, " '", text, "' is not an RFC 3339 time (like 2026-12-24T00:00:00Z): ", err));
  }
  return t;
}

absl::StatusOr<FreezeSchedule> ParseWindow(const FreezeScheduleText& in) {
  if (in.from.empty() || in.until.empty()) {
    return absl::InvalidArgumentError(absl::StrCat("a freeze window needs both From and Until; ",
                                                   in.from.empty() ? "From" : "Until",
                                                   " is missing"));
  }
  FreezeSchedule s;
  s.kind = FreezeKind::kWindow;
  auto from = ParseInstant("From", in.from);
  if (!from.ok()) return from.status();
  auto until = ParseInstant("Until", in.until);
  if (!until.ok()) return until.status();
  if (*until <= *from) {
    return absl::InvalidArgumentError(
        absl::StrCat("Until '", in.until, "' is not after From '", in.from, "'"));
  }
  s.from = *from;
  s.until = *until;
  return s;
}

absl::StatusOr<FreezeSchedule> ParseRecurring(const FreezeScheduleText& in) {
  FreezeSchedule s;
  s.kind = FreezeKind::kRecurring;
  auto cron = ParseCron(in.cron);
  if (!cron.ok())
    return absl::InvalidArgumentError(absl::StrCat("Cron: ", cron.status().message()));
  s.cron = *std::move(cron);
  if (in.duration.empty()) {
    return absl::InvalidArgumentError("Cron needs Duration: how long each window lasts");
  }
  auto d = ParseFreezeDuration(in.duration);
  if (!d.ok()) return d.status();
  s.duration = *d;
  s.time_zone = in.time_zone.empty() ? "UTC" : in.time_zone;
  // Only a name shaped like the IANA database's: abseil keeps every name it is asked to load,
  // found or not, and reads one starting with '/' as a file path.
  static const re2::RE2 kZoneName("[A-Za-z][A-Za-z0-9_+-]*(/[A-Za-z0-9_+-]+)*");
  if (s.time_zone.size() > 64 || !re2::RE2::FullMatch(s.time_zone, kZoneName) ||
      absl::StrContains(s.time_zone, "..") || !absl::LoadTimeZone(s.time_zone, &s.zone)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "TimeZone '", s.time_zone, "' is not a known time zone (an IANA name like Europe/Berlin)"));
  }
  return s;
}

}  // namespace

absl::string_view FreezeKindName(FreezeKind kind) {
  switch (kind) {
    case FreezeKind::kUntilDeleted:
      return "UntilDeleted";
    case FreezeKind::kWindow:
      return "Window";
    case FreezeKind::kRecurring:
      return "Recurring";
  }
  return "";
}

absl::StatusOr<absl::Duration> ParseFreezeDuration(absl::string_view text) {
  absl::string_view rest = absl::StripAsciiWhitespace(text);
  const std::string what = absl::StrCat("Duration '", text, "'");
  absl::Duration d;
  size_t digits = 0;
  while (digits < rest.size() && absl::ascii_isdigit(rest[digits])) ++digits;
  if (digits > 0 && digits < rest.size() && rest[digits] == 'd') {
    int days = 0;
    if (!absl::SimpleAtoi(rest.substr(0, digits), &days) || days > 366) {
      return absl::InvalidArgumentError(absl::StrCat(what, " is longer than 366 days"));
    }
    d = absl::Hours(24) * days;
    rest.remove_prefix(digits + 1);
  }
  if (!rest.empty()) {
    absl::Duration more;
    if (!absl::ParseDuration(rest, &more)) {
      return absl::InvalidArgumentError(
          absl::StrCat(what, " is not a duration (like 90m, 2h30m or 1d12h)"));
    }
    d += more;
  } else if (digits == 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, " is not a duration (like 90m, 2h30m or 1d12h)"));
  }
  if (d <= absl::ZeroDuration()) {
    return absl::InvalidArgumentError(absl::StrCat(what, " is not above zero"));
  }
  if (d > kMaxFreezeDuration) {
    return absl::InvalidArgumentError(absl::StrCat(what, " is longer than 366 days"));
  }
  return d;
}

absl::StatusOr<FreezeSchedule> ParseFreezeSchedule(const FreezeScheduleText& in) {
  const bool window = !in.from.empty() || !in.until.empty();
  const bool recurring = !in.cron.empty();
  if (window && recurring) {
    return absl::InvalidArgumentError(
        "give a window (From and Until) or a recurring one (Cron, Duration, TimeZone), not both");
  }
  if (!recurring && (!in.duration.empty() || !in.time_zone.empty())) {
    return absl::InvalidArgumentError(absl::StrCat(!in.duration.empty() ? "Duration" : "TimeZone",
                                                   " is for a recurring window: give Cron"));
  }
  if (window) return ParseWindow(in);
  if (recurring) return ParseRecurring(in);
  return FreezeSchedule();
}

FreezeState FreezeStateAt(const FreezeSchedule& s, absl::Time now) {
  FreezeState out;
  switch (s.kind) {
    case FreezeKind::kUntilDeleted:
      out.in_force = true;
      return out;
    case FreezeKind::kWindow:
      if (now < s.from) {
        out.next_start = s.from;
      } else if (now < s.until) {
        out.in_force = true;
        out.until = s.until;
      }
      return out;
    case FreezeKind::kRecurring:
      break;
  }
  // The first window still open after `now`: it started after now - duration.
  std::optional<absl::Time> start =
      NextCronTime(s.cron, s.zone, now - s.duration + absl::Nanoseconds(1));
  if (!start) return out;
  if (*start > now) {
    out.next_start = start;
    return out;
  }
  out.in_force = true;
  absl::Time end = *start + s.duration;
  for (int i = 0; i < kMaxChainedWindows; ++i) {
    std::optional<absl::Time> next = NextCronTime(s.cron, s.zone, *start + absl::Nanoseconds(1));
    if (!next || *next > end) break;
    start = next;
    end = std::max(end, *next + s.duration);
  }
  out.until = end;
  return out;
}

}  // namespace cub::ops
