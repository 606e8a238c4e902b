// Tests for lib/util/cron (five-field expressions and their next fire time in a zone) and
// lib/ops/freeze_schedule (when a freeze is in force, and until when): lists, ranges, steps,
// daylight-saving changes, expressions that never fire, and malformed schedules.

#include "lib/ops/freeze_schedule.h"

#include <catch2/catch.hpp>
#include <string>

#include "absl/time/time.h"
#include "lib/util/cron.h"

namespace cub {
namespace {

absl::Time At(const std::string& rfc3339) {
  absl::Time t;
  std::string err;
  REQUIRE(absl::ParseTime(absl::RFC3339_full, rfc3339, &t, &err));
  return t;
}

std::string Text(absl::Time t) {
  return absl::FormatTime("%Y-%m-%dT%H:%M:%SZ", t, absl::UTCTimeZone());
}

absl::TimeZone Zone(const std::string& name) {
  absl::TimeZone z;
  REQUIRE(absl::LoadTimeZone(name, &z));
  return z;
}

std::string Next(const std::string& expr, const std::string& zone, const std::string& from) {
  auto e = ParseCron(expr);
  REQUIRE(e.ok());
  auto t = NextCronTime(*e, Zone(zone), At(from));
  REQUIRE(t.has_value());
  return Text(*t);
}

TEST_CASE("cron: lists, ranges and steps name the values they should") {
  auto e = ParseCron("*/15 9-17 1,15 * 1-5");
  REQUIRE(e.ok());
  CHECK(e->minutes.count() == 4);
  CHECK(e->minutes[0]);
  CHECK(e->minutes[45]);
  CHECK(e->hours.count() == 9);
  CHECK(e->days_of_month.count() == 2);
  CHECK(e->days_of_week.count() == 5);
  CHECK_FALSE(e->days_of_week[0]);

  auto stepped = ParseCron("1-10/3 10/20 * * *");
  REQUIRE(stepped.ok());
  CHECK(stepped->minutes.count() == 4);  // 1, 4, 7, 10
  CHECK(stepped->minutes[10]);
  CHECK(stepped->hours.count() == 1);  // hour 10 to 23 by 20: 10 only
  CHECK(stepped->hours[10]);

  auto sunday = ParseCron("0 0 * * 7");
  REQUIRE(sunday.ok());
  CHECK(sunday->days_of_week[0]);
  CHECK(sunday->days_of_week.count() == 1);
}

TEST_CASE("cron: malformed expressions are refused naming the field") {
  auto fields = ParseCron("0 0 * *");
  CHECK(absl::IsInvalidArgument(fields.status()));
  CHECK(fields.status().message().find("has 4 fields") != std::string::npos);
  CHECK(ParseCron("60 * * * *").status().message().find("minute field: '60' is out of range") !=
        std::string::npos);
  CHECK(ParseCron("* 5-1 * * *").status().message().find("hour field") != std::string::npos);
  CHECK(ParseCron("*/0 * * * *").status().message().find("step") != std::string::npos);
  CHECK(ParseCron("x * * * *").status().message().find("not a number") != std::string::npos);
  CHECK(ParseCron("* * 0 * *").status().message().find("day-of-month") != std::string::npos);
  CHECK(ParseCron("* * * 13 *").status().message().find("month field") != std::string::npos);
  CHECK(ParseCron("* * * * 8").status().message().find("day-of-week") != std::string::npos);
  CHECK(!ParseCron("1,,2 * * * *").ok());
  CHECK(!ParseCron("-1 * * * *").ok());
}

TEST_CASE("cron: an expression that never fires is refused; February 29 is not") {
  auto feb30 = ParseCron("0 0 30 2 *");
  CHECK(absl::IsInvalidArgument(feb30.status()));
  CHECK(feb30.status().message().find("never fires") != std::string::npos);
  CHECK(!ParseCron("0 0 31 4,6,9,11 *").ok());
  CHECK(!ParseCron("0 0 30,31 2 *").ok());
  // With a day of the week as well, a day matches if either does: it fires on Mondays.
  CHECK(ParseCron("0 0 30 2 1").ok());
  // February 29 only: the next one, three years away, is found within the search's bound.
  CHECK(Next("0 12 29 2 *", "UTC", "2029-03-01T00:00:00Z") == "2032-02-29T12:00:00Z");
}

TEST_CASE("cron: the next fire time, in UTC") {
  CHECK(Next("*/15 * * * *", "UTC", "2026-12-01T10:07:00Z") == "2026-12-01T10:15:00Z");
  // At a fire time exactly: that one.
  CHECK(Next("*/15 * * * *", "UTC", "2026-12-01T10:15:00Z") == "2026-12-01T10:15:00Z");
  CHECK(Next("0 18 * * 5", "UTC", "2026-12-01T10:00:00Z") == "2026-12-04T18:00:00Z");
  CHECK(Next("0 0 1 1 *", "UTC", "2026-12-01T10:00:00Z") == "2027-01-01T00:00:00Z");
  // Day of month OR day of week: Friday the 4th comes before the 13th.
  CHECK(Next("0 0 13 * 5", "UTC", "2026-12-01T00:00:00Z") == "2026-12-04T00:00:00Z");
}

TEST_CASE("cron: local times in a zone, across daylight-saving changes") {
  // New York: 09:00 local is 14:00Z in winter, 13:00Z in summer.
  CHECK(Next("0 9 * * *", "America/New_York", "2026-12-01T00:00:00Z") == "2026-12-01T14:00:00Z");
  CHECK(Next("0 9 * * *", "America/New_York", "2027-07-01T00:00:00Z") == "2027-07-01T13:00:00Z");
  // Berlin springs forward on 2027-03-28 at 02:00 CET: 02:30 does not exist that night and
  // fires at the change (03:00 CEST = 01:00Z).
  CHECK(Next("30 2 * * *", "Europe/Berlin", "2027-03-27T23:00:00Z") == "2027-03-28T01:00:00Z");
  // Berlin falls back on 2027-10-31 at 03:00 CEST: 02:30 happens twice and fires the first time
  // (CEST, 00:30Z); the next is the following night's.
  CHECK(Next("30 2 * * *", "Europe/Berlin", "2027-10-30T23:00:00Z") == "2027-10-31T00:30:00Z");
  CHECK(Next("30 2 * * *", "Europe/Berlin", "2027-10-31T00:30:01Z") == "2027-11-01T01:30:00Z");
}

}  // namespace

namespace ops {
namespace {

FreezeSchedule Parse(FreezeScheduleText t) {
  auto s = ParseFreezeSchedule(t);
  REQUIRE(s.ok());
  return *s;
}

std::string ErrorOf(FreezeScheduleText t) {
  auto s = ParseFreezeSchedule(t);
  REQUIRE_FALSE(s.ok());
  CHECK(absl::IsInvalidArgument(s.status()));
  return std::string(s.status().message());
}

TEST_CASE("freeze schedule: without one, in force until deleted") {
  FreezeSchedule s = Parse({});
  CHECK(s.kind == FreezeKind::kUntilDeleted);
  FreezeState st = FreezeStateAt(s, At("2026-12-01T00:00:00Z"));
  CHECK(st.in_force);
  CHECK_FALSE(st.until.has_value());
}

TEST_CASE("freeze schedule: an absolute window, start included and end excluded") {
  FreezeSchedule s = Parse({"2026-12-24T00:00:00Z", "2027-01-02T00:00:00Z", "", "", ""});
  FreezeState before = FreezeStateAt(s, At("2026-12-23T23:59:59Z"));
  CHECK_FALSE(before.in_force);
  CHECK(Text(*before.next_start) == "2026-12-24T00:00:00Z");
  FreezeState during = FreezeStateAt(s, At("2026-12-24T00:00:00Z"));
  CHECK(during.in_force);
  CHECK(Text(*during.until) == "2027-01-02T00:00:00Z");
  FreezeState after = FreezeStateAt(s, At("2027-01-02T00:00:00Z"));
  CHECK_FALSE(after.in_force);
  CHECK_FALSE(after.next_start.has_value());
  // Offsets other than Z are read as the instant they name.
  FreezeSchedule berlin = Parse({"2026-12-24T01:00:00+01:00", "2026-12-25T00:00:00Z", "", "", ""});
  CHECK(berlin.from == At("2026-12-24T00:00:00Z"));
}

TEST_CASE("freeze schedule: recurring windows in force and until when") {
  // Friday 18:00 to Monday 10:00 in Berlin (64h).
  FreezeSchedule s = Parse({"", "", "0 18 * * 5", "64h", "Europe/Berlin"});
  CHECK(s.kind == FreezeKind::kRecurring);
  FreezeState sat = FreezeStateAt(s, At("2026-12-05T12:00:00Z"));
  CHECK(sat.in_force);
  CHECK(Text(*sat.until) == "2026-12-07T09:00:00Z");  // Monday 10:00 CET
  FreezeState tue = FreezeStateAt(s, At("2026-12-08T12:00:00Z"));
  CHECK_FALSE(tue.in_force);
  CHECK(Text(*tue.next_start) == "2026-12-11T17:00:00Z");
  // The end of the window is not in it.
  CHECK_FALSE(FreezeStateAt(s, At("2026-12-07T09:00:00Z")).in_force);
}

TEST_CASE("freeze schedule: overlapping recurring windows are one, within a bound") {
  // Every 30 minutes for 45 minutes: always in force once begun; the end reported is the end
  // of the last window looked at.
  FreezeSchedule s = Parse({"", "", "*/30 * * * *", "45m", ""});
  CHECK(s.time_zone == "UTC");
  FreezeState st = FreezeStateAt(s, At("2026-12-01T10:10:00Z"));
  CHECK(st.in_force);
  CHECK(*st.until > At("2026-12-01T10:10:00Z") + absl::Minutes(30) * (kMaxChainedWindows - 2));
  // Every hour for 30 minutes: windows apart.
  FreezeSchedule apart = Parse({"", "", "0 * * * *", "30m", ""});
  CHECK(Text(*FreezeStateAt(apart, At("2026-12-01T10:10:00Z")).until) == "2026-12-01T10:30:00Z");
  CHECK(Text(*FreezeStateAt(apart, At("2026-12-01T10:40:00Z")).next_start) ==
        "2026-12-01T11:00:00Z");
}

TEST_CASE("freeze schedule: durations") {
  CHECK(*ParseFreezeDuration("90m") == absl::Minutes(90));
  CHECK(*ParseFreezeDuration("1d12h") == absl::Hours(36));
  CHECK(*ParseFreezeDuration("3d") == absl::Hours(72));
  CHECK(*ParseFreezeDuration("2h30m") == absl::Minutes(150));
  CHECK(!ParseFreezeDuration("0m").ok());
  CHECK(!ParseFreezeDuration("-5m").ok());
  CHECK(!ParseFreezeDuration("abc").ok());
  CHECK(!ParseFreezeDuration("").ok());
  CHECK(!ParseFreezeDuration("400d").ok());
  CHECK(!ParseFreezeDuration("5").ok());
}

TEST_CASE("freeze schedule: malformed schedules are refused naming the field") {
  CHECK(ErrorOf({"2027-01-02T00:00:00Z", "2026-12-24T00:00:00Z", "", "", ""})
            .find("Until '2026-12-24T00:00:00Z' is not after From") != std::string::npos);
  CHECK(ErrorOf({"2026-12-24T00:00:00Z", "", "", "", ""}).find("Until is missing") !=
        std::string::npos);
  CHECK(ErrorOf({"yesterday", "2026-12-24T00:00:00Z", "", "", ""}).find("From 'yesterday'") !=
        std::string::npos);
  CHECK(ErrorOf({"2026-12-24T00:00:00Z", "2027-01-02T00:00:00Z", "0 0 * * *", "1h", ""})
            .find("not both") != std::string::npos);
  CHECK(ErrorOf({"", "", "", "1h", ""}).find("Duration is for a recurring window") !=
        std::string::npos);
  CHECK(ErrorOf({"", "", "", "", "UTC"}).find("TimeZone is for a recurring window") !=
        std::string::npos);
  CHECK(ErrorOf({"", "", "0 0 * * *", "", "UTC"}).find("Cron needs Duration") != std::string::npos);
  CHECK(ErrorOf({"", "", "0 0 * * *", "1h", "Mars/Olympus_Mons"})
            .find("TimeZone 'Mars/Olympus_Mons' is not a known time zone") != std::string::npos);
  CHECK(ErrorOf({"", "", "0 0 30 2 *", "1h", "UTC"}).find("Cron: cron expression") !=
        std::string::npos);
}

}  // namespace
}  // namespace ops
}  // namespace cub
