// UTF-8 decoding for the where language. The lexer uses it to refuse malformed input and to
// report positions in characters; the in-memory evaluator uses it so that LEN and LIKE's `_`
// count characters as PostgreSQL does in a UTF-8 database.
//
// Internal to lib/where. Pure functions; thread-safe.

#ifndef CUB_LIB_WHERE_UTF8_H_
#define CUB_LIB_WHERE_UTF8_H_

#include <cstddef>
#include <string_view>

namespace cub::where::internal {

// Decodes the code point starting at `s[*pos]` into `*cp` and advances `*pos` past it.
// Returns false if the bytes there are not well-formed UTF-8 (overlong forms, surrogates and
// values above U+10FFFF are malformed); then `*cp` is that one byte and `*pos` advances by one,
// so callers that tolerate bad input can treat each stray byte as one character.
// Precondition: *pos < s.size().
bool NextCodePoint(std::string_view s, size_t* pos, char32_t* cp);

// Number of characters in `s`, a stray byte counting as one.
size_t CodePointCount(std::string_view s);

}  // namespace cub::where::internal

#endif  // CUB_LIB_WHERE_UTF8_H_
