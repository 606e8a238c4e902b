#include "lib/util/pg_array.h"

namespace cub {

std::string PgArrayLiteral(const std::vector<std::string>& values) {
  size_t size = 2;
  for (const std::string& v : values) size += v.size() + 3;
  std::string out;
  out.reserve(size);
  out += '{';
  for (size_t i = 0; i < values.size(); ++i) {
    if (i > 0) out += ',';
    out += '"';
    for (char c : values[i]) {
      if (c == '"' || c == '\\') out += '\\';
      out += c;
    }
    out += '"';
  }
  out += '}';
  return out;
}

}  // namespace cub
