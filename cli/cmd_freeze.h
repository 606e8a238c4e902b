// `cub freeze ...` (cli/cmd_freeze.cc): freezes and stop-the-line.
#ifndef CUB_CLI_CMD_FREEZE_H_
#define CUB_CLI_CMD_FREEZE_H_

#include <CLI/CLI.hpp>

#include "cli/commands.h"

namespace cub::cli {

// Adds the `freeze` group (create, get, list, delete) to the root App.
void AddFreezeCommands(CLI::App& app, Env& env);

}  // namespace cub::cli

#endif  // CUB_CLI_CMD_FREEZE_H_
