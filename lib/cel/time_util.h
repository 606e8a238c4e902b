// Timestamps and durations as the CEL subset spells and bounds them.
//   Timestamps: RFC 3339 text ("2026-12-24T00:00:00Z", "...T10:00:00.5+01:00"), valid from
//   0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999999999Z.
//   Durations: Go-style text ("72h", "1h30m", "1.5s", "-250ms", "10ns"), valid within a signed
//   64-bit count of nanoseconds (about +-292 years), as in cel-go.
// Results outside those ranges are errors ("range error ..."), never silently clamped.
//
// Pure functions; thread-safe.

#ifndef CUB_LIB_CEL_TIME_UTIL_H_
#define CUB_LIB_CEL_TIME_UTIL_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace cub::cel {

bool TimestampInRange(absl::Time t);
bool DurationInRange(absl::Duration d);

absl::StatusOr<absl::Time> ParseTimestamp(std::string_view text);
absl::StatusOr<absl::Time> TimestampFromUnixSeconds(int64_t seconds);
absl::StatusOr<absl::Duration> ParseDuration(std::string_view text);

// RFC 3339 in UTC with only as many fractional digits as needed: "2009-02-13T23:31:30Z",
// "9999-12-31T23:59:59.999999999Z". `t` must be in range.
std::string TimestampToString(absl::Time t);
// Seconds with only as many fractional digits as needed: "1000000s", "1.5s", "-0.000000001s".
std::string DurationToString(absl::Duration d);

// A time zone named by IANA name ("Australia/Sydney", "UTC") or fixed offset ("+11:00",
// "-02:30", "02:00"). IANA names need the system's zoneinfo files.
absl::StatusOr<absl::TimeZone> ParseTimeZone(std::string_view text);

}  // namespace cub::cel

#endif  // CUB_LIB_CEL_TIME_UTIL_H_
