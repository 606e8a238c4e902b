// See timeout.h.
#include "cli/timeout.h"

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "lib/util/duration_text.h"

namespace cub::cli {

absl::StatusOr<int> ParseTimeoutSeconds(absl::string_view text) {
  constexpr int64_t kMax = 86400;
  int64_t seconds = 0;
  if (!absl::SimpleAtoi(text, &seconds)) {
    absl::StatusOr<absl::Duration> d = ParseDayDuration(std::string_view(text.data(), text.size()));
    if (!d.ok()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "'", text, "' is not a timeout: write seconds (60) or a duration such as 90s, 2m, 1h"));
    }
    seconds = absl::ToInt64Seconds(*d);
  }
  if (seconds < 1 || seconds > kMax) {
    return absl::InvalidArgumentError(
        absl::StrCat("timeout '", text, "' is out of range: from 1s to 1d (86400 seconds)"));
  }
  return static_cast<int>(seconds);
}

}  // namespace cub::cli
