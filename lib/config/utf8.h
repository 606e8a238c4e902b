// UTF-8 decoding for the YAML reader and writers: the reader rejects malformed input up front
// (libfyaml would otherwise skip it silently), and the writers decode code points to decide
// which characters must be escaped.
//
// Pure functions; thread-safe.

#ifndef CUB_LIB_CONFIG_UTF8_H_
#define CUB_LIB_CONFIG_UTF8_H_

#include <cstddef>
#include <string_view>

namespace cub::config {

// Decodes the code point starting at `s[*pos]` into `*cp` and advances `*pos` past it.
// Returns false, leaving `*pos` unchanged, if the bytes there are not well-formed UTF-8
// (overlong forms, surrogates and values above U+10FFFF are malformed).
// Precondition: *pos < s.size().
bool DecodeUtf8(std::string_view s, size_t* pos, char32_t* cp);

}  // namespace cub::config

#endif  // CUB_LIB_CONFIG_UTF8_H_
