// The CEL subset of cub: the expressions ChangeWorkflow gates are written in. Include this
// header; it brings in the pieces:
//   type.h     Type: static types for Declarations and Program::result_type
//   value.h    Value: runtime values, Value::FromJson for the API's JSON
//   program.h  Declarations, Activation, Program::Compile / Evaluate: the entry point,
//              error format, limits and thread safety
//   gate.h     CompileGate / EvaluateGate: bool-valued expressions for gates
//
// The subset: null, bool, int, uint, double, string (escapes, raw r'..', triple-quoted),
// bytes, list and map literals; field selection (a.b, a.`content-type`), indexing, `in`,
// !, &&, || (with CEL's error absorption), ?:, comparisons, arithmetic with overflow
// errors, + on strings, bytes and lists; has(), size(), contains(), startsWith(),
// endsWith(), matches() (RE2); the all, exists, exists_one, map and filter macros; int(),
// uint(), double(), string(), bool(), bytes(), dyn(), type(); timestamp() and duration()
// with comparison and arithmetic, and the getFullYear() ... getMilliseconds() accessors
// (optionally in a time zone). Not included: protobuf messages, enums, optional values,
// extension libraries, partial evaluation (unknowns).

#ifndef CUB_LIB_CEL_CEL_H_
#define CUB_LIB_CEL_CEL_H_

#include "lib/cel/gate.h"     // IWYU pragma: export
#include "lib/cel/program.h"  // IWYU pragma: export
#include "lib/cel/type.h"     // IWYU pragma: export
#include "lib/cel/value.h"    // IWYU pragma: export

#endif  // CUB_LIB_CEL_CEL_H_
