// vet-cel: a CEL expression (cel_resource.h) that must be true of every resource of a Unit.

#include <string>

#include "absl/strings/str_cat.h"
#include "lib/functions/builtin.h"
#include "lib/functions/cel_resource.h"
#include "lib/functions/kubernetes.h"

namespace cub::functions::internal {
namespace {

using config::Node;

absl::Status VetCel(const Arguments& args, const std::vector<Node>& docs, VetResult* result) {
  const std::string& expr = args.Text("expression");
  absl::StatusOr<cel::Program> program = CompileResourceExpression(expr);
  if (!program.ok()) return UsageError(args.spec(), std::string(program.status().message()));
  for (size_t i = 0; i < docs.size(); ++i) {
    if (KindOf(docs[i]).empty()) continue;
    cel::Activation vars;
    vars.Bind(kCelResourceVariable, ToCelValue(docs[i]));
    absl::StatusOr<bool> passed = cel::EvaluateGate(*program, vars);
    if (passed.status().code() == absl::StatusCode::kResourceExhausted) {
      // Over the evaluation budget: a property of the expression more than of the resource,
      // so stop rather than spend the budget again on every other resource.
      return absl::ResourceExhaustedError(
          absl::StrCat(ResourceLabel(docs[i], i), ": ", passed.status().message()));
    }
    if (!passed.ok()) {
      result->errors.push_back(ResourceLabel(docs[i], i) + ": " +
                               std::string(passed.status().message()));
    } else if (!*passed) {
      result->errors.push_back(ResourceLabel(docs[i], i) + ": '" + expr + "' is false");
    }
  }
  return absl::OkStatus();
}

}  // namespace

void AddVetCel(std::vector<Function>* out) {
  Function f = Define(
      "vet-cel", FunctionKind::kVet,
      "Checks that a CEL expression is true of every resource, bound to the variable r as its "
      "JSON would be: r.kind, r.metadata.name, r.spec.replicas. An expression that fails to "
      "evaluate for a resource (a missing field: use has(r.spec.replicas), or test r.kind "
      "first) fails the vet for that resource.",
      {Param("expression", "cel",
             "A bool CEL expression over r: \"r.kind != 'Deployment' || r.spec.replicas <= "
             "10\".")});
  f.vet = VetCel;
  out->push_back(std::move(f));
}

}  // namespace cub::functions::internal
