// Regular expressions from users, compiled with RE2 under a budget. RE2 matches in time linear
// in the text and never recurses on the pattern, but a long or heavily repeated pattern still
// compiles to a large program and a large DFA cache; the budget bounds both, so that any text a
// user sends is safe to compile and match. Used by the where language's '~' and by CEL's
// matches().
//
// Pure functions; thread-safe. A compiled RE2 is immutable and may be shared across threads.

#ifndef CUB_LIB_UTIL_BOUNDED_REGEX_H_
#define CUB_LIB_UTIL_BOUNDED_REGEX_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "re2/re2.h"

namespace cub {

struct RegexBudget {
  // Longest pattern accepted, in bytes.
  size_t max_pattern_bytes = 1024;
  // Largest compiled program accepted (RE2::ProgramSize(), roughly instructions). A literal
  // compiles to about one instruction per character; a{N} repeats a's program N times.
  int max_program_size = 5000;
  // RE2::Options::max_mem: memory for the compiled programs and the DFA cache. When the cache
  // is full RE2 falls back to its (slower, still linear) NFA; matching never fails.
  int64_t max_mem = int64_t{1} << 20;
};

// `options` with the budget's max_mem and error logging off (errors come back as statuses).
RE2::Options BudgetedOptions(RE2::Options options, const RegexBudget& budget);

// Compiles `pattern` with BudgetedOptions(options, budget). Fails with InvalidArgument whose
// message names the pattern (quoted, shortened) and the problem, without a prefix for the
// caller's context:
//   "regular expression '((((((((((((((((((((((((((((((((((((((((…' is 30000 bytes long; the
//    limit is 1024"
//   "regular expression '(.{255}){3}' is too complex: it compiles to 5365 instructions; the
//    limit is 5000"
//   "invalid regular expression '(': missing ')'"
absl::StatusOr<std::shared_ptr<const RE2>> CompileBoundedRegex(std::string_view pattern,
                                                               const RE2::Options& options,
                                                               const RegexBudget& budget);

// `text` (a pattern, an expression) in single quotes for a message, cut after 40 code points
// with "…".
std::string QuoteForMessage(std::string_view text);

}  // namespace cub

#endif  // CUB_LIB_UTIL_BOUNDED_REGEX_H_
