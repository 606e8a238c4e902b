// One spelling for a ChangeOrder on the command line: `BASE/NAME` (its base Space and its slug
// or ID), as every --change-order flag takes it, or NAME with --space BASE, as the changeorder
// commands took it so far. `cub changeorder get acme-base/release-v452` is the same as
// `cub changeorder get release-v452 --space acme-base`.
#ifndef CUB_CLI_CHANGE_ORDER_NAME_H_
#define CUB_CLI_CHANGE_ORDER_NAME_H_

#include <string>
#include <utility>

#include "absl/status/statusor.h"

namespace cub::cli {

// {base Space, ChangeOrder} from the --space value (may be empty) and the NAME argument.
// INVALID_ARGUMENT, naming both, when NAME has no '/' and --space is empty, when NAME's BASE
// and --space differ, or when BASE or NAME is empty or NAME holds a second '/'.
absl::StatusOr<std::pair<std::string, std::string>> SplitChangeOrderName(const std::string& space,
                                                                         const std::string& name);

// For the commands: replaces *space and *name by SplitChangeOrderName's answer; on a refusal
// prints it as a usage error and returns kExitUsage, else kExitOk.
int ResolveChangeOrderName(std::string* space, std::string* name);

}  // namespace cub::cli

#endif  // CUB_CLI_CHANGE_ORDER_NAME_H_
