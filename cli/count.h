// Counts in messages, with the noun in the singular for one and the plural otherwise.
#ifndef CUB_CLI_COUNT_H_
#define CUB_CLI_COUNT_H_

#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"

namespace cub::cli {

// "1 unit", "3 units", "0 units". Nouns with another plural than "-s" are not passed here.
inline std::string Count(int n, absl::string_view noun) {
  return absl::StrCat(n, " ", noun, n == 1 ? "" : "s");
}

}  // namespace cub::cli

#endif  // CUB_CLI_COUNT_H_
