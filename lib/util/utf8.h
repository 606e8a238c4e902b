// UTF-8 decoding and encoding: the one implementation, used by the where language, the YAML
// reader and writers, CEL, the REST mirror and the CLI.
// Strict: overlong forms, surrogates and code points past U+10FFFF are invalid.
//
// Pure functions; thread-safe.
#ifndef CUB_LIB_UTIL_UTF8_H_
#define CUB_LIB_UTIL_UTF8_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace cub {

// Decodes the code point starting at s[*pos] (which must be < s.size()) into *cp and moves
// *pos past it. On invalid or truncated input returns false and leaves *pos and *cp alone.
bool DecodeUtf8(std::string_view s, size_t* pos, char32_t* cp);

// As DecodeUtf8, but for callers that tolerate bad input (the where lexer points at it, LIKE
// and LEN go on): on an invalid sequence returns false with `*cp` the byte at `*pos` and `*pos`
// moved past that one byte.
bool NextCodePoint(std::string_view s, size_t* pos, char32_t* cp);

// The number of code points in `s`, each byte that starts no valid sequence counting as one
// (as PostgreSQL counts characters of a UTF-8 database, and CEL's size() of a string).
size_t CodePointCount(std::string_view s);

// `pos` moved back, if it falls inside a character, to where that character starts (over
// continuation bytes 10xxxxxx): where `s` can be cut without splitting one. `pos` <= s.size().
size_t Utf8CutPoint(std::string_view s, size_t pos);

// The offset of the first invalid sequence, or npos when all of `s` is valid UTF-8.
size_t FindInvalidUtf8(std::string_view s);
inline bool IsValidUtf8(std::string_view s) { return FindInvalidUtf8(s) == std::string_view::npos; }

// `s` with each byte that starts no valid sequence replaced by U+FFFD: text that can be shown
// or put in JSON whatever a client sent.
std::string ValidUtf8(std::string_view s);

// Appends the encoding of `cp`; false (and nothing appended) for a surrogate or cp > U+10FFFF.
bool AppendUtf8(uint32_t cp, std::string* out);

}  // namespace cub

#endif  // CUB_LIB_UTIL_UTF8_H_
