// Running functions (lib/functions) over Units: get reads values, set writes a new revision
// of each Unit it changes, vet checks. The head of each Unit is parsed once.
#ifndef CUB_LIB_OPS_FUNCTIONS_H_
#define CUB_LIB_OPS_FUNCTIONS_H_

#include "absl/status/statusor.h"
#include "cub/v1/function.pb.h"
#include "lib/ops/principal.h"
#include "lib/store/pool.h"

namespace cub::ops {

absl::StatusOr<v1::ListFunctionsResponse> ListFunctions(const v1::ListFunctionsRequest& req);

// Selecting no Unit is NOT_FOUND; a set needs the editor role, get and vet any role. A set's
// writes are all or nothing.
absl::StatusOr<v1::InvokeFunctionResponse> InvokeFunction(store::ConnectionPool& db,
                                                          const Principal& p,
                                                          const v1::InvokeFunctionRequest& req);

// Saves a function call with declared parameters. The function must exist for the toolchain,
// every template argument may name only declared parameters, and a parameter's type is one
// of string, int and bool.
absl::StatusOr<v1::Invocation> CreateInvocation(store::ConnectionPool& db, const Principal& p,
                                                const v1::CreateInvocationRequest& req);
absl::StatusOr<v1::Invocation> GetInvocation(store::ConnectionPool& db, const Principal& p,
                                             const v1::GetInvocationRequest& req);
absl::StatusOr<v1::ListInvocationsResponse> ListInvocations(
    store::ConnectionPool& db, const Principal& p, const v1::ListInvocationsRequest& req);

}  // namespace cub::ops

#endif  // CUB_LIB_OPS_FUNCTIONS_H_
