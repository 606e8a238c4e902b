// Bridges std::string_view, which lib/cel's interfaces use, to absl::string_view, which
// this Abseil build (ABSL_OPTION_USE_STD_STRING_VIEW 0) keeps a distinct type.
//
// Internal to lib/cel.

#ifndef CUB_LIB_CEL_ABSL_COMPAT_H_
#define CUB_LIB_CEL_ABSL_COMPAT_H_

#include <string_view>

#include "absl/strings/string_view.h"

namespace cub::cel::internal {

inline absl::string_view Sv(std::string_view s) { return absl::string_view(s.data(), s.size()); }

}  // namespace cub::cel::internal

#endif  // CUB_LIB_CEL_ABSL_COMPAT_H_
