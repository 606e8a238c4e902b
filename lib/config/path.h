// Dotted paths into a document ("spec.replicas", "spec.template.spec.containers.0.image"),
// for functions that read or set one value.
//
// A path is segments separated by '.'; a segment indexes a mapping by key, or a sequence by a
// decimal index. "\." is a literal dot and "\\" a backslash, so annotation keys can be named:
// "metadata.annotations.app\.kubernetes\.io/name". The empty path names the root.
// Pure functions; thread-safe for distinct roots.

#ifndef CUB_LIB_CONFIG_PATH_H_
#define CUB_LIB_CONFIG_PATH_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "lib/config/node.h"

namespace cub::config {

// Splits a path into its unescaped segments. InvalidArgument on a dangling '\' or an escape
// other than "\." and "\\".
absl::StatusOr<std::vector<std::string>> SplitPath(std::string_view path);

// The node at `path` under `root`, or nullptr if the path is malformed or leads nowhere.
const Node* GetPath(const Node& root, std::string_view path);

// Sets the node at `path` to `value`. Missing mapping entries along the way are created (a
// null on the way becomes a mapping); sequences are never grown: an index must exist.
// InvalidArgument for a malformed path or an index that is out of range or not a number;
// FailedPrecondition when the path goes through a scalar.
absl::Status SetPath(Node& root, std::string_view path, Node value);

}  // namespace cub::config

#endif  // CUB_LIB_CONFIG_PATH_H_
