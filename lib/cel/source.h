// The text of an expression and how errors point into it: byte offsets kept in the syntax
// tree become "line:column" (1-based, columns counted in Unicode code points) in messages
// such as "cel: 1:14: undeclared reference to 'Spce'".
//
// Internal to lib/cel. Immutable after construction; thread-safe.

#ifndef CUB_LIB_CEL_SOURCE_H_
#define CUB_LIB_CEL_SOURCE_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"

namespace cub::cel::internal {

class Source {
 public:
  explicit Source(std::string text);

  const std::string& text() const { return text_; }
  // "line:column" of the byte at `offset` (clamped to the text).
  std::string Location(int offset) const;
  // InvalidArgument "cel: <line:column>: <message>".
  absl::Status Error(int offset, std::string_view message) const;

 private:
  std::string text_;
  std::vector<int> line_starts_;  // byte offset of each line's first byte
};

}  // namespace cub::cel::internal

#endif  // CUB_LIB_CEL_SOURCE_H_
