#include "lib/util/short_list.h"

#include "absl/strings/str_cat.h"
#include "lib/util/utf8.h"

namespace cub {

std::string ShortList(const std::vector<std::string>& items, size_t shown) {
  std::string out;
  for (size_t i = 0; i < items.size() && i < shown; ++i) {
    if (i > 0) out += ", ";
    out += items[i];
  }
  if (items.size() > shown) absl::StrAppend(&out, " (and ", items.size() - shown, " more)");
  return out;
}

std::string CapMessage(std::string_view message, size_t max_bytes) {
  if (message.size() <= max_bytes) return std::string(message);
  // The tail's length is bounded by the digits of message.size(); 40 bytes is ample.
  const size_t cut = Utf8CutPoint(message, max_bytes > 40 ? max_bytes - 40 : 0);
  std::string out(message.substr(0, cut));
  absl::StrAppend(&out, " ... (", message.size() - cut, " more bytes)");
  return out;
}

}  // namespace cub
