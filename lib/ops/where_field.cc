#include "lib/ops/where_field.h"

#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"

namespace cub::ops {

absl::Status NameWhereField(const absl::Status& s, std::string_view field) {
  constexpr absl::string_view kPrefix = "where: ";
  if (!absl::IsInvalidArgument(s) || !absl::StartsWith(s.message(), kPrefix)) return s;
  return absl::InvalidArgumentError(
      absl::StrCat(std::string(field), ": ", s.message().substr(kPrefix.size())));
}

}  // namespace cub::ops
