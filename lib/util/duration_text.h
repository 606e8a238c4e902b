// Lifetimes as people write them on a command line or in a request: "30d", "12h", "90m",
// "45s", or several parts in decreasing units ("1d12h").
//
// Thread-safe; no state.
#ifndef CUB_LIB_UTIL_DURATION_TEXT_H_
#define CUB_LIB_UTIL_DURATION_TEXT_H_

#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace cub {

// Whole numbers, each with a unit d (24 hours), h, m or s, units in decreasing order, each at
// most once; the total positive and at most 100 years. INVALID_ARGUMENT otherwise, reading
// "'3w' is not a duration: write a whole number with a unit d, h, m or s, such as 30d".
absl::StatusOr<absl::Duration> ParseDayDuration(std::string_view text);

// The shortest text ParseDayDuration reads back as `d` (whole seconds): "90d", "1d12h", "45s".
std::string FormatDayDuration(absl::Duration d);

}  // namespace cub

#endif  // CUB_LIB_UTIL_DURATION_TEXT_H_
