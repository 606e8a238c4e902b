// Use cases on ChangeWorkflows: every write parses (strictly) and validates the whole
// definition, compiling its where and CEL expressions, so a broken workflow is refused when
// it is written rather than when a promotion reads it.
#ifndef CUB_LIB_OPS_CHANGE_WORKFLOWS_H_
#define CUB_LIB_OPS_CHANGE_WORKFLOWS_H_

#include "absl/status/statusor.h"
#include "cub/v1/changeworkflow.pb.h"
#include "lib/ops/principal.h"
#include "lib/store/pool.h"

namespace cub::ops {

absl::StatusOr<v1::ChangeWorkflow> CreateChangeWorkflow(store::ConnectionPool& db,
                                                        const Principal& p,
                                                        const v1::CreateChangeWorkflowRequest& req);
absl::StatusOr<v1::ChangeWorkflow> GetChangeWorkflow(store::ConnectionPool& db, const Principal& p,
                                                     const v1::GetChangeWorkflowRequest& req);
absl::StatusOr<v1::ListChangeWorkflowsResponse> ListChangeWorkflows(
    store::ConnectionPool& db, const Principal& p, const v1::ListChangeWorkflowsRequest& req);
absl::StatusOr<v1::ChangeWorkflow> UpdateChangeWorkflow(store::ConnectionPool& db,
                                                        const Principal& p,
                                                        const v1::UpdateChangeWorkflowRequest& req);
absl::Status DeleteChangeWorkflow(store::ConnectionPool& db, const Principal& p,
                                  const v1::DeleteChangeWorkflowRequest& req);

}  // namespace cub::ops

#endif  // CUB_LIB_OPS_CHANGE_WORKFLOWS_H_
