#include "lib/functions/function.h"

#include <algorithm>
#include <cctype>

namespace cub::functions {
namespace {

std::string Upper(const std::string& s) {
  std::string out = s;
  for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace

const char* FunctionKindName(FunctionKind kind) {
  switch (kind) {
    case FunctionKind::kGet:
      return "get";
    case FunctionKind::kSet:
      return "set";
    case FunctionKind::kVet:
      return "vet";
  }
  return "unknown";
}

std::string FunctionSpec::Signature() const {
  std::string out = name;
  for (const ParameterSpec& p : parameters) {
    out += ' ';
    if (p.required) {
      out += Upper(p.name);
    } else {
      out += "[--" + p.name + "=" + Upper(p.name) + "]";
    }
  }
  return out;
}

std::string FunctionSpec::Explain() const {
  std::string out = Signature() + "\n\n" + description + "\n\n";
  out += std::string("Kind: ") + FunctionKindName(kind) + ". Toolchain: " + toolchain + ".\n";
  if (parameters.empty()) return out;
  out += "\nParameters:\n";
  size_t width = 0;
  for (const ParameterSpec& p : parameters) width = std::max(width, p.name.size());
  for (const ParameterSpec& p : parameters) {
    out += "  " + p.name + std::string(width - p.name.size() + 2, ' ') + p.type +
           (p.required ? ", required. " : ", optional. ") + p.description + "\n";
  }
  out +=
      "\nArguments bind to the parameters in order, or by name as --name=value or name=value;"
      "\nafter a bare --, every argument is positional.\n";
  return out;
}

}  // namespace cub::functions
