#include "lib/cel/gate.h"

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace cub::cel {

absl::StatusOr<Program> CompileGate(std::string_view expr, const Declarations& decls) {
  absl::StatusOr<Program> p = Program::Compile(expr, decls);
  if (!p.ok()) return p.status();
  const Type t = p->result_type();
  if (t.kind() != Type::Kind::kBool && !t.is_dyn()) {
    return absl::InvalidArgumentError(
        absl::StrCat("cel: gate expression must be bool, got ", t.DebugString()));
  }
  return p;
}

absl::StatusOr<bool> EvaluateGate(const Program& gate, const Activation& vars,
                                  const EvaluateOptions& options) {
  absl::StatusOr<Value> v = gate.Evaluate(vars, options);
  if (!v.ok()) return v.status();
  if (v->kind() != Value::Kind::kBool) {
    return absl::InvalidArgumentError(
        absl::StrCat("cel: evaluated to ", KindName(v->kind()), ", want bool"));
  }
  return v->bool_value();
}

}  // namespace cub::cel
