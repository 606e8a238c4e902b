// --space defaulting to the context's Space. See space_flag.h.
#include "cli/space_flag.h"

#include <map>

#include "cli/contexts.h"

namespace cub::cli {
namespace {

// The --space of each command that has one. One command tree per process, built once at
// start-up, so a process-wide table is enough and spares every command's plumbing.
std::map<const CLI::App*, std::string*>& SpaceFlags() {
  static auto* flags = new std::map<const CLI::App*, std::string*>();
  return *flags;
}

}  // namespace

CLI::Option* AddSpaceOption(CLI::App* sub, std::string* space, const std::string& help) {
  SpaceFlags()[sub] = space;
  return sub->add_option("--space", *space, help + " (default: the context's Space)")
      ->type_name("SPACE");
}

int FillSpaceDefault(const Env& env, const CLI::App* sub) {
  auto it = SpaceFlags().find(sub);
  if (it == SpaceFlags().end() || !it->second->empty()) return kExitOk;
  absl::StatusOr<std::string> space = DefaultSpace(env.globals.context);
  // As a required flag left out would be: a usage error (exit 2), with the way out named.
  if (!space.ok()) return UsageError(space.status().message());
  *it->second = *std::move(space);
  return kExitOk;
}

}  // namespace cub::cli
