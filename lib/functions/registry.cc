#include "lib/functions/registry.h"

#include <algorithm>
#include <utility>

#include "lib/config/yaml.h"
#include "lib/functions/builtin.h"
#include "lib/util/status_macros.h"

namespace cub::functions {

using internal::Function;

Registry::Registry(std::vector<Function> functions) : functions_(std::move(functions)) {
  std::sort(functions_.begin(), functions_.end(),
            [](const Function& a, const Function& b) { return a.spec.name < b.spec.name; });
}

Registry::~Registry() = default;

const Registry& Registry::Default() {
  static const Registry* const registry = [] {
    std::vector<Function> functions;
    internal::AddContainerFunctions(&functions);
    internal::AddEnvFunctions(&functions);
    internal::AddMetadataFunctions(&functions);
    internal::AddPathFunctions(&functions);
    internal::AddReplicaFunctions(&functions);
    internal::AddResourceFunctions(&functions);
    internal::AddVetCel(&functions);
    internal::AddVetFormat(&functions);
    internal::AddVetSchemas(&functions);
    return new Registry(std::move(functions));
  }();
  return *registry;
}

const Function* Registry::FindFunction(std::string_view name) const {
  auto it = std::lower_bound(functions_.begin(), functions_.end(), name,
                             [](const Function& f, std::string_view n) { return f.spec.name < n; });
  if (it == functions_.end() || it->spec.name != name) return nullptr;
  return &*it;
}

const FunctionSpec* Registry::Find(std::string_view name) const {
  const Function* f = FindFunction(name);
  return f == nullptr ? nullptr : &f->spec;
}

std::vector<const FunctionSpec*> Registry::List(std::string_view toolchain) const {
  std::vector<const FunctionSpec*> out;
  for (const Function& f : functions_) {
    if (toolchain.empty() || f.spec.toolchain == toolchain) out.push_back(&f.spec);
  }
  return out;
}

namespace {

absl::Status UnknownFunction(std::string_view name) {
  return absl::NotFoundError("no function named '" + std::string(name) +
                             "'; `cub function list` names them");
}

}  // namespace

absl::StatusOr<Arguments> Registry::Parse(std::string_view function,
                                          const std::vector<std::string>& args) const {
  const Function* f = FindFunction(function);
  if (f == nullptr) return UnknownFunction(function);
  return ParseArguments(f->spec, args);
}

absl::StatusOr<Arguments> Registry::Bind(
    std::string_view function,
    const std::vector<std::pair<std::string, std::string>>& named) const {
  const Function* f = FindFunction(function);
  if (f == nullptr) return UnknownFunction(function);
  return BindArguments(f->spec, named);
}

absl::StatusOr<const Function*> Registry::ForKind(const Arguments& args, FunctionKind kind) const {
  const Function* f = FindFunction(args.spec().name);
  if (f == nullptr) return UnknownFunction(args.spec().name);
  if (f->spec.kind != kind) {
    return absl::InvalidArgumentError(f->spec.name + " is a " + FunctionKindName(f->spec.kind) +
                                      " function; run it with `cub function " +
                                      FunctionKindName(f->spec.kind) + "`");
  }
  return f;
}

absl::StatusOr<GetResult> Registry::Get(const Arguments& args,
                                        const std::vector<config::Node>& docs) const {
  CUB_ASSIGN_OR_RETURN(const Function* f, ForKind(args, FunctionKind::kGet));
  GetResult result;
  CUB_RETURN_IF_ERROR(f->get(args, docs, &result));
  return result;
}

absl::StatusOr<SetResult> Registry::Set(const Arguments& args,
                                        std::vector<config::Node> docs) const {
  CUB_ASSIGN_OR_RETURN(const Function* f, ForKind(args, FunctionKind::kSet));
  SetResult result;
  result.docs = std::move(docs);
  CUB_RETURN_IF_ERROR(f->set(args, &result));
  result.changed = !result.mutations.empty();
  return result;
}

absl::StatusOr<VetResult> Registry::Vet(const Arguments& args,
                                        const std::vector<config::Node>& docs) const {
  CUB_ASSIGN_OR_RETURN(const Function* f, ForKind(args, FunctionKind::kVet));
  VetResult result;
  CUB_RETURN_IF_ERROR(f->vet(args, docs, &result));
  result.passed = result.errors.empty();
  return result;
}

absl::StatusOr<VetResult> Registry::VetYaml(const Arguments& args, std::string_view yaml) const {
  CUB_RETURN_IF_ERROR(ForKind(args, FunctionKind::kVet));
  absl::StatusOr<std::vector<config::Node>> docs = config::ParseYaml(yaml);
  if (!docs.ok()) {
    VetResult result;
    result.passed = false;
    result.errors.push_back(std::string(docs.status().message()));
    return result;
  }
  return Vet(args, *docs);
}

}  // namespace cub::functions
