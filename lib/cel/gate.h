// CEL as ChangeWorkflow gates use it: an expression that must come out true for a promotion
// to go ahead, e.g. a custom prerequisite
//   !('code-freeze' in Space.Annotations) || Space.Annotations['code-freeze'] != 'true'
// or a freeze window
//   now < timestamp('2026-12-24T00:00:00Z') || now > timestamp('2027-01-02T00:00:00Z')
//
// CompileGate refuses, at write time, expressions that cannot yield a bool (their checked
// type is known and not bool). EvaluateGate turns the three outcomes into true, false, or an
// error status whose message says why ("cel: evaluated to error: 1:38: no such key:
// 'code-freeze'", "cel: evaluated to string, want bool").
//
// Thread-safe as Program is.

#ifndef CUB_LIB_CEL_GATE_H_
#define CUB_LIB_CEL_GATE_H_

#include <string_view>

#include "absl/status/statusor.h"
#include "lib/cel/program.h"

namespace cub::cel {

// Compiles `expr` with type checking and requires a bool (or Dyn) result. Errors:
// InvalidArgument, e.g. "cel: gate expression must be bool, got int".
absl::StatusOr<Program> CompileGate(std::string_view expr, const Declarations& decls);

// Evaluates a gate. OK(true/false) when it evaluates to a bool; RESOURCE_EXHAUSTED over the
// budget of `options` (Program::Evaluate); InvalidArgument otherwise.
absl::StatusOr<bool> EvaluateGate(const Program& gate, const Activation& vars,
                                  const EvaluateOptions& options = EvaluateOptions());

}  // namespace cub::cel

#endif  // CUB_LIB_CEL_GATE_H_
