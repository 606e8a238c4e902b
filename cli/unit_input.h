// Where `cub unit create|update` read a Unit's new data from: the positional FILE ("-" is
// stdin), --filename F, or --from-stdin (ConfigHub's cub spells it the last two ways). At most
// one of them; none means no new data.
#ifndef CUB_CLI_UNIT_INPUT_H_
#define CUB_CLI_UNIT_INPUT_H_

#include <CLI/CLI.hpp>
#include <optional>
#include <string>

#include "absl/status/statusor.h"

namespace cub::cli {

struct DataFlags {
  std::string file;      // positional FILE
  std::string filename;  // --filename
  bool from_stdin = false;

  // Whether any of the three was given.
  bool given() const { return !file.empty() || !filename.empty() || from_stdin; }
};

// Adds FILE, --filename and --from-stdin to `cmd`, into `*flags`; `file_help` describes FILE.
void AddDataFlags(CLI::App* cmd, DataFlags* flags, const std::string& file_help);

// A usage error's text when more than one source is given ("give the data one way: ..."),
// else nullopt.
std::optional<std::string> DataFlagsError(const DataFlags& flags);

// The data from the source given, or nullopt when none is; read errors name the file
// ("cannot read F: ..."; see ReadInput in commands.h).
absl::StatusOr<std::optional<std::string>> ReadDataFlags(const DataFlags& flags);

}  // namespace cub::cli

#endif  // CUB_CLI_UNIT_INPUT_H_
