// Times as the API writes them: RFC 3339 in UTC, to the second ("2026-11-29T17:01:21Z").
//
// Thread-safe; no state.

#ifndef CUB_LIB_UTIL_TIME_TEXT_H_
#define CUB_LIB_UTIL_TIME_TEXT_H_

#include <string>

#include "absl/time/time.h"

namespace cub {

std::string FormatRfc3339(absl::Time t);

}  // namespace cub

#endif  // CUB_LIB_UTIL_TIME_TEXT_H_
