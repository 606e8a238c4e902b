// UTF-8 helpers for the CEL subset: validating expression text, counting code points for
// size(), and encoding escapes such as \u270c.
//
// Internal to lib/cel. Pure functions; thread-safe.

#ifndef CUB_LIB_CEL_UTF8_H_
#define CUB_LIB_CEL_UTF8_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace cub::cel::internal {

// Byte offset of the first byte that is not part of well-formed UTF-8 (no overlongs, no
// surrogates, nothing above U+10FFFF), or npos when `s` is valid.
size_t FindInvalidUtf8(std::string_view s);
inline bool IsValidUtf8(std::string_view s) { return FindInvalidUtf8(s) == std::string_view::npos; }

// Code points in valid UTF-8 `s`.
int64_t CountCodePoints(std::string_view s);

// Appends the UTF-8 encoding of `cp`; false (nothing appended) for surrogates and values
// above U+10FFFF.
bool AppendUtf8(uint32_t cp, std::string* out);

}  // namespace cub::cel::internal

#endif  // CUB_LIB_CEL_UTF8_H_
