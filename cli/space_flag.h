// The --space flag of the commands that work in one Space: it defaults to the Space of the
// context in use (--context, else the current one; see DefaultSpace in contexts.h), so that
// `cub context set --space acme-dev` saves typing it on every command.
#ifndef CUB_CLI_SPACE_FLAG_H_
#define CUB_CLI_SPACE_FLAG_H_

#include <CLI/CLI.hpp>
#include <string>

#include "cli/commands.h"

namespace cub::cli {

// Adds `--space` to `sub`, into `*space`. Not required: when it is not given, OnRun fills it in
// before `sub` runs (FillSpaceDefault), and when the context has no Space the command stops with
// the usage error "no --space given and context NAME has no Space (cub context set --space S)"
// (exit 2, as for a required flag left out) and calls nothing.
CLI::Option* AddSpaceOption(CLI::App* sub, std::string* space,
                            const std::string& help = "Space slug or ID");

// For `sub` about to run: when AddSpaceOption gave it a --space that was not given, fills it
// from the context. kExitOk, or kExitUsage with the usage error printed.
int FillSpaceDefault(const Env& env, const CLI::App* sub);

}  // namespace cub::cli

#endif  // CUB_CLI_SPACE_FLAG_H_
