// The runtime side of the functions and operators of the CEL subset: given argument values
// (none of them errors: the evaluator propagates those first), produce the result or an error
// value. Dispatch is on the arguments' runtime kinds, so programs compiled without type
// checking, and Dyn operands, get the same answers as checked ones; a call no overload
// accepts yields "no matching overload for '_+_' applied to (int, string)".
//
// The logical operators (&&, ||, ?:) are not here: they are not strict, and the evaluator
// implements them.
//
// Error values returned carry a message without position; the evaluator adds it.
// Internal to lib/cel. Pure functions; thread-safe.

#ifndef CUB_LIB_CEL_FUNCTIONS_H_
#define CUB_LIB_CEL_FUNCTIONS_H_

#include <string>
#include <vector>

#include "lib/cel/value.h"

namespace re2 {
class RE2;
}

namespace cub::cel::internal {

// Strings, bytes and lists built by + are capped, so that an expression cannot make
// evaluation use unbounded memory (lists built by map() and filter() are bounded by the
// iteration limit, eval.h).
inline constexpr size_t kMaxConcatBytes = size_t{16} << 20;
inline constexpr size_t kMaxListSize = size_t{1} << 20;

struct CallArgs {
  const std::string& function;
  bool receiver;  // x.f(...): values[0] is x
  const std::vector<Value>& values;
  const re2::RE2* regex;  // precompiled pattern of matches(), or nullptr
};

// The result of calling a builtin. Unknown functions give "unbound function 'f'".
Value CallBuiltin(const CallArgs& call);

// Helpers shared by the builtin files.
Value NoOverload(const CallArgs& call);

// The families of builtins CallBuiltin tries in turn. Each sets `*handled` to whether the
// function belongs to it, and when it does returns the result (possibly an error value).
Value CallOperator(const CallArgs& call, bool* handled);    // functions_ops.cc
Value CallConversion(const CallArgs& call, bool* handled);  // functions_conv.cc
Value CallStringTime(const CallArgs& call, bool* handled);  // functions_str_time.cc

}  // namespace cub::cel::internal

#endif  // CUB_LIB_CEL_FUNCTIONS_H_
