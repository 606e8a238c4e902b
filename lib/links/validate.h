// Whether a Link's definition (definition.h) makes sense for its update type, checked when the
// Link is created so that a broken Link never reaches a resolve.
//
// The five update types:
//   UpgradeUnit, MergeUnits   3-way merges of what the upstream changed (lib/ops/upgrade.h)
//   TransformPaths            values read from the upstream Unit, written by set functions
//   Insert, Upsert            resources copied from the upstream Unit (copy.h)
// Only TransformPaths carries UpstreamPaths and DownstreamSetters, and it needs at least one of
// each.
//
// Pure; thread-safe.

#ifndef CUB_LIB_LINKS_VALIDATE_H_
#define CUB_LIB_LINKS_VALIDATE_H_

#include <map>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "lib/links/definition.h"

namespace cub::links {

// Whether `update_type` is one of the five.
bool IsKnownUpdateType(std::string_view update_type);

// Whether Links of `update_type` are resolved (TransformPaths, Insert, Upsert) rather than
// merged (UpgradeUnit, MergeUnits).
bool IsResolvedType(std::string_view update_type);

// The text a setter passes as the argument `arg`, given its parameters' values: Value itself,
// or with Evaluator "template" Value with its {{ .Params.NAME }} placeholders filled in.
// InvalidArgument for a malformed template or a parameter without a value.
absl::StatusOr<std::string> ArgumentText(const SetterArgument& arg,
                                         const std::map<std::string, std::string>& values);

// Checks `def` for a Link of `update_type` whose downstream Unit holds `toolchain` data.
// InvalidArgument naming the first problem and where it is:
//   - "link update type 'X' is not supported: use UpgradeUnit, ..." for an unknown type;
//   - "a TransformPaths link needs UpstreamPaths and DownstreamSetters";
//   - "only TransformPaths links have UpstreamPaths and DownstreamSetters";
//   - "UpstreamPaths[0].Name: ..." for a missing, malformed or repeated name;
//   - "UpstreamPaths[0].Path 'a..b': ..." for a path ParseValuePath refuses;
//   - "UpstreamPaths[1].Name 'digest' is not used by any DownstreamSetter";
//   - "DownstreamSetters[0].Parameters: 'tga' is not the Name of an UpstreamPath (names: tag)";
//   - "DownstreamSetters[0].FunctionInvocation.FunctionName: no function named 'x' ...", or
//     one that is not a set function, or not of the downstream Unit's toolchain;
//   - "DownstreamSetters[0].FunctionInvocation.Arguments[1].ParameterName: ..." for a parameter
//     the function does not have, or one given twice; a required one missing;
//   - "...Arguments[1].Value: ..." for a literal value of the wrong type, a template that uses
//     a name not in the setter's Parameters, or that is malformed;
//   - "...Evaluator: 'x' is not an evaluator: use template, or leave it out";
//   - "DownstreamSetters[0].Parameters: 'tag' is not used by any argument" (typically a Value
//     written as a template without Evaluator: template).
absl::Status ValidateDefinition(const std::string& update_type, const Definition& def,
                                const std::string& toolchain);

}  // namespace cub::links

#endif  // CUB_LIB_LINKS_VALIDATE_H_
