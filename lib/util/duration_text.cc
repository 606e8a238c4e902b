#include "lib/util/duration_text.h"

#include <cstdint>
#include <iterator>

#include "absl/strings/str_cat.h"

namespace cub {
namespace {

struct Unit {
  char name;
  int64_t seconds;
};
constexpr Unit kUnits[] = {{'d', 86400}, {'h', 3600}, {'m', 60}, {'s', 1}};
constexpr int64_t kMaxSeconds = int64_t{100} * 366 * 86400;

absl::Status NotADuration(std::string_view text) {
  return absl::InvalidArgumentError(
      absl::StrCat("'", std::string(text),
                   "' is not a duration: write a whole number with a unit d, h, m or s, such as "
                   "30d"));
}

}  // namespace

absl::StatusOr<absl::Duration> ParseDayDuration(std::string_view text) {
  if (text.empty()) return NotADuration(text);
  int64_t total = 0;
  size_t next_unit = 0;  // units must come in decreasing order, each once
  size_t i = 0;
  while (i < text.size()) {
    int64_t n = 0;
    size_t digits = 0;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9') {
      if (n > kMaxSeconds) return NotADuration(text);
      n = n * 10 + (text[i] - '0');
      ++i;
      ++digits;
    }
    if (digits == 0 || i == text.size()) return NotADuration(text);
    size_t u = next_unit;
    while (u < std::size(kUnits) && kUnits[u].name != text[i]) ++u;
    if (u == std::size(kUnits)) return NotADuration(text);
    ++i;
    next_unit = u + 1;
    if (n > kMaxSeconds / kUnits[u].seconds) return NotADuration(text);
    total += n * kUnits[u].seconds;
    if (total > kMaxSeconds) return NotADuration(text);
  }
  if (total == 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("'", std::string(text), "' is not a positive duration"));
  }
  return absl::Seconds(total);
}

std::string FormatDayDuration(absl::Duration d) {
  int64_t s = absl::ToInt64Seconds(d);
  if (s <= 0) return "0s";
  std::string out;
  for (const Unit& u : kUnits) {
    if (s >= u.seconds) {
      absl::StrAppend(&out, s / u.seconds, std::string(1, u.name));
      s %= u.seconds;
    }
  }
  return out;
}

}  // namespace cub
