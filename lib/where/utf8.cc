#include "lib/where/utf8.h"

#include "lib/util/utf8.h"

namespace cub::where::internal {

bool NextCodePoint(std::string_view s, size_t* pos, char32_t* cp) {
  if (cub::DecodeUtf8(s, pos, cp)) return true;
  // Invalid: report the byte and step over it, so callers can point at it and go on.
  *cp = static_cast<unsigned char>(s[*pos]);
  ++*pos;
  return false;
}

size_t CodePointCount(std::string_view s) {
  size_t n = 0;
  char32_t cp;
  for (size_t i = 0; i < s.size(); ++n) NextCodePoint(s, &i, &cp);
  return n;
}

}  // namespace cub::where::internal
