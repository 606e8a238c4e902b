// Minimal JSON text building for the few places that write JSON by hand (flat string maps
// and string lists sent to PostgreSQL as jsonb parameters).
#ifndef CUB_LIB_UTIL_JSON_TEXT_H_
#define CUB_LIB_UTIL_JSON_TEXT_H_

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace cub {

// `s` as a JSON string literal, quotes included; control characters escaped.
std::string JsonQuote(std::string_view s);
// {"k":"v",...}
std::string JsonObject(const std::map<std::string, std::string>& m);
// ["a","b",...]
std::string JsonArray(const std::vector<std::string>& v);

}  // namespace cub

#endif  // CUB_LIB_UTIL_JSON_TEXT_H_
