// libFuzzer target for merge paths (lib/config/path.h): ParsePath must never crash, and
// whatever it accepts must survive FormatPath and parse back to the same Path.
//
// Build and run with tests/fuzz/run.sh (see docs/operations.md, "Fuzzing"). Seeds are in
// tests/fuzz/corpus/path.

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "lib/config/path.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<cub::config::Path> path = cub::config::ParsePath(text);
  if (!path.ok()) {
    if (path.status().code() != absl::StatusCode::kInvalidArgument) std::abort();
    return 0;
  }
  const std::string formatted = cub::config::FormatPath(*path);
  absl::StatusOr<cub::config::Path> again = cub::config::ParsePath(formatted);
  if (!again.ok() || *again != *path) std::abort();
  if (cub::config::FormatPath(*again) != formatted) std::abort();
  (void)path->HasWildcard();
  return 0;
}
