// The text form of a one-dimensional PostgreSQL array, for binding a list as ONE parameter
// ($1::text[], $1::bigint[] ...) however long it is: every element double-quoted, with '"' and
// '\' escaped by a backslash, so any text (commas, braces, spaces, the word NULL) comes back
// as itself and none is read as NULL. The elements must hold no NUL byte, which PostgreSQL text
// cannot either.
//
// Pure function; thread-safe.

#ifndef CUB_LIB_UTIL_PG_ARRAY_H_
#define CUB_LIB_UTIL_PG_ARRAY_H_

#include <string>
#include <vector>

namespace cub {

// {"a","b \"c\"","d\\e"}; {} for no elements.
std::string PgArrayLiteral(const std::vector<std::string>& values);

}  // namespace cub

#endif  // CUB_LIB_UTIL_PG_ARRAY_H_
