// lib/util/duration_text: token lifetimes as written on the command line ("30d", "12h").
#include "lib/util/duration_text.h"

#include <catch2/catch.hpp>

namespace cub {
namespace {

TEST_CASE("ParseDayDuration reads days, hours, minutes and seconds") {
  CHECK(*ParseDayDuration("30d") == absl::Hours(24 * 30));
  CHECK(*ParseDayDuration("12h") == absl::Hours(12));
  CHECK(*ParseDayDuration("90m") == absl::Minutes(90));
  CHECK(*ParseDayDuration("2s") == absl::Seconds(2));
  CHECK(*ParseDayDuration("1d12h") == absl::Hours(36));
  CHECK(*ParseDayDuration("1h30m5s") == absl::Seconds(5405));
}

TEST_CASE("ParseDayDuration refuses what is not a positive duration, naming it") {
  for (const char* bad : {"", "d", "30", "3w", "1.5d", "-1d", "12h1d", "1d1d", "30 d", "1e3d",
                          "99999999999999999999d", "40000d"}) {
    auto d = ParseDayDuration(bad);
    INFO(bad);
    REQUIRE_FALSE(d.ok());
    CHECK(d.status().code() == absl::StatusCode::kInvalidArgument);
    CHECK(std::string(d.status().message()).find(std::string("'") + bad + "'") == 0);
  }
  auto zero = ParseDayDuration("0d");
  REQUIRE_FALSE(zero.ok());
  CHECK(zero.status().message() == "'0d' is not a positive duration");
}

TEST_CASE("FormatDayDuration writes what ParseDayDuration reads back") {
  CHECK(FormatDayDuration(absl::Hours(24 * 90)) == "90d");
  CHECK(FormatDayDuration(absl::Hours(36)) == "1d12h");
  CHECK(FormatDayDuration(absl::Seconds(45)) == "45s");
  CHECK(*ParseDayDuration(FormatDayDuration(absl::Seconds(93784))) == absl::Seconds(93784));
}

}  // namespace
}  // namespace cub
