#include "lib/links/validate.h"

#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "lib/domain/vocabulary.h"
#include "lib/functions/arguments.h"
#include "lib/functions/registry.h"
#include "lib/functions/template.h"
#include "lib/links/resource.h"
#include "lib/util/status_macros.h"
#include "lib/workflow/names.h"

namespace cub::links {
namespace {

constexpr std::string_view kTemplateEvaluator = "template";

absl::Status At(const std::string& path, absl::string_view problem) {
  return absl::InvalidArgumentError(absl::StrCat(path, ": ", problem));
}

const functions::ParameterSpec* FindParameter(const functions::FunctionSpec& spec,
                                              std::string_view name) {
  for (const auto& p : spec.parameters) {
    if (p.name == name) return &p;
  }
  return nullptr;
}

std::vector<std::string> ParameterNames(const functions::FunctionSpec& spec) {
  std::vector<std::string> names;
  for (const auto& p : spec.parameters) names.push_back(p.name);
  return names;
}

absl::Status ValidatePaths(const Definition& def, std::set<std::string>* names) {
  for (size_t i = 0; i < def.upstream_paths.size(); ++i) {
    const UpstreamPath& up = def.upstream_paths[i];
    const std::string at = absl::StrCat("UpstreamPaths[", i, "]");
    if (up.name.empty()) return At(at + ".Name", "missing: every UpstreamPath needs a Name");
    if (!workflow::IsValidName(up.name)) {
      return At(at + ".Name", workflow::InvalidNameMessage("parameter", up.name));
    }
    if (!names->insert(up.name).second) {
      return At(at + ".Name", absl::StrCat("'", up.name, "' is used by another UpstreamPath"));
    }
    if (auto path = ParseValuePath(up.path); !path.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat(at, ".Path '", up.path, "': ", path.status().message()));
    }
  }
  return absl::OkStatus();
}

absl::Status ValidateArgument(const functions::FunctionSpec& spec, const SetterArgument& arg,
                              const std::set<std::string>& parameters, const std::string& at,
                              std::set<std::string>* used) {
  const functions::ParameterSpec* param = FindParameter(spec, arg.parameter_name);
  if (param == nullptr) {
    std::string hint = workflow::DidYouMean(arg.parameter_name, ParameterNames(spec));
    if (hint.empty()) hint = absl::StrCat(" (usage: ", spec.Signature(), ")");
    return At(at + ".ParameterName",
              absl::StrCat(spec.name, " has no parameter '", arg.parameter_name, "'", hint));
  }
  if (arg.evaluator.empty()) {
    if (auto problem = functions::CheckArgumentType(param->type, arg.value)) {
      return At(at + ".Value", absl::StrCat("expected ", *problem, " for ", param->name, ", got '",
                                            arg.value, "'"));
    }
    return absl::OkStatus();
  }
  if (arg.evaluator != kTemplateEvaluator) {
    return At(at + ".Evaluator", absl::StrCat("'", arg.evaluator,
                                              "' is not an evaluator: use template, or leave it "
                                              "out to pass Value as written"));
  }
  auto names = functions::TemplateParams(std::string(functions::kTemplatePrefix) + arg.value);
  if (!names.ok()) return At(at + ".Value", names.status().message());
  for (const std::string& n : *names) {
    if (parameters.count(n) == 0) {
      return At(at + ".Value", absl::StrCat("the template uses '", n,
                                            "', which is not one of the setter's Parameters (",
                                            absl::StrJoin(parameters, ", "), ")"));
    }
    used->insert(n);
  }
  return absl::OkStatus();
}

absl::Status ValidateSetter(const DownstreamSetter& setter, const std::string& at,
                            const std::set<std::string>& defined, const std::string& toolchain,
                            std::set<std::string>* used_paths) {
  std::set<std::string> parameters;
  for (const std::string& p : setter.parameters) {
    if (defined.count(p) == 0) {
      return At(at + ".Parameters",
                absl::StrCat("'", p, "' is not the Name of an UpstreamPath (names: ",
                             absl::StrJoin(defined, ", "), ")"));
    }
    if (!parameters.insert(p).second) {
      return At(at + ".Parameters", absl::StrCat("'", p, "' is listed twice"));
    }
    used_paths->insert(p);
  }
  const std::string fi = at + ".FunctionInvocation";
  if (setter.function_name.empty()) {
    return At(fi + ".FunctionName", "missing: name the set function to run");
  }
  const functions::FunctionSpec* spec = functions::Registry::Default().Find(setter.function_name);
  if (spec == nullptr) {
    return At(fi + ".FunctionName", absl::StrCat("no function named '", setter.function_name,
                                                 "'; `cub function list` names them"));
  }
  if (spec->kind != functions::FunctionKind::kSet) {
    return At(fi + ".FunctionName",
              absl::StrCat(spec->name, " is a ", functions::FunctionKindName(spec->kind),
                           " function; a setter runs a set function"));
  }
  if (spec->toolchain != toolchain) {
    return At(fi + ".FunctionName", absl::StrCat(spec->name, " works on ", spec->toolchain,
                                                 ", but the downstream unit holds ", toolchain));
  }
  std::set<std::string> given, used;
  for (size_t j = 0; j < setter.arguments.size(); ++j) {
    const SetterArgument& arg = setter.arguments[j];
    const std::string aa = absl::StrCat(fi, ".Arguments[", j, "]");
    CUB_RETURN_IF_ERROR(ValidateArgument(*spec, arg, parameters, aa, &used));
    if (!given.insert(arg.parameter_name).second) {
      return At(aa + ".ParameterName", absl::StrCat("'", arg.parameter_name, "' is given twice"));
    }
  }
  for (const auto& param : spec->parameters) {
    if (param.required && given.count(param.name) == 0) {
      return At(fi + ".Arguments", absl::StrCat(spec->name, " needs ", param.name,
                                                " (usage: ", spec->Signature(), ")"));
    }
  }
  for (const std::string& p : parameters) {
    if (used.count(p) == 0) {
      return At(at + ".Parameters",
                absl::StrCat("'", p,
                             "' is not used by any argument (a Value that uses it needs "
                             "Evaluator: template)"));
    }
  }
  return absl::OkStatus();
}

}  // namespace

bool IsKnownUpdateType(std::string_view t) {
  auto type = domain::ParseUpdateType(t);
  return type && *type != domain::UpdateType::kInvoke;
}

bool IsResolvedType(std::string_view t) {
  auto type = domain::ParseUpdateType(t);
  return type && domain::CopiesFromSources(*type);
}

absl::StatusOr<std::string> ArgumentText(const SetterArgument& arg,
                                         const std::map<std::string, std::string>& values) {
  if (arg.evaluator.empty()) return arg.value;
  if (arg.evaluator != kTemplateEvaluator) {
    return absl::InvalidArgumentError(
        absl::StrCat("'", arg.evaluator, "' is not an evaluator: use template"));
  }
  return functions::ExpandTemplate(std::string(functions::kTemplatePrefix) + arg.value, values);
}

absl::Status ValidateDefinition(const std::string& update_type, const Definition& def,
                                const std::string& toolchain) {
  if (!IsKnownUpdateType(update_type)) {
    return absl::InvalidArgumentError(
        absl::StrCat("link update type '", update_type,
                     "' is not supported: use UpgradeUnit, MergeUnits, TransformPaths, Insert "
                     "or Upsert"));
  }
  const bool has_transform = !def.upstream_paths.empty() || !def.setters.empty();
  if (domain::ParseUpdateType(update_type) != domain::UpdateType::kTransformPaths) {
    if (has_transform) {
      return absl::InvalidArgumentError(absl::StrCat(
          "only TransformPaths links have UpstreamPaths and DownstreamSetters; this one is ",
          update_type));
    }
    return absl::OkStatus();
  }
  if (def.upstream_paths.empty() || def.setters.empty()) {
    return absl::InvalidArgumentError(
        "a TransformPaths link needs UpstreamPaths (the values to read upstream) and "
        "DownstreamSetters (the functions that write them): pass them with --from-stdin");
  }
  std::set<std::string> defined;
  CUB_RETURN_IF_ERROR(ValidatePaths(def, &defined));
  std::set<std::string> used;
  for (size_t i = 0; i < def.setters.size(); ++i) {
    CUB_RETURN_IF_ERROR(ValidateSetter(def.setters[i], absl::StrCat("DownstreamSetters[", i, "]"),
                                       defined, toolchain, &used));
  }
  for (size_t i = 0; i < def.upstream_paths.size(); ++i) {
    if (used.count(def.upstream_paths[i].name) == 0) {
      return At(absl::StrCat("UpstreamPaths[", i, "].Name"),
                absl::StrCat("'", def.upstream_paths[i].name,
                             "' is not used by any DownstreamSetter (list it in a setter's "
                             "Parameters)"));
    }
  }
  return absl::OkStatus();
}

}  // namespace cub::links
