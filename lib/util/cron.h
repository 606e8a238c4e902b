// Five-field cron expressions ("minute hour day-of-month month day-of-week") and the search
// for the moments they name in a time zone, for recurring freeze windows.
//
// Each field is a comma-separated list of items: `*`, a value, a range `a-b`, or either of
// those with a step (`*/15`, `1-5/2`, `10/20` = 10 to the field's maximum by 20). Months are
// 1-12, days of the week 0-7 (0 and 7 are Sunday); names (JAN, MON) are not read. As in
// classic cron, when both day-of-month and day-of-week are restricted (neither is `*`), a day
// matches if either does.
//
// An expression that can never fire (day-of-month 30 or 31 only in February, 31 only in
// months of 30 days) is refused by ParseCron; every accepted expression fires at least once in
// any span of kCronHorizonDays, which bounds every search (February 29 fires within 8 years).
//
// Local times are read in the zone given: a time skipped by a daylight-saving change fires at
// the change (02:30 on a spring-forward night fires at 03:00 local, the first minute that
// exists), a time that occurs twice fires at its first occurrence only.
//
// Value types; thread-compatible. No I/O.
#ifndef CUB_LIB_UTIL_CRON_H_
#define CUB_LIB_UTIL_CRON_H_

#include <bitset>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace cub {

// Long enough to contain a fire time of every accepted expression, from any start.
inline constexpr int kCronHorizonDays = 8 * 366 + 2;

struct CronExpr {
  std::bitset<60> minutes;
  std::bitset<24> hours;
  std::bitset<32> days_of_month;  // 1-31
  std::bitset<13> months;         // 1-12
  std::bitset<7> days_of_week;    // 0-6, Sunday 0
  bool any_day_of_month = true;   // the field was `*` (or `*/1`)
  bool any_day_of_week = true;
  std::string text;  // as written, trimmed
};

// INVALID_ARGUMENT naming the field and the item that is wrong, or that it never fires.
absl::StatusOr<CronExpr> ParseCron(absl::string_view text);

// The first moment at or after `from` that `expr` names in `zone`; nullopt only if none lies
// within kCronHorizonDays (which ParseCron rules out).
std::optional<absl::Time> NextCronTime(const CronExpr& expr, const absl::TimeZone& zone,
                                       absl::Time from);

}  // namespace cub

#endif  // CUB_LIB_UTIL_CRON_H_
