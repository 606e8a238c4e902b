#include "lib/where/utf8.h"

namespace cub::where::internal {

bool NextCodePoint(std::string_view s, size_t* pos, char32_t* cp) {
  const size_t i = *pos;
  const unsigned char c = static_cast<unsigned char>(s[i]);
  *cp = c;
  ++*pos;
  if (c < 0x80) return true;
  int extra;
  char32_t v;
  if ((c & 0xE0) == 0xC0) {
    extra = 1;
    v = c & 0x1F;
  } else if ((c & 0xF0) == 0xE0) {
    extra = 2;
    v = c & 0x0F;
  } else if ((c & 0xF8) == 0xF0) {
    extra = 3;
    v = c & 0x07;
  } else {
    return false;
  }
  if (i + extra >= s.size()) return false;
  for (int k = 1; k <= extra; ++k) {
    const unsigned char b = static_cast<unsigned char>(s[i + k]);
    if ((b & 0xC0) != 0x80) return false;
    v = (v << 6) | (b & 0x3F);
  }
  static constexpr char32_t kMin[] = {0, 0x80, 0x800, 0x10000};
  if (v < kMin[extra] || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF)) return false;
  *cp = v;
  *pos = i + extra + 1;
  return true;
}

size_t CodePointCount(std::string_view s) {
  size_t n = 0;
  char32_t cp;
  for (size_t i = 0; i < s.size(); ++n) NextCodePoint(s, &i, &cp);
  return n;
}

}  // namespace cub::where::internal
