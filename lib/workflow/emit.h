// Writing a ChangeWorkflow definition back out: the canonical JSON the server stores (jsonb)
// and prints, and the Node that `-o yaml` renders with config::EmitYaml.
//
// Canonical means one text per Workflow value: every field is written, defaults and empty
// lists included, in a fixed order (Stages, Final, CustomPrerequisites,
// AttestationPrerequisites; within each, the order parse.h lists), strings as given. So
// equal Workflows give identical bytes, and ParseWorkflow(ToJson(w)) == w for every w whose
// strings are valid UTF-8.
//
// Pure; thread-safe.

#ifndef CUB_LIB_WORKFLOW_EMIT_H_
#define CUB_LIB_WORKFLOW_EMIT_H_

#include <string>

#include "lib/config/node.h"
#include "lib/workflow/model.h"

namespace cub::workflow {

// `w` as a mapping Node with the PascalCase field names.
config::Node ToNode(const Workflow& w);

// `w` as JSON: compact, or with `pretty` two-space indentation. No trailing newline.
std::string ToJson(const Workflow& w, bool pretty = false);

}  // namespace cub::workflow

#endif  // CUB_LIB_WORKFLOW_EMIT_H_
