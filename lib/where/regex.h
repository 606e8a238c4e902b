// The regular expressions of '~', '~*' (ignoring case), '!~' and '!~*' (their negations).
// PostgreSQL runs them in SQL (its POSIX "advanced" regular expressions) and RE2 runs them in
// memory, and both must accept the same patterns and agree on what they match. So a pattern is
// accepted only when RE2 compiles it within kRegexBudget AND it stays inside the syntax both
// engines read alike:
//   literals, '.', '^', '$', '|', groups '(...)' and '(?:...)', '*', '+', '?', bounds {m},
//   {m,} and {m,n} up to 255 (PostgreSQL's limit), their lazy forms ('*?' ...), bracket
//   expressions with ranges and [:class:] names, and the escapes \d \s \w \D \S \W \A \t \n
//   \r \f \v \a and '\' before punctuation.
// Refused, each naming the construct: \b and \B (a word boundary in RE2, a backspace and a
// backslash in PostgreSQL), \x, octal and other escapes, '(?' flags, named groups and
// look-arounds, a '{' that starts no bound (write '\{') and a lone '}', counts above 255, a
// repeated anchor ('^*', '$+'), collating elements [. .] and [= =], class names other than
// the twelve POSIX ones, and \D \S \W inside brackets. Backreferences are refused by RE2
// itself. tests/integration/where_regex_pg_test.cc checks the two engines agree.
// '.' and negated brackets match a newline in both (RE2 runs with dot_nl, as PostgreSQL
// matches by default). Known gap: \w, \d and [:alpha:]-style classes are ASCII in RE2 and
// follow the database's locale in PostgreSQL, so they may disagree on non-ASCII letters.
//
// Internal to lib/where. Pure functions; thread-safe.

#ifndef CUB_LIB_WHERE_REGEX_H_
#define CUB_LIB_WHERE_REGEX_H_

#include <memory>
#include <string_view>

#include "absl/status/statusor.h"
#include "lib/util/bounded_regex.h"
#include "re2/re2.h"

namespace cub::where::internal {

// 1 KiB of pattern and 5000 compiled instructions: ample for a filter, and small enough that
// PostgreSQL's regex compiler is never pushed either (its own limits would be an INTERNAL
// error, not the user's refusal).
inline constexpr RegexBudget kRegexBudget{};

// The compiled pattern, or InvalidArgument naming it and what is wrong (no "where:" prefix and
// no position: the caller adds them), e.g. "regular expression '\bx' uses '\b', which
// PostgreSQL reads differently (a backspace); use a character class".
// `ignore_case` for '~*' and '!~*' (PostgreSQL's case-insensitive forms; RE2 folds case by
// Unicode rules, PostgreSQL by the database's locale: the same gap as for \w above).
absl::StatusOr<std::shared_ptr<const RE2>> CompileRegex(std::string_view pattern,
                                                        bool ignore_case = false);

}  // namespace cub::where::internal

#endif  // CUB_LIB_WHERE_REGEX_H_
