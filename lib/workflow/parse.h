// Reading a ChangeWorkflow definition from the text a user writes (`cub changeworkflow create
// --filename`) or the server stored: YAML or JSON with the fields `cub changeworkflow get -o
// json` prints, PascalCase:
//
//   Stages: [{Name, WhereSpace, Prerequisites: [..], ReleasePrerequisites: [..]}]
//   Final: {Prerequisites: [..]}
//   CustomPrerequisites: [{Name, Expression, Description}]
//   AttestationPrerequisites: [{Name, Type, Count, FromUserIDs: [..], FromGroups: [..],
//                               DistinctGroups, MaxAge, AllowAuthors, IgnoreFail, Description}]
//
// Parsing is strict about shape and lenient about nothing else: an unknown field or a value
// of the wrong type is refused, naming its path, since a misspelt gate that were ignored would
// let a change through unchecked. A field that is absent or null takes its default: empty, or
// Type Approval and Count 1 for an attestation prerequisite. Whether the definition makes sense
// (stage names, known prerequisites, compiling expressions) is validate.h's to say.
//
// Pure; thread-safe.

#ifndef CUB_LIB_WORKFLOW_PARSE_H_
#define CUB_LIB_WORKFLOW_PARSE_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "lib/config/node.h"
#include "lib/workflow/model.h"

namespace cub::workflow {

struct ParseOptions {
  // Top-level fields to accept and skip, such as the entity fields (Slug, SpaceID ...) that
  // `cub changeworkflow get -o json` prints beside the definition, so that its output can be
  // fed back. Empty by default: every top-level field must be part of the definition.
  std::vector<std::string> skip_fields;
};

// Parses one YAML or JSON document. Errors are InvalidArgument and report the first problem:
//   - ParseYaml's, as it words them ("yaml: line 3, column 5: ...");
//   - "workflow is empty", or "workflow must be one document, got N";
//   - "<path>: unknown field; did you mean Prerequisites?" (the suggestion when one is close,
//     otherwise the fields allowed there), e.g. path "Stages[1].Prerequisite";
//   - "<path>: must be a string, got int" (likewise a list, a mapping, an integer, true or
//     false), e.g. "AttestationPrerequisites[0].Count: must be an integer, got string";
//   - "<path>: 3000000000 is out of range" for a Count beyond 32 bits.
absl::StatusOr<Workflow> ParseWorkflow(std::string_view text,
                                       const ParseOptions& options = ParseOptions());

// The same over an already parsed document.
absl::StatusOr<Workflow> WorkflowFromNode(const config::Node& doc,
                                          const ParseOptions& options = ParseOptions());

}  // namespace cub::workflow

#endif  // CUB_LIB_WORKFLOW_PARSE_H_
