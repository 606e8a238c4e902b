// How the where language reports a mistake in the user's text: an InvalidArgument status
// whose message starts "where: " and ends " at N", N being the 1-based character position
// the mistake was found at. Every error of Parse, CompileToSql and Matcher::Create goes
// through ErrorAt, so callers can show the message to users as it is.
//
// Internal to lib/where.

#ifndef CUB_LIB_WHERE_ERROR_H_
#define CUB_LIB_WHERE_ERROR_H_

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace cub::where::internal {

template <typename... Args>
absl::Status ErrorAt(int pos, const absl::FormatSpec<Args...>& format, const Args&... args) {
  return absl::InvalidArgumentError(
      absl::StrCat("where: ", absl::StrFormat(format, args...), " at ", pos));
}

}  // namespace cub::where::internal

#endif  // CUB_LIB_WHERE_ERROR_H_
