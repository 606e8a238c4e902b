// ChangeWorkflows: the definition of the Stages a change moves through and the gates before
// each hop. Pure: no database, no transport. Include this header; it brings in the pieces:
//   model.h        Workflow and its parts as plain values; built-in prerequisite names
//   parse.h        ParseWorkflow: YAML or JSON text -> Workflow, strict about fields and types
//   emit.h         ToJson / ToNode: the canonical form the server stores and prints
//   validate.h     Validate / Problems: is it usable; ValidateForUpdateType
//   flags.h        FromFlags / ApplyFlags: `cub changeworkflow create|update` flags
//   custom_gate.h  CompileCustomPrerequisites / EvaluateCustom: the CEL gates
//
// Typical write path (server): ParseWorkflow (or ApplyFlags on the stored one), Validate
// against the Space where-schema, store ToJson. Evaluation path: ParseWorkflow of the
// ChangeOrder's snapshot, CompileCustomPrerequisites once, then MakeGateInputs per Space and
// EvaluateCustom per gate.

#ifndef CUB_LIB_WORKFLOW_WORKFLOW_H_
#define CUB_LIB_WORKFLOW_WORKFLOW_H_

#include "lib/workflow/custom_gate.h"  // IWYU pragma: export
#include "lib/workflow/emit.h"         // IWYU pragma: export
#include "lib/workflow/flags.h"        // IWYU pragma: export
#include "lib/workflow/model.h"        // IWYU pragma: export
#include "lib/workflow/parse.h"        // IWYU pragma: export
#include "lib/workflow/validate.h"     // IWYU pragma: export

#endif  // CUB_LIB_WORKFLOW_WORKFLOW_H_
