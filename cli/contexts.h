// Which saved context a cub command works with, and what it takes from it besides the
// connection (client.h resolves server, token and TLS): the Space that --space defaults to.
// Shared by `cub context ...` (cmd_context.cc) and every command taking --space
// (AddSpaceOption in commands.h).
#ifndef CUB_CLI_CONTEXTS_H_
#define CUB_CLI_CONTEXTS_H_

#include <string>

#include "absl/status/statusor.h"
#include "cli/config.h"

namespace cub::cli {

// NOT_FOUND "no context NAME in PATH (known: a, b)" or "... (it has none yet: ...)", for a
// context name the user gave that `config` does not have.
absl::Status UnknownContext(const CliConfig& config, const std::string& name,
                            const std::string& path);

// The Space of the context in use: `context_flag` (--context) if given, else the config file's
// CurrentContext. Fails, naming the way out, when there is no such context or it has no Space:
// "no --space given and context NAME has no Space (cub context set --space S)".
absl::StatusOr<std::string> DefaultSpace(const std::string& context_flag);

}  // namespace cub::cli

#endif  // CUB_CLI_CONTEXTS_H_
