// Lists for messages that may name thousands of things: a refusal at fleet scale must still be
// read by a person, and must still fit where it travels (a gRPC status message goes in a
// header, which clients cap at 8 KiB).
//
// Thread-safe; no state.
#ifndef CUB_LIB_UTIL_SHORT_LIST_H_
#define CUB_LIB_UTIL_SHORT_LIST_H_

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace cub {

// How many items a message names before it counts the rest.
inline constexpr size_t kItemsShown = 20;

// The first `shown` of `items` joined by ", ", then " (and N more)" when there are more:
// "a, b, c (and 7 more)". Empty for no items.
std::string ShortList(const std::vector<std::string>& items, size_t shown = kItemsShown);

// `message` as it is when at most `max_bytes` long, else cut at a UTF-8 character boundary and
// ended with " ... (N more bytes)", the whole at most `max_bytes` (`max_bytes` >= 64).
std::string CapMessage(std::string_view message, size_t max_bytes);

}  // namespace cub

#endif  // CUB_LIB_UTIL_SHORT_LIST_H_
