// --timeout as people write it: a number of seconds ("60") or a duration ("90s", "2m", "1h",
// "1h30m"; see lib/util/duration_text.h).
#ifndef CUB_CLI_TIMEOUT_H_
#define CUB_CLI_TIMEOUT_H_

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace cub::cli {

// Whole seconds from 1 to 86400 (one day). INVALID_ARGUMENT otherwise, saying what was given
// and what is accepted.
absl::StatusOr<int> ParseTimeoutSeconds(absl::string_view text);

}  // namespace cub::cli

#endif  // CUB_CLI_TIMEOUT_H_
