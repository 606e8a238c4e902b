// Compiling and evaluating CEL expressions: the entry point of lib/cel (include cel.h).
//
//   cel::Declarations decls;
//   decls.variables = {{"Space", cel::Type::Dyn()}, {"now", cel::Type::Timestamp()}};
//   absl::StatusOr<cel::Program> p = cel::Program::Compile(
//       "!('code-freeze' in Space.Annotations) || Space.Annotations['code-freeze'] != 'true'",
//       decls);
//   cel::Activation vars;
//   vars.Bind("Space", *cel::Value::FromJson(space_json));
//   vars.Bind("now", cel::Value::Timestamp(absl::Now()));
//   absl::StatusOr<cel::Value> v = p->Evaluate(vars);
//
// Compile errors and evaluation errors are InvalidArgument statuses whose message names the
// position, line:column with columns in code points:
//   "cel: 1:14: undeclared reference to 'Spce'"
//   "cel: 1:3: no matching overload for '_+_' applied to (int, string)"
//   "cel: evaluated to error: 1:38: no such key: 'code-freeze'"
// Evaluation errors follow CEL: an error inside `a && b` or `a || b` is absorbed when the
// other side decides the result (false && error is false, true || error is true), likewise
// in all() and exists(); anywhere else the first error is the result.
//
// Limits, so that any text is safe to compile and evaluate: nesting deeper than 100 levels
// is a compile error; a regular expression is compiled with RE2 within a budget (1 KiB of
// pattern, 5000 instructions; lib/util/bounded_regex.h); an evaluation runs at most 1,000,000
// comprehension iterations and builds strings and bytes of at most 16 MiB and lists of at
// most 2^20 elements by + and comprehensions; exceeding one of these is an evaluation error.
// Every evaluation also has a budget (EvaluateOptions), checked as it runs: its cost (one
// per step, plus the size of the data each function reads) and the memory it allocates
// (every string, bytes, list and map it builds, counted when built, even if dropped later).
// Going over either ends the evaluation at once with RESOURCE_EXHAUSTED, which no && or ||
// absorbs: "cel: evaluating 'EXPR' exceeded its memory budget of 16 MiB".
//
// Thread safety: a Program is immutable once compiled; copies share it, and any number of
// threads may Evaluate the same Program at once. Declarations and Activation are plain
// values: build them in one thread, then read them from many.

#ifndef CUB_LIB_CEL_PROGRAM_H_
#define CUB_LIB_CEL_PROGRAM_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "lib/cel/type.h"
#include "lib/cel/value.h"

namespace cub::cel {

// The variables an expression may use, with their types. Names may contain dots
// ("a.b.c"); a dotted reference resolves to the longest declared name.
struct Declarations {
  std::map<std::string, Type> variables;
};

// The values of the declared variables for one evaluation.
class Activation {
 public:
  // Binds (or rebinds) `name`.
  Activation& Bind(std::string name, Value value);
  // The value bound to `name`, or nullptr.
  const Value* Find(std::string_view name) const;

 private:
  std::map<std::string, Value, std::less<>> values_;
};

struct CompileOptions {
  // Type-check the expression (the default, and what gates use). Off, names are still
  // resolved against the declarations, but type mistakes, unknown functions and undeclared
  // names become evaluation errors; the CEL conformance cases marked disable_check need this.
  bool check_types = true;
};

// The budget of one evaluation (see the limits above). The defaults suit gates and vet-cel:
// far beyond any sensible expression, and small enough that a hostile one costs the server
// at most a fraction of a second and a few tens of MiB.
struct EvaluateOptions {
  // Steps: one per sub-expression evaluated, plus, for each function call, the elements of
  // the lists and maps and 1 per 64 bytes of the strings and bytes it is given.
  int64_t max_cost = 10'000'000;
  // Bytes of the strings, bytes, lists and maps built, counted cumulatively.
  int64_t max_memory_bytes = int64_t{16} << 20;
};

class Program {
 public:
  // Parses, resolves names and (by default) type-checks `expr`. Errors: InvalidArgument
  // "cel: line:column: message".
  static absl::StatusOr<Program> Compile(std::string_view expr, const Declarations& decls,
                                         const CompileOptions& options = CompileOptions());

  // The static type of the expression's result: exact when the checker could tell
  // (bool for `now < timestamp('...')`), Dyn when it depends on dynamic data or checking
  // was off.
  Type result_type() const;
  // The expression text as compiled.
  const std::string& source() const;

  // Evaluates with `vars`. A declared variable that is unbound, or bound to a value whose
  // kind contradicts its declared type, is an evaluation error. When the expression
  // evaluates to a CEL error, returns InvalidArgument "cel: evaluated to error: <where>:
  // <message>"; the returned Value is never of kind kError. Over `options`' budget:
  // RESOURCE_EXHAUSTED "cel: evaluating '<expression, shortened>' exceeded its cost budget of
  // 10000000 steps" (or "its memory budget of 16 MiB").
  absl::StatusOr<Value> Evaluate(const Activation& vars,
                                 const EvaluateOptions& options = EvaluateOptions()) const;

 private:
  struct Impl;
  explicit Program(std::shared_ptr<const Impl> impl) : impl_(std::move(impl)) {}
  std::shared_ptr<const Impl> impl_;
};

}  // namespace cub::cel

#endif  // CUB_LIB_CEL_PROGRAM_H_
