// A Link's definition as a user writes it (`cub link create --from-stdin`) and `cub link get -o
// json` prints it: YAML or JSON with PascalCase fields.
//
//   Protect: true                      optional; see validate.h for how it meets the flags
//   AutoUpdate: false                  optional
//   UpdateType: TransformPaths         optional
//   UpstreamPaths:                     TransformPaths only
//     - Name: tag
//       Path: streams.stable.tag
//       Resource: {ResourceType: registrybot.confighub.com/v1alpha4, ResourceName: acme}
//   DownstreamSetters:                 TransformPaths only
//     - Parameters: [tag]
//       FunctionInvocation:
//         FunctionName: set-container-image-reference
//         Arguments:
//           - {ParameterName: container-name, Value: acme}
//           - {ParameterName: image-reference, Value: ":{{ .Params.tag }}", Evaluator: template}
//
// Parsing is strict about shape: an unknown field, or a value of the wrong type, is refused
// naming its path ("DownstreamSetters[0].FunctionInvocation.Argument: unknown field; did you
// mean Arguments?"), since a dropped field would silently change what the Link writes. The
// caller may name top-level fields to accept and skip (ParseOptions), such as the entity fields
// `get -o json` prints beside the definition, so that output can be fed back. Absent or null
// fields take their defaults. Whether the definition makes sense (known functions, names that
// match up, paths) is validate.h's to say.
//
// Pure; thread-safe.

#ifndef CUB_LIB_LINKS_DEFINITION_H_
#define CUB_LIB_LINKS_DEFINITION_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "lib/config/node.h"

namespace cub::links {

// Which resource of the upstream Unit a value is read from (see resource.h for matching).
struct ResourceRef {
  std::string type;  // ResourceType
  std::string name;  // ResourceName
};

struct UpstreamPath {
  std::string name;  // the parameter name setters use
  std::string path;  // a merge path (lib/config/path.h) without a document part
  ResourceRef resource;
};

struct SetterArgument {
  std::string parameter_name;
  std::string value;
  std::string evaluator;  // "" (Value as written) or "template"
};

struct DownstreamSetter {
  std::vector<std::string> parameters;  // UpstreamPath names whose values the arguments use
  std::string function_name;
  std::vector<SetterArgument> arguments;
};

struct ParseOptions {
  // Top-level fields accepted and skipped (LinkID, Slug, ...). Empty by default: every
  // top-level field must be part of the definition.
  std::vector<std::string> skip_fields;
};

struct Definition {
  // Present only when the text says so, so that the caller can tell "false" from "absent".
  std::optional<bool> protect;
  std::optional<bool> auto_update;
  std::optional<std::string> update_type;
  std::vector<UpstreamPath> upstream_paths;
  std::vector<DownstreamSetter> setters;
};

// Parses one YAML or JSON document. Errors are InvalidArgument and report the first problem:
//   - ParseYaml's, as it words them;
//   - "link definition is empty", "link definition must be one document, got N",
//     "link definition must be a mapping ..., got sequence";
//   - "<path>: unknown field; did you mean X?" (or the fields allowed there);
//   - "<path>: must be a string, got mapping" (likewise true or false, a list, a mapping).
// An argument's Value may also be written as an integer or a boolean (Value: 3); it is kept
// as its text.
absl::StatusOr<Definition> ParseDefinition(std::string_view text,
                                           const ParseOptions& options = ParseOptions());

// The same over an already parsed document.
absl::StatusOr<Definition> DefinitionFromNode(const config::Node& doc,
                                              const ParseOptions& options = ParseOptions());

}  // namespace cub::links

#endif  // CUB_LIB_LINKS_DEFINITION_H_
