#include "lib/workflow/custom_gate.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "lib/util/status_macros.h"

namespace cub::workflow {
namespace {

std::string Requires(const CompiledCustom& gate) {
  return gate.description.empty() ? absl::StrCat("requires ", gate.name)
                                  : absl::StrCat("requires ", gate.name, ": ", gate.description);
}

absl::StatusOr<cel::Value> ReadJson(const char* what, std::string_view json) {
  if (json.empty()) return cel::Value::Null();
  absl::StatusOr<cel::Value> v = cel::Value::FromJson(json);
  if (!v.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(what, ": ", v.status().message()));
  }
  return v;
}

}  // namespace

const cel::Declarations& GateDeclarations() {
  static const cel::Declarations* decls = [] {
    auto* d = new cel::Declarations;
    d->variables = {{"Space", cel::Type::Dyn()},
                    {"ChangeOrder", cel::Type::Dyn()},
                    {"Release", cel::Type::Dyn()},
                    {"now", cel::Type::Timestamp()}};
    return d;
  }();
  return *decls;
}

absl::StatusOr<cel::Program> CompileExpression(std::string_view expression) {
  if (expression.substr(0, kCelPrefix.size()) != kCelPrefix) {
    return absl::InvalidArgumentError("Expression must start with cel:");
  }
  std::string_view body = expression.substr(kCelPrefix.size());
  if (body.find_first_not_of(" \t\r\n") == std::string_view::npos) {
    return absl::InvalidArgumentError("Expression is empty after cel:");
  }
  return cel::CompileGate(body, GateDeclarations());
}

absl::StatusOr<std::map<std::string, CompiledCustom>> CompileCustomPrerequisites(
    const Workflow& w) {
  std::map<std::string, CompiledCustom> out;
  for (const CustomPrerequisite& c : w.custom_prerequisites) {
    if (out.count(c.name) > 0) continue;
    absl::StatusOr<cel::Program> p = CompileExpression(c.expression);
    if (!p.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("CustomPrerequisites '", c.name, "': ", p.status().message()));
    }
    out.emplace(c.name, CompiledCustom{c.name, c.description, c.expression, *std::move(p)});
  }
  return out;
}

absl::StatusOr<GateInputs> MakeGateInputs(std::string_view space_json,
                                          std::string_view change_order_json,
                                          std::string_view release_json, absl::Time now) {
  CUB_ASSIGN_OR_RETURN(cel::Value space, ReadJson("Space", space_json));
  CUB_ASSIGN_OR_RETURN(cel::Value change_order, ReadJson("ChangeOrder", change_order_json));
  CUB_ASSIGN_OR_RETURN(cel::Value release, ReadJson("Release", release_json));
  return GateInputs{std::move(space), std::move(change_order), std::move(release), now};
}

absl::StatusOr<bool> EvaluateCustom(const CompiledCustom& gate, const GateInputs& inputs) {
  cel::Activation vars;
  vars.Bind("Space", inputs.space);
  vars.Bind("ChangeOrder", inputs.change_order);
  vars.Bind("Release", inputs.release);
  vars.Bind("now", cel::Value::Timestamp(inputs.now));
  absl::StatusOr<bool> holds = cel::EvaluateGate(gate.program, vars);
  if (!holds.ok()) {
    return absl::FailedPreconditionError(
        absl::StrCat(Requires(gate), " (", holds.status().message(), ")"));
  }
  return *holds;
}

absl::StatusOr<bool> EvaluateCustom(const CompiledCustom& gate, std::string_view space_json,
                                    std::string_view change_order_json,
                                    std::string_view release_json, absl::Time now) {
  CUB_ASSIGN_OR_RETURN(GateInputs inputs,
                       MakeGateInputs(space_json, change_order_json, release_json, now));
  return EvaluateCustom(gate, inputs);
}

std::string NotSatisfiedMessage(const CompiledCustom& gate) {
  return absl::StrCat(Requires(gate), " (expression evaluated to false)");
}

}  // namespace cub::workflow
