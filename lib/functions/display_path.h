// Building the paths that name values in function results (Mutation::path, FoundValue::path,
// and the paths in vet messages). They are written in lib/config/path.h's merge-path syntax,
// the syntax of the Mutations that diffs and merges report, so every part of the product names
// a value the same way:
//   spec.replicas
//   spec.template.spec.containers.name=web.image          (a list item by its name)
//   spec.template.spec.containers.name=web.env.name=LOG_LEVEL.value
//   spec.ports[0].port                                    (a list item by position)
//   metadata.labels."app.kubernetes.io/name"              (a key with special characters)
// A name is written bare unless it is empty, "*" or "**", or holds whitespace, a control
// character or one of . [ ] = " \ : ; then it is double-quoted, with '"' and '\' escaped by
// a backslash.
//
// Pure functions; thread-safe.

#ifndef CUB_LIB_FUNCTIONS_DISPLAY_PATH_H_
#define CUB_LIB_FUNCTIONS_DISPLAY_PATH_H_

#include <cstddef>
#include <string>
#include <string_view>

#include "lib/config/node.h"

namespace cub::functions {

// Appends ".key" (or "key" to an empty path).
void AppendKey(std::string* path, std::string_view key);

// Appends ".field=value" (or "field=value" to an empty path): the item of a list whose
// `field` is `value`.
void AppendSelector(std::string* path, std::string_view field, std::string_view value);

// Appends the selector of item `index` of a list: ".name=NAME" when the item is a mapping
// whose `name` is a non-empty string, otherwise "[INDEX]".
void AppendItem(std::string* path, const config::Node& item, size_t index);

// `prefix` with `key` appended.
std::string JoinKey(std::string_view prefix, std::string_view key);

}  // namespace cub::functions

#endif  // CUB_LIB_FUNCTIONS_DISPLAY_PATH_H_
