// `cub completion bash|zsh`: a shell completion script generated from the CLI11 command tree,
// so every group, verb and flag cub has is offered, and nothing it has not.
#ifndef CUB_CLI_COMPLETION_H_
#define CUB_CLI_COMPLETION_H_

#include <CLI/CLI.hpp>
#include <string>

#include "cli/commands.h"

namespace cub::cli {

// The bash script for `root` (also sourced by zsh through bashcompinit when `zsh` is true):
// function _cub completes subcommands after the ones typed, and after a '-' the flags of the
// deepest subcommand typed plus the global ones.
std::string CompletionScript(const CLI::App& root, bool zsh);

// Adds `completion SHELL` to `app` (call after every other command is added).
void AddCompletionCommand(CLI::App& app, Env& env);

}  // namespace cub::cli

#endif  // CUB_CLI_COMPLETION_H_
