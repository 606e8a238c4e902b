// See change_order_name.h.
#include "cli/change_order_name.h"

#include "absl/strings/str_cat.h"
#include "cli/commands.h"

namespace cub::cli {

absl::StatusOr<std::pair<std::string, std::string>> SplitChangeOrderName(const std::string& space,
                                                                         const std::string& name) {
  const size_t slash = name.find('/');
  if (slash == std::string::npos) {
    if (space.empty()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "name the ChangeOrder as BASE/NAME or give its base Space with --space (got '", name,
          "')"));
    }
    return std::make_pair(space, name);
  }
  const std::string base = name.substr(0, slash);
  const std::string slug = name.substr(slash + 1);
  if (base.empty() || slug.empty() || slug.find('/') != std::string::npos) {
    return absl::InvalidArgumentError(
        absl::StrCat("ChangeOrder '", name, "' is not BASE/NAME (one '/', text on both sides)"));
  }
  if (!space.empty() && space != base) {
    return absl::InvalidArgumentError(absl::StrCat("--space ", space, " and ChangeOrder ", name,
                                                   " name different base Spaces; give one"));
  }
  return std::make_pair(base, slug);
}

int ResolveChangeOrderName(std::string* space, std::string* name) {
  auto split = SplitChangeOrderName(*space, *name);
  if (!split.ok()) return UsageError(split.status().message());
  *space = split->first;
  *name = split->second;
  return kExitOk;
}

}  // namespace cub::cli
