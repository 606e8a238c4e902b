// FILE, --filename and --from-stdin of `cub unit create|update`. See unit_input.h.
#include "cli/unit_input.h"

#include <vector>

#include "absl/strings/str_join.h"
#include "cli/commands.h"

namespace cub::cli {

void AddDataFlags(CLI::App* cmd, DataFlags* flags, const std::string& file_help) {
  cmd->add_option("FILE", flags->file, file_help);
  cmd->add_option("--filename", flags->filename, "Read the data from this file (same as FILE)")
      ->type_name("FILE");
  cmd->add_flag("--from-stdin", flags->from_stdin, "Read the data from stdin (same as FILE -)");
}

std::optional<std::string> DataFlagsError(const DataFlags& flags) {
  std::vector<std::string> given;
  if (!flags.file.empty()) given.push_back("FILE " + flags.file);
  if (!flags.filename.empty()) given.push_back("--filename " + flags.filename);
  if (flags.from_stdin) given.push_back("--from-stdin");
  if (given.size() <= 1) return std::nullopt;
  return "give the data one way, FILE, --filename or --from-stdin; got " +
         absl::StrJoin(given, " and ");
}

absl::StatusOr<std::optional<std::string>> ReadDataFlags(const DataFlags& flags) {
  if (!flags.given()) return std::nullopt;
  const std::string path =
      flags.from_stdin ? "-" : (flags.filename.empty() ? flags.file : flags.filename);
  absl::StatusOr<std::string> data = ReadInput(path);
  if (!data.ok()) return data.status();
  return std::optional<std::string>(*std::move(data));
}

}  // namespace cub::cli
