#include "lib/cel/utf8.h"

#include "lib/util/utf8.h"

namespace cub::cel::internal {

size_t FindInvalidUtf8(std::string_view s) { return cub::FindInvalidUtf8(s); }

int64_t CountCodePoints(std::string_view s) {
  int64_t n = 0;
  for (unsigned char c : s) {
    if ((c & 0xC0) != 0x80) ++n;
  }
  return n;
}

bool AppendUtf8(uint32_t cp, std::string* out) { return cub::AppendUtf8(cp, out); }

}  // namespace cub::cel::internal
