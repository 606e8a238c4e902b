// `cub context list|current|use|set|delete` (cmd_context.cc) and `cub unit edit`
// (cmd_unit_edit.cc): the command groups of the CLI's contexts and of editing a Unit.
#ifndef CUB_CLI_CMD_CONTEXT_H_
#define CUB_CLI_CMD_CONTEXT_H_

#include <CLI/CLI.hpp>

#include "cli/commands.h"

namespace cub::cli {

// `context ...`: the config file's contexts.
void AddContextCommands(CLI::App& app, Env& env);
// `unit edit`, into the unit group (AddUnitCommands calls it).
void AddUnitEditCommand(CLI::App* unit, Env& env);

}  // namespace cub::cli

#endif  // CUB_CLI_CMD_CONTEXT_H_
