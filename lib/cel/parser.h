// Parses CEL text into a syntax tree (ast.h). The grammar is CEL's:
//   Expr     = Or ["?" Or ":" Expr]
//   Or       = And {"||" And}            And = Relation {"&&" Relation}
//   Relation = Add {("<"|"<="|">"|">="|"=="|"!="|"in") Add}
//   Add      = Mul {("+"|"-") Mul}       Mul = Unary {("*"|"/"|"%") Unary}
//   Unary    = Member | "!"{"!"} Member | "-"{"-"} Member
//   Member   = Primary {"." NAME ["(" [Args] ")"] | "[" Expr "]"}
//   Primary  = ["."] NAME ["(" [Args] ")"] | "(" Expr ")" | "[" [Args] [","] "]"
//            | "{" [Key ":" Expr {"," Key ":" Expr}] [","] "}" | literal
// Chains of || and && become balanced trees (they are associative), an even run of ! or -
// cancels out, and a single - before a number literal is part of the literal (so
// -9223372036854775808 is an int). Message construction (Name{field: ...}) is not part of
// the subset and is refused.
//
// Errors carry the position: "cel: 1:5: syntax error: unexpected ')'". Trees deeper than
// kMaxDepth, or text nesting parentheses, brackets or calls deeper than that, are refused.
//
// Internal to lib/cel. Pure function; thread-safe.

#ifndef CUB_LIB_CEL_PARSER_H_
#define CUB_LIB_CEL_PARSER_H_

#include <memory>

#include "absl/status/statusor.h"
#include "lib/cel/ast.h"
#include "lib/cel/source.h"

namespace cub::cel::internal {

absl::StatusOr<std::unique_ptr<Expr>> Parse(const Source& source);

}  // namespace cub::cel::internal

#endif  // CUB_LIB_CEL_PARSER_H_
