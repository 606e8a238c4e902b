// Evaluates a resolved (and usually checked) syntax tree against an Activation: the
// tree-walking interpreter behind Program::Evaluate. Implements the non-strict operators
// (&&, ||, ?:), the comprehensions, identifiers and field selection itself, and hands every
// other call to the builtins (functions.h). Errors are values that propagate, each located
// ("1:14: no such key: 'x'") where it arose.
//
// Internal to lib/cel. Reads the tree and the activation only; one Evaluate call per thread
// at a time per Evaluator (make one per evaluation).

#ifndef CUB_LIB_CEL_EVAL_H_
#define CUB_LIB_CEL_EVAL_H_

#include "absl/status/statusor.h"
#include "lib/cel/ast.h"
#include "lib/cel/program.h"
#include "lib/cel/source.h"
#include "lib/cel/value.h"

namespace cub::cel::internal {

inline constexpr int64_t kMaxIterations = 1000000;

// The value of `root`, possibly an error value; or RESOURCE_EXHAUSTED, "exceeded its cost
// budget of N steps" / "exceeded its memory budget of 16 MiB", once `options`' budget is spent
// (the evaluation stops there, and no operator absorbs it).
absl::StatusOr<Value> EvaluateTree(const Expr& root, const Source& source, const Activation& vars,
                                   const EvaluateOptions& options);

}  // namespace cub::cel::internal

#endif  // CUB_LIB_CEL_EVAL_H_
