#include "lib/util/utf8.h"

namespace cub {

bool DecodeUtf8(std::string_view s, size_t* pos, char32_t* cp) {
  const size_t i = *pos;
  const auto b0 = static_cast<unsigned char>(s[i]);
  if (b0 < 0x80) {
    *cp = b0;
    *pos = i + 1;
    return true;
  }
  size_t len;
  char32_t min;
  char32_t value;
  if ((b0 & 0xe0) == 0xc0) {
    len = 2, min = 0x80, value = b0 & 0x1f;
  } else if ((b0 & 0xf0) == 0xe0) {
    len = 3, min = 0x800, value = b0 & 0x0f;
  } else if ((b0 & 0xf8) == 0xf0) {
    len = 4, min = 0x10000, value = b0 & 0x07;
  } else {
    return false;
  }
  if (s.size() - i < len) return false;
  for (size_t k = 1; k < len; ++k) {
    const auto b = static_cast<unsigned char>(s[i + k]);
    if ((b & 0xc0) != 0x80) return false;
    value = (value << 6) | (b & 0x3f);
  }
  if (value < min || value > 0x10ffff || (value >= 0xd800 && value <= 0xdfff)) return false;
  *cp = value;
  *pos = i + len;
  return true;
}

bool NextCodePoint(std::string_view s, size_t* pos, char32_t* cp) {
  if (DecodeUtf8(s, pos, cp)) return true;
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

size_t Utf8CutPoint(std::string_view s, size_t pos) {
  while (pos > 0 && pos < s.size() && (static_cast<unsigned char>(s[pos]) & 0xC0) == 0x80) --pos;
  return pos;
}

size_t FindInvalidUtf8(std::string_view s) {
  size_t i = 0;
  char32_t cp;
  while (i < s.size()) {
    if (!DecodeUtf8(s, &i, &cp)) return i;
  }
  return std::string_view::npos;
}

std::string ValidUtf8(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  size_t i = 0;
  char32_t cp;
  while (i < s.size()) {
    const size_t start = i;
    if (DecodeUtf8(s, &i, &cp)) {
      out.append(s.data() + start, i - start);
    } else {
      out.append("\xEF\xBF\xBD");
      ++i;
    }
  }
  return out;
}

bool AppendUtf8(uint32_t cp, std::string* out) {
  if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return false;
  if (cp < 0x80) {
    out->push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out->push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out->push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out->push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
  return true;
}

}  // namespace cub
