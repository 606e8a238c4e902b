#include "lib/functions/arguments.h"

#include <stdexcept>

#include "absl/strings/numbers.h"
#include "lib/config/path.h"
#include "lib/config/yaml.h"
#include "lib/functions/cel_resource.h"
#include "lib/functions/image.h"
#include "lib/functions/names.h"
#include "lib/functions/quantity.h"
#include "lib/util/status_macros.h"

namespace cub::functions {
namespace {

absl::string_view Sv(std::string_view s) { return absl::string_view(s.data(), s.size()); }

std::string Upper(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
  }
  return out;
}

bool IsResourceSelector(std::string_view s) {
  if (s.empty() || s.find_first_of(" \t\n") != std::string_view::npos) return false;
  const size_t slash = s.find('/');
  if (slash == std::string_view::npos) return true;
  return slash > 0 && slash + 1 < s.size() && s.find('/', slash + 1) == std::string_view::npos;
}

// Binds `value` to parameter `index`, checking its type.
absl::Status BindOne(const FunctionSpec& spec, size_t index, std::string value,
                     std::vector<std::optional<std::string>>* values) {
  const ParameterSpec& p = spec.parameters[index];
  if ((*values)[index].has_value()) return UsageError(spec, p.name + " given twice");
  if (std::optional<std::string> expected = CheckArgumentType(p.type, value)) {
    return UsageError(spec, "expected " + *expected + " for " + p.name + ", got '" + value + "'");
  }
  (*values)[index] = std::move(value);
  return absl::OkStatus();
}

// Binds a positional argument to the first parameter not bound yet.
absl::Status BindPositional(const FunctionSpec& spec, const std::string& value,
                            std::vector<std::optional<std::string>>* values) {
  size_t next = 0;
  while (next < values->size() && (*values)[next].has_value()) ++next;
  if (next == values->size()) return UsageError(spec, "unexpected argument '" + value + "'");
  return BindOne(spec, next, value, values);
}

absl::Status CheckRequired(const FunctionSpec& spec,
                           const std::vector<std::optional<std::string>>& values) {
  std::string missing;
  for (size_t i = 0; i < values.size(); ++i) {
    if (values[i].has_value() || !spec.parameters[i].required) continue;
    if (!missing.empty()) missing += ", ";
    missing += Upper(spec.parameters[i].name);
  }
  if (missing.empty()) return absl::OkStatus();
  return UsageError(spec, "missing " + missing);
}

size_t FindParameter(const FunctionSpec& spec, std::string_view name) {
  for (size_t i = 0; i < spec.parameters.size(); ++i) {
    if (spec.parameters[i].name == name) return i;
  }
  return spec.parameters.size();
}

}  // namespace

absl::Status UsageError(const FunctionSpec& spec, std::string_view problem) {
  return absl::InvalidArgumentError(spec.name + ": " + std::string(problem) +
                                    "; usage: " + spec.Signature());
}

std::optional<std::string> CheckArgumentType(std::string_view type, std::string_view text) {
  if (type == "string") return std::nullopt;
  if (type == "int") {
    int64_t v;
    if (absl::SimpleAtoi(Sv(text), &v) && text.find_first_of(" \t\n") == std::string_view::npos) {
      return std::nullopt;
    }
    return "an int";
  }
  if (type == "bool") {
    if (text == "true" || text == "false") return std::nullopt;
    return "a bool (true or false)";
  }
  if (type.substr(0, 5) == "enum(" && type.back() == ')') {
    const std::string_view words = type.substr(5, type.size() - 6);
    size_t start = 0;
    while (start <= words.size()) {
      size_t bar = words.find('|', start);
      if (bar == std::string_view::npos) bar = words.size();
      if (words.substr(start, bar - start) == text) return std::nullopt;
      start = bar + 1;
    }
    return "one of " + std::string(words);
  }
  if (type == "quantity") {
    if (IsQuantity(text)) return std::nullopt;
    return "a quantity (such as 250m, 0.5, 512Mi, 2G)";
  }
  if (type == "image-reference") {
    if (IsImageReference(text)) return std::nullopt;
    return "an image reference (':TAG', '@sha256:DIGEST' or ':TAG@sha256:DIGEST')";
  }
  if (type == "label-key") {
    if (IsQualifiedName(text)) return std::nullopt;
    return "a key ([PREFIX/]NAME, NAME up to 63 of A-Z a-z 0-9 - _ .)";
  }
  if (type == "label-value") {
    if (IsLabelValue(text)) return std::nullopt;
    return "a label value (up to 63 of A-Z a-z 0-9 - _ ., alphanumeric at both ends)";
  }
  if (type == "dns-label") {
    if (IsDnsLabel(text)) return std::nullopt;
    return "a DNS label (up to 63 of a-z 0-9 -, alphanumeric at both ends)";
  }
  if (type == "path") {
    if (config::SplitPath(text).ok()) return std::nullopt;
    return "a dotted path (escape a literal dot as \\.)";
  }
  if (type == "yaml") {
    absl::StatusOr<std::vector<config::Node>> docs = config::ParseYaml(text);
    if (docs.ok() && docs->size() <= 1) return std::nullopt;
    return "one YAML value";
  }
  if (type == "cel") {
    absl::StatusOr<cel::Program> program = CompileResourceExpression(text);
    if (program.ok()) return std::nullopt;
    return "a bool CEL expression over r (" + std::string(program.status().message()) + ")";
  }
  if (type == "resource") {
    if (IsResourceSelector(text)) return std::nullopt;
    return "KIND or KIND/NAME";
  }
  return "a value of unknown type " + std::string(type);
}

size_t Arguments::IndexOf(std::string_view name) const {
  const size_t i = FindParameter(*spec_, name);
  if (i == spec_->parameters.size()) {
    throw std::out_of_range(spec_->name + " has no parameter " + std::string(name));
  }
  return i;
}

bool Arguments::Has(std::string_view name) const { return values_[IndexOf(name)].has_value(); }

const std::string& Arguments::Text(std::string_view name) const {
  static const std::string* const kEmpty = new std::string;
  const std::optional<std::string>& v = values_[IndexOf(name)];
  return v.has_value() ? *v : *kEmpty;
}

int64_t Arguments::Int(std::string_view name) const {
  int64_t v = 0;
  if (Has(name)) (void)absl::SimpleAtoi(Text(name), &v);
  return v;
}

bool Arguments::Bool(std::string_view name) const { return Text(name) == "true"; }

std::vector<std::pair<std::string, std::string>> Arguments::Named() const {
  std::vector<std::pair<std::string, std::string>> out;
  for (size_t i = 0; i < values_.size(); ++i) {
    if (values_[i].has_value()) out.emplace_back(spec_->parameters[i].name, *values_[i]);
  }
  return out;
}

absl::StatusOr<Arguments> ParseArguments(const FunctionSpec& spec,
                                         const std::vector<std::string>& args) {
  Arguments out(spec);
  bool options_done = false;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (options_done) {
      CUB_RETURN_IF_ERROR(BindPositional(spec, arg, &out.values_));
      continue;
    }
    if (arg == "--") {
      options_done = true;
      continue;
    }
    if (arg.size() > 2 && arg[0] == '-' && arg[1] == '-') {
      const size_t eq = arg.find('=');
      const std::string name = arg.substr(2, eq == std::string::npos ? eq : eq - 2);
      const size_t index = FindParameter(spec, name);
      if (index == spec.parameters.size()) return UsageError(spec, "unknown parameter --" + name);
      std::string value;
      if (eq != std::string::npos) {
        value = arg.substr(eq + 1);
      } else if (i + 1 < args.size()) {
        value = args[++i];
      } else {
        return UsageError(spec, "missing value for --" + name);
      }
      CUB_RETURN_IF_ERROR(BindOne(spec, index, std::move(value), &out.values_));
      continue;
    }
    const size_t eq = arg.find('=');
    if (eq != std::string::npos) {
      const size_t index = FindParameter(spec, std::string_view(arg).substr(0, eq));
      if (index < spec.parameters.size()) {
        CUB_RETURN_IF_ERROR(BindOne(spec, index, arg.substr(eq + 1), &out.values_));
        continue;
      }
    }
    CUB_RETURN_IF_ERROR(BindPositional(spec, arg, &out.values_));
  }
  CUB_RETURN_IF_ERROR(CheckRequired(spec, out.values_));
  return out;
}

absl::StatusOr<Arguments> BindArguments(
    const FunctionSpec& spec, const std::vector<std::pair<std::string, std::string>>& named) {
  Arguments out(spec);
  for (const auto& [name, value] : named) {
    const size_t index = FindParameter(spec, name);
    if (index == spec.parameters.size()) return UsageError(spec, "unknown parameter --" + name);
    CUB_RETURN_IF_ERROR(BindOne(spec, index, value, &out.values_));
  }
  CUB_RETURN_IF_ERROR(CheckRequired(spec, out.values_));
  return out;
}

}  // namespace cub::functions
