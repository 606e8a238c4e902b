#include "lib/cel/source.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "lib/cel/absl_compat.h"

namespace cub::cel::internal {

Source::Source(std::string text) : text_(std::move(text)) {
  line_starts_.push_back(0);
  for (size_t i = 0; i < text_.size(); ++i) {
    if (text_[i] == '\n') line_starts_.push_back(static_cast<int>(i + 1));
  }
}

std::string Source::Location(int offset) const {
  offset = std::clamp(offset, 0, static_cast<int>(text_.size()));
  auto it = std::upper_bound(line_starts_.begin(), line_starts_.end(), offset);
  int line = static_cast<int>(it - line_starts_.begin());
  int column = 1;
  for (int i = *(it - 1); i < offset; ++i) {
    if ((static_cast<unsigned char>(text_[i]) & 0xC0) != 0x80) ++column;  // count lead bytes
  }
  return absl::StrCat(line, ":", column);
}

absl::Status Source::Error(int offset, std::string_view message) const {
  return absl::InvalidArgumentError(absl::StrCat("cel: ", Location(offset), ": ", Sv(message)));
}

}  // namespace cub::cel::internal
