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

// Every function here returns a Status and never throws: a database error comes back as the
// Status lib/store/errors.h maps it to.

// The Invocation as stored. ALREADY_EXISTS when the Space has one of that slug.
absl::StatusOr<v1::Invocation> InsertInvocation(Tx& tx, const v1::Invocation& inv,
                                                const std::string& created_by);
// The Space's Invocation of that slug or ID; nullopt when it has none.
absl::StatusOr<std::optional<v1::Invocation>> FindInvocation(Tx& tx, const std::string& space_id,
                                                             const std::string& slug_or_id);
// By slug.
absl::StatusOr<std::vector<v1::Invocation>> ListInvocations(Tx& tx, const std::string& space_id);

}  // namespace cub::store

#endif  // CUB_LIB_STORE_INVOCATIONS_H_
