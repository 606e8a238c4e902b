// libFuzzer target for merge paths (lib/config/path.h): ParsePath must never crash, and
// whatever it accepts must survive FormatPath and parse back to the same Path.
//
// Build (clang with libFuzzer; Debian: clang-14 and libclang-rt-14-dev) and run, from the
// repository root:
//   clang++ -std=c++17 -g -O1 -fsanitize=fuzzer,address,undefined -I. tests/fuzz/path_fuzz.cc \
//     lib/config/*.cc lib/util/*.cc $(pkg-config --cflags --libs libfyaml) -lcrypto \
//     -labsl_status -labsl_statusor -labsl_strings -labsl_str_format_internal \
//     -labsl_raw_logging_internal -labsl_throw_delegate -labsl_int128 -o /tmp/path_fuzz
//   mkdir -p /tmp/path_corpus
//   /tmp/path_fuzz -max_total_time=60 /tmp/path_corpus tests/fuzz/corpus/path

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
