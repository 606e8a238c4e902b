// CEL expressions over Kubernetes resources, as vet-cel evaluates them: each resource (a
// document with a kind) is bound, as a JSON-like value, to the variable `r`, and the
// expression must be a bool ("r.kind != 'Deployment' || r.spec.replicas <= 10").
//
// Pure functions; thread-safe.

#ifndef CUB_LIB_FUNCTIONS_CEL_RESOURCE_H_
#define CUB_LIB_FUNCTIONS_CEL_RESOURCE_H_

#include <string_view>

#include "absl/status/statusor.h"
#include "lib/cel/cel.h"
#include "lib/config/node.h"

namespace cub::functions {

// The name the resource is bound to.
inline constexpr char kCelResourceVariable[] = "r";

// Compiles a resource expression: `r` declared dynamic, the result required to be a bool
// (cel::CompileGate). Errors: InvalidArgument "cel: line:column: ...".
absl::StatusOr<cel::Program> CompileResourceExpression(std::string_view expr);

// `node` as the CEL value JSON data would give: mappings become maps with string keys,
// sequences lists, ints int, floats double (the non-finite ones too), strings, bools, null.
cel::Value ToCelValue(const config::Node& node);

}  // namespace cub::functions

#endif  // CUB_LIB_FUNCTIONS_CEL_RESOURCE_H_
