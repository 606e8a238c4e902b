// Custom prerequisites as gates: compiling their CEL once, when a workflow is written, and
// evaluating them when a promotion or publish is attempted.
//
// An Expression is "cel:" followed by a CEL expression (lib/cel) that must yield a bool. It
// sees four variables:
//   Space        the Space being evaluated, as the API's JSON (Labels, Annotations ...)
//   ChangeOrder  the ChangeOrder, as the API's JSON
//   Release      the Release of that Space carrying the change, as the API's JSON, or null
//                when there is none
//   now          the evaluation time, a google.protobuf.Timestamp, for freeze windows:
//                now < timestamp('2026-12-24T00:00:00Z') || now > timestamp('2027-01-02T00:00:00Z')
// Space, ChangeOrder and Release are Dyn (checked only when evaluated).
//
// Thread safety: a CompiledCustom, like cel::Program, may be evaluated from any number of
// threads at once; GateInputs are immutable values.

#ifndef CUB_LIB_WORKFLOW_CUSTOM_GATE_H_
#define CUB_LIB_WORKFLOW_CUSTOM_GATE_H_

#include <map>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "lib/cel/cel.h"
#include "lib/workflow/model.h"

namespace cub::workflow {

inline constexpr std::string_view kCelPrefix = "cel:";

// The declarations above: Space, ChangeOrder and Release Dyn, now Timestamp.
const cel::Declarations& GateDeclarations();

// Compiles an Expression: requires the "cel:" prefix and a CEL expression after it that
// compiles as a bool gate (cel::CompileGate). Errors are InvalidArgument: "Expression must
// start with cel:", "Expression is empty after cel:", or CEL's own message, whose positions
// count from the first character after "cel:" ("cel: 1:14: undeclared reference to 'Spce'").
absl::StatusOr<cel::Program> CompileExpression(std::string_view expression);

struct CompiledCustom {
  std::string name;
  std::string description;
  std::string expression;  // as written, "cel:" included (for records)
  cel::Program program;
};

// Compiles every custom prerequisite of `w`, keyed by name. Fails on the first expression that
// does not compile, with "CustomPrerequisites '<name>': <CompileExpression's message>" (a name
// declared twice keeps its first declaration; Validate refuses such a workflow anyway).
absl::StatusOr<std::map<std::string, CompiledCustom>> CompileCustomPrerequisites(const Workflow& w);

// The variables of one evaluation, built once per Space and shared by all its custom gates.
struct GateInputs {
  cel::Value space;
  cel::Value change_order;
  cel::Value release;  // null when the Space has no Release carrying the change
  absl::Time now;
};

// Reads the three JSON texts (an empty text is null). InvalidArgument naming the one that is
// not valid JSON: "Space: <cel::Value::FromJson's message>".
absl::StatusOr<GateInputs> MakeGateInputs(std::string_view space_json,
                                          std::string_view change_order_json,
                                          std::string_view release_json, absl::Time now);

// Evaluates `gate`: OK(true) when it holds, OK(false) when the expression is false (report
// NotSatisfiedMessage(gate)). When the expression fails to evaluate (a missing key, a type
// mismatch, a non-bool result), FailedPrecondition with a message ready for a refusal:
//   "requires not-frozen: the space is not under a code freeze (cel: evaluated to error:
//    1:38: no such key: 'code-freeze')"
absl::StatusOr<bool> EvaluateCustom(const CompiledCustom& gate, const GateInputs& inputs);

// MakeGateInputs then EvaluateCustom, for a single gate; bad JSON fails as MakeGateInputs.
absl::StatusOr<bool> EvaluateCustom(const CompiledCustom& gate, std::string_view space_json,
                                    std::string_view change_order_json,
                                    std::string_view release_json, absl::Time now);

// Why a gate that evaluated to false refuses: "requires not-frozen: the space is not under a
// code freeze (expression evaluated to false)"; without a description, "requires not-frozen
// (expression evaluated to false)".
std::string NotSatisfiedMessage(const CompiledCustom& gate);

}  // namespace cub::workflow

#endif  // CUB_LIB_WORKFLOW_CUSTOM_GATE_H_
