// Decides what every name in a parsed expression refers to, before type checking: a
// comprehension's iteration variable, a declared variable, or a type denotation (`int`,
// `google.protobuf.Timestamp`). Dotted names resolve to the longest declared name, so with
// "a.b" declared, `a.b.c` selects field c of variable a.b. Also compiles the pattern of
// every matches() call whose pattern is a string literal, so a bad pattern is a compile error.
//
// Internal to lib/cel. Mutates the tree it is given; thread-compatible.

#ifndef CUB_LIB_CEL_RESOLVER_H_
#define CUB_LIB_CEL_RESOLVER_H_

#include <map>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "lib/cel/ast.h"
#include "lib/cel/source.h"
#include "lib/cel/type.h"

namespace cub::cel::internal {

// With `strict`, a name that resolves to nothing is an error ("undeclared reference to
// 'Spce'"); without, it stays Ref::kUnresolved and fails when evaluated.
absl::Status Resolve(std::unique_ptr<Expr>& root, const std::map<std::string, Type>& variables,
                     bool strict, const Source& source);

// Whether `name` is a type denotation CEL predefines ("int", "list", ...).
bool IsTypeName(const std::string& name);

}  // namespace cub::cel::internal

#endif  // CUB_LIB_CEL_RESOLVER_H_
