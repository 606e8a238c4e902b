// Running functions (lib/functions) over Units: get reads values, set writes a new revision
// of each Unit it changes, vet checks. The head of each Unit is parsed once.
#ifndef CUB_LIB_OPS_FUNCTIONS_H_
#define CUB_LIB_OPS_FUNCTIONS_H_

#include "absl/status/statusor.h"
#include "cub/v1/function.pb.h"
#include "lib/ops/principal.h"
#include "lib/store/pool.h"
#include "lib/store/transaction.h"

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
absl::StatusOr<v1::ListInvocationsResponse> ListInvocations(store::ConnectionPool& db,
                                                            const Principal& p,
                                                            const v1::ListInvocationsRequest& req);

// The arguments a run of `inv` with `params` passes to its function: required parameters
// present, no undeclared ones, values of the declared type, templates expanded.
absl::StatusOr<std::vector<std::string>> BindInvocation(
    const v1::Invocation& inv, const google::protobuf::Map<std::string, std::string>& params);

// The Invocation `ref` ("SPACE/NAME", or "NAME" in `default_space`), which `p` may read.
absl::StatusOr<v1::Invocation> ResolveInvocation(store::Tx& tx, const Principal& p,
                                                 const std::string& default_space,
                                                 const std::string& ref);

}  // namespace cub::ops

#endif  // CUB_LIB_OPS_FUNCTIONS_H_
