// Saved Invocations.
#ifndef CUB_LIB_STORE_INVOCATIONS_H_
#define CUB_LIB_STORE_INVOCATIONS_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "cub/v1/function.pb.h"
#include "lib/store/transaction.h"

namespace cub::store {

absl::StatusOr<v1::Invocation> InsertInvocation(Tx& tx, const v1::Invocation& inv,
                                                const std::string& created_by);
std::optional<v1::Invocation> FindInvocation(Tx& tx, const std::string& space_id,
                                             const std::string& slug_or_id);
std::vector<v1::Invocation> ListInvocations(Tx& tx, const std::string& space_id);

}  // namespace cub::store

#endif  // CUB_LIB_STORE_INVOCATIONS_H_
