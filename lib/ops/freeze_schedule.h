// When a freeze is in force: always until it is deleted (stop the line), during one absolute
// window, or during windows that recur at the times of a cron expression in a time zone.
//
// A window holds from its start (included) to its end (excluded). Recurring windows that
// overlap or touch are one: in force until the end of the last of them, looked for over at
// most kMaxChainedWindows windows (beyond that the end reported is a lower bound).
//
// Pure: no I/O but loading the named time zone (absl::LoadTimeZone). Thread-compatible.
#ifndef CUB_LIB_OPS_FREEZE_SCHEDULE_H_
#define CUB_LIB_OPS_FREEZE_SCHEDULE_H_

#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "lib/util/cron.h"

namespace cub::ops {

inline constexpr int kMaxChainedWindows = 500;
// The longest a recurring window may last.
inline constexpr absl::Duration kMaxFreezeDuration = absl::Hours(24 * 366);

enum class FreezeKind { kUntilDeleted, kWindow, kRecurring };
// "UntilDeleted", "Window", "Recurring".
absl::string_view FreezeKindName(FreezeKind kind);

struct FreezeSchedule {
  FreezeKind kind = FreezeKind::kUntilDeleted;
  absl::Time from;  // kWindow
  absl::Time until;
  CronExpr cron;  // kRecurring: a window starts at each time it names
  absl::Duration duration;
  std::string time_zone;  // its IANA name
  absl::TimeZone zone;
};

// The schedule as given, in text (flags, API fields); all empty: until deleted.
struct FreezeScheduleText {
  std::string from, until;                // RFC 3339
  std::string cron, duration, time_zone;  // duration "90m", "2h", "1d12h"; zone default UTC
};

// INVALID_ARGUMENT naming the field (From, Until, Cron, Duration, TimeZone) that is wrong: a
// time that is not RFC 3339, Until not after From, one of From/Until without the other, both
// a window and a cron expression, Duration or TimeZone without Cron, a bad cron expression or
// one that never fires, a duration not above zero or over kMaxFreezeDuration, an unknown zone.
absl::StatusOr<FreezeSchedule> ParseFreezeSchedule(const FreezeScheduleText& text);

// "90m", "2h30m", "3d", "1d12h": absl's durations, plus a leading whole number of days.
absl::StatusOr<absl::Duration> ParseFreezeDuration(absl::string_view text);

struct FreezeState {
  bool in_force = false;
  // In force: when it ends (unset: until deleted). The time the freeze's gate can hold again.
  std::optional<absl::Time> until;
  // Not in force: when it next begins (unset: never again, as for a window that has ended).
  std::optional<absl::Time> next_start;
};

FreezeState FreezeStateAt(const FreezeSchedule& s, absl::Time now);

}  // namespace cub::ops

#endif  // CUB_LIB_OPS_FREEZE_SCHEDULE_H_
