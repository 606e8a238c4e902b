#include "lib/util/cron.h"

#include <algorithm>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/time/civil_time.h"

namespace cub {
namespace {

struct FieldSpec {
  const char* name;
  int min;
  int max;
};

constexpr FieldSpec kFields[] = {{"minute", 0, 59},
                                 {"hour", 0, 23},
                                 {"day-of-month", 1, 31},
                                 {"month", 1, 12},
                                 {"day-of-week", 0, 7}};

absl::Status FieldError(const FieldSpec& f, absl::string_view item, absl::string_view why) {
  return absl::InvalidArgumentError(absl::StrCat("cron ", f.name, " field: '", item, "' ", why,
                                                 " (", f.name, " is ", f.min, "-", f.max, ")"));
}

absl::StatusOr<int> Value(const FieldSpec& f, absl::string_view item, absl::string_view text) {
  int v = 0;
  if (text.empty() || !absl::SimpleAtoi(text, &v) || text[0] == '+' || text[0] == '-') {
    return FieldError(f, item, "is not a number, range or step");
  }
  if (v < f.min || v > f.max) return FieldError(f, item, "is out of range");
  return v;
}

// The values `field` names (each within f.min..f.max), as a set of flags indexed by value.
absl::StatusOr<std::vector<bool>> ParseField(const FieldSpec& f, absl::string_view field) {
  std::vector<bool> out(f.max + 1, false);
  for (absl::string_view item : absl::StrSplit(field, ',')) {
    if (item.empty()) return FieldError(f, field, "has an empty item");
    std::vector<absl::string_view> parts = absl::StrSplit(item, absl::MaxSplits('/', 1));
    int step = 1;
    if (parts.size() == 2) {
      if (!absl::SimpleAtoi(parts[1], &step) || step < 1 || parts[1][0] == '+') {
        return FieldError(f, item, "has a step that is not a positive number");
      }
    }
    int lo = f.min, hi = f.max;
    if (parts[0] != "*") {
      std::vector<absl::string_view> range = absl::StrSplit(parts[0], absl::MaxSplits('-', 1));
      auto a = Value(f, item, range[0]);
      if (!a.ok()) return a.status();
      lo = *a;
      hi = parts.size() == 2 ? f.max : lo;  // "10/20": from 10 to the maximum
      if (range.size() == 2) {
        auto b = Value(f, item, range[1]);
        if (!b.ok()) return b.status();
        hi = *b;
        if (hi < lo) return FieldError(f, item, "is a range that ends before it starts");
      }
    }
    for (int v = lo; v <= hi; v += step) out[v] = true;
  }
  return out;
}

template <size_t N>
std::bitset<N> Bits(const std::vector<bool>& v) {
  std::bitset<N> b;
  for (size_t i = 0; i < v.size() && i < N; ++i) b[i] = v[i];
  return b;
}

// Whether some month of `e` has some day of its day-of-month field (February counting 29).
bool SomeMonthHasADay(const CronExpr& e) {
  constexpr int kDays[] = {0, 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  for (int m = 1; m <= 12; ++m) {
    if (!e.months[m]) continue;
    for (int d = 1; d <= kDays[m]; ++d) {
      if (e.days_of_month[d]) return true;
    }
  }
  return false;
}

bool DayMatches(const CronExpr& e, absl::CivilDay day) {
  if (!e.months[day.month()]) return false;
  // absl: Monday 0 ... Sunday 6; cron: Sunday 0.
  const int dow = (static_cast<int>(absl::GetWeekday(day)) + 1) % 7;
  const bool dom_ok = e.days_of_month[day.day()];
  const bool dow_ok = e.days_of_week[dow];
  if (e.any_day_of_month && e.any_day_of_week) return true;
  if (e.any_day_of_month) return dow_ok;
  if (e.any_day_of_week) return dom_ok;
  return dom_ok || dow_ok;
}

// The moment local time `cm` names: a skipped time at the change, a repeated one the first time.
absl::Time Resolve(const absl::TimeZone& zone, absl::CivilMinute cm) {
  absl::TimeZone::TimeInfo ti = zone.At(absl::CivilSecond(cm));
  if (ti.kind == absl::TimeZone::TimeInfo::SKIPPED) return ti.trans;
  if (ti.kind == absl::TimeZone::TimeInfo::REPEATED) return std::min(ti.pre, ti.post);
  return ti.pre;
}

}  // namespace

absl::StatusOr<CronExpr> ParseCron(absl::string_view text) {
  text = absl::StripAsciiWhitespace(text);
  std::vector<absl::string_view> fields = absl::StrSplit(text, ' ', absl::SkipEmpty());
  if (fields.size() != 5) {
    return absl::InvalidArgumentError(
        absl::StrCat("cron expression '", text, "' has ", fields.size(),
                     " fields; it needs 5: minute hour day-of-month month day-of-week"));
  }
  std::vector<std::vector<bool>> v;
  for (size_t i = 0; i < 5; ++i) {
    auto f = ParseField(kFields[i], fields[i]);
    if (!f.ok()) return f.status();
    v.push_back(*std::move(f));
  }
  CronExpr e;
  e.text = std::string(text);
  e.minutes = Bits<60>(v[0]);
  e.hours = Bits<24>(v[1]);
  e.days_of_month = Bits<32>(v[2]);
  e.months = Bits<13>(v[3]);
  if (v[4][7]) v[4][0] = true;  // 7 is Sunday too
  e.days_of_week = Bits<7>(v[4]);
  e.any_day_of_month = e.days_of_month.count() == 31;
  e.any_day_of_week = e.days_of_week.count() == 7;
  if (!e.any_day_of_month && e.any_day_of_week && !SomeMonthHasADay(e)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "cron expression '", text, "' never fires: no month it names has the days it names"));
  }
  return e;
}

std::optional<absl::Time> NextCronTime(const CronExpr& expr, const absl::TimeZone& zone,
                                       absl::Time from) {
  // Local times a few hours before `from`'s may still resolve to `from` or later near a
  // change of offset (a skipped time resolves to the change): start the scan there.
  const absl::CivilMinute start = absl::ToCivilMinute(from, zone) - 3 * 60;
  absl::CivilDay day(start);
  for (int i = 0; i <= kCronHorizonDays; ++i, ++day) {
    if (!DayMatches(expr, day)) continue;
    for (int h = 0; h < 24; ++h) {
      if (!expr.hours[h]) continue;
      for (int m = 0; m < 60; ++m) {
        if (!expr.minutes[m]) continue;
        absl::CivilMinute cm(day.year(), day.month(), day.day(), h, m);
        if (cm < start) continue;
        absl::Time t = Resolve(zone, cm);
        if (t >= from) return t;
      }
    }
  }
  return std::nullopt;
}

}  // namespace cub
