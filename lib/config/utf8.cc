#include "lib/config/utf8.h"

#include "lib/util/utf8.h"

namespace cub::config {

bool DecodeUtf8(std::string_view s, size_t* pos, char32_t* cp) {
  return cub::DecodeUtf8(s, pos, cp);
}

}  // namespace cub::config
