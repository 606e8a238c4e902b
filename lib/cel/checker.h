// Type checking for the CEL subset: infers the type of every node of a resolved tree
// (resolver.h) and refuses what cannot work for any input, with the position: calls no
// overload accepts ("cel: 1:3: no matching overload for '_+_' applied to (int, string)"),
// unknown functions, field selection on non-maps, comprehensions over non-collections.
// Dyn operands (JSON-like variables) match any overload, so mistakes there surface when
// evaluated.
//
// Internal to lib/cel. Mutates the tree it is given (Expr::type); thread-compatible.

#ifndef CUB_LIB_CEL_CHECKER_H_
#define CUB_LIB_CEL_CHECKER_H_

#include "absl/status/statusor.h"
#include "lib/cel/ast.h"
#include "lib/cel/source.h"
#include "lib/cel/type.h"

namespace cub::cel::internal {

// Sets Expr::type throughout `root` and returns the type of the whole expression.
absl::StatusOr<Type> Check(Expr& root, const Source& source);

}  // namespace cub::cel::internal

#endif  // CUB_LIB_CEL_CHECKER_H_
