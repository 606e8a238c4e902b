// The context in use and its Space. See contexts.h.
#include "cli/contexts.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace cub::cli {

absl::Status UnknownContext(const CliConfig& config, const std::string& name,
                            const std::string& path) {
  std::vector<std::string> known;
  for (const auto& [known_name, unused] : config.contexts) known.push_back(known_name);
  if (known.empty()) {
    return absl::NotFoundError(absl::StrCat("no context ", name, " in ", path,
                                            " (it has none yet: cub auth login or cub context "
                                            "set NAME --server ADDR)"));
  }
  return absl::NotFoundError(absl::StrCat("no context ", name, " in ", path,
                                          " (known: ", absl::StrJoin(known, ", "), ")"));
}

absl::StatusOr<std::string> DefaultSpace(const std::string& context_flag) {
  const std::string path = ConfigPath();
  absl::StatusOr<CliConfig> config = LoadConfig(path);
  if (!config.ok()) return config.status();
  const std::string& name = context_flag.empty() ? config->current_context : context_flag;
  if (name.empty()) {
    return absl::InvalidArgumentError(
        "no --space given and no current context (cub context set NAME --server ADDR "
        "--space S)");
  }
  auto it = config->contexts.find(name);
  if (it == config->contexts.end()) {
    if (!context_flag.empty()) return UnknownContext(*config, name, path);
    return absl::FailedPreconditionError(absl::StrCat("no --space given and the current context ",
                                                      name, " is not in ", path,
                                                      " (cub context use NAME)"));
  }
  if (it->second.space.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("no --space given and context ", name, " has no Space (cub context set ",
                     context_flag.empty() ? "" : name + " ", "--space S)"));
  }
  return it->second.space;
}

}  // namespace cub::cli
