// Naming the request field a where expression came from in its refusal.
#ifndef CUB_LIB_OPS_WHERE_FIELD_H_
#define CUB_LIB_OPS_WHERE_FIELD_H_

#include <string_view>

#include "absl/status/status.h"

namespace cub::ops {

// A refusal of the where language ("where: unknown field 'X' at 1") as one of the request
// field `field`: "Where: unknown field 'X' at 1". Any other status is returned as it is.
absl::Status NameWhereField(const absl::Status& s, std::string_view field);

}  // namespace cub::ops

#endif  // CUB_LIB_OPS_WHERE_FIELD_H_
