// SQL LIKE and ILIKE pattern matching as PostgreSQL does it, for the in-memory evaluator:
// '%' matches any run of characters, '_' exactly one character (not byte), and a backslash
// (the default escape) makes the next character literal. The pattern must match all of the
// text.
//
// ILIKE here folds ASCII letters only; PostgreSQL folds per the database locale, so for
// non-ASCII letters the two may disagree.
//
// Internal to lib/where. Pure functions; thread-safe.

#ifndef CUB_LIB_WHERE_LIKE_H_
#define CUB_LIB_WHERE_LIKE_H_

#include <string_view>

namespace cub::where::internal {

// False if PostgreSQL would refuse `pattern`: it ends with an unescaped backslash.
bool LikePatternValid(std::string_view pattern);

// Whether `text` matches `pattern`. Precondition: LikePatternValid(pattern).
bool LikeMatch(std::string_view text, std::string_view pattern, bool case_insensitive);

}  // namespace cub::where::internal

#endif  // CUB_LIB_WHERE_LIKE_H_
