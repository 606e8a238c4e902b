#include "lib/util/time_text.h"

namespace cub {

std::string FormatRfc3339(absl::Time t) {
  return absl::FormatTime("%Y-%m-%dT%H:%M:%SZ", t, absl::UTCTimeZone());
}

}  // namespace cub
