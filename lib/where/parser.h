// Parses where text into an Expr. Grammar (keywords case-insensitive):
//
//   expr      := or
//   or        := and ('OR' and)*
//   and       := not ('AND' not)*
//   not       := 'NOT' not | primary
//   primary   := '(' expr ')' | predicate
//   predicate := operand op value
//              | operand ['NOT'] 'IN' '(' value (',' value)* ')'
//              | operand 'IS' ['NOT'] 'NULL'
//              | field '?' value
//              | operand ['NOT'] 'LIKE' string | operand ['NOT'] 'ILIKE' string
//              | operand '~' string
//   operand   := field | 'LEN' '(' field ')'
//   op        := '=' | '!=' | '<>' | '<' | '>' | '<=' | '>='
//   value     := 'string' ('' escapes a quote) | integer | 'true' | 'false'
//
// So AND binds tighter than OR, and NOT tighter than AND. The parser checks syntax only;
// fields and types are checked against a Schema when the tree is compiled or matched.

#ifndef CUB_LIB_WHERE_PARSER_H_
#define CUB_LIB_WHERE_PARSER_H_

#include <cstddef>
#include <memory>
#include <string_view>

#include "absl/status/statusor.h"
#include "lib/where/ast.h"

namespace cub::where {

// Parentheses and NOTs nest at most this deep, so that hostile input cannot exhaust the stack.
inline constexpr int kMaxNesting = 100;

// Longer text is refused before it is read: it bounds the work and memory of parsing,
// binding and matching (an IN list, however long, is one SQL parameter; see sql.h).
inline constexpr size_t kMaxTextBytes = size_t{256} << 10;

// Parses `text`. Blank text gives an Expr of kind kTrue (matches everything). Errors are
// InvalidArgument, "where: <what> at <1-based character position>"; text over kMaxTextBytes
// gives "where: expression is N bytes long; the limit is 262144 at 1".
absl::StatusOr<std::shared_ptr<const Expr>> Parse(std::string_view text);

}  // namespace cub::where

#endif  // CUB_LIB_WHERE_PARSER_H_
