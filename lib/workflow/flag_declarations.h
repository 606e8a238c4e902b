// The declaration half of ApplyFlags (flags.h): --delete-prerequisite, --custom-prerequisite*
// and --attestation-prerequisite*, applied in that order.
//
// Internal to lib/workflow. Pure; thread-safe.

#ifndef CUB_LIB_WORKFLOW_FLAG_DECLARATIONS_H_
#define CUB_LIB_WORKFLOW_FLAG_DECLARATIONS_H_

#include "absl/status/status.h"
#include "lib/workflow/flags.h"
#include "lib/workflow/model.h"

namespace cub::workflow::internal {

// Edits `w`'s declarations per `flags`; on error `w` is partly edited (the caller drops it).
absl::Status ApplyDeclarationFlags(const WorkflowFlags& flags, Workflow* w);

}  // namespace cub::workflow::internal

#endif  // CUB_LIB_WORKFLOW_FLAG_DECLARATIONS_H_
