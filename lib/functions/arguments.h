// Binding a function's arguments to its parameters, checking each against its type (see
// ParameterSpec in function.h) before the function runs, so one set of Arguments can be
// checked once and applied to many Units.
//
// Command-line form (ParseArguments), each argument one of:
//   --name=value   binds parameter `name`; an unknown name is refused
//   --name value   the same, taking the next argument as the value
//   name=value     binds parameter `name` when `name` is one of the function's parameters;
//                  otherwise the whole argument is positional
//   --             every argument after it is positional, however it looks
//   anything else  positional
// Arguments are taken left to right; a positional one binds to the first parameter, in
// declaration order, that is not bound yet. So `set-annotation note value=x` binds key to
// "note" and value to "x": to pass a value that looks like a named argument or starts with
// "--", put it after a bare `--`.
//
// Every refusal is InvalidArgument and reads "<function>: <problem>; usage: <signature>":
//   set-replicas: expected an int for replicas, got 'three'; usage: set-replicas REPLICAS
//   set-replicas: missing REPLICAS; usage: set-replicas REPLICAS
//   set-replicas: unexpected argument '4'; usage: set-replicas REPLICAS
//   set-replicas: unknown parameter --count; usage: set-replicas REPLICAS
//   set-replicas: replicas given twice; usage: set-replicas REPLICAS

#ifndef CUB_LIB_FUNCTIONS_ARGUMENTS_H_
#define CUB_LIB_FUNCTIONS_ARGUMENTS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "lib/functions/function.h"

namespace cub::functions {

// A function's arguments, each checked against its parameter's type. Refers to the
// FunctionSpec it was bound for, which must outlive it (the specs of Registry::Default() live
// for the whole program). Immutable once built; thread-safe to share.
class Arguments {
 public:
  const FunctionSpec& spec() const { return *spec_; }

  // Whether the parameter was given. Required parameters always are.
  bool Has(std::string_view name) const;

  // The argument's text; "" for an optional parameter that was not given.
  // Precondition: `name` is a parameter of spec() (checked: throws std::out_of_range).
  const std::string& Text(std::string_view name) const;

  // The argument as an int or bool (0 / false when not given).
  // Precondition: the parameter has that type.
  int64_t Int(std::string_view name) const;
  bool Bool(std::string_view name) const;

  // The given arguments as (parameter name, text), in declaration order: the form an
  // Invocation stores, which BindArguments accepts back.
  std::vector<std::pair<std::string, std::string>> Named() const;

 private:
  friend absl::StatusOr<Arguments> BindArguments(
      const FunctionSpec& spec, const std::vector<std::pair<std::string, std::string>>& named);
  friend absl::StatusOr<Arguments> ParseArguments(const FunctionSpec& spec,
                                                  const std::vector<std::string>& args);
  explicit Arguments(const FunctionSpec& spec) : spec_(&spec), values_(spec.parameters.size()) {}
  size_t IndexOf(std::string_view name) const;

  const FunctionSpec* spec_;
  std::vector<std::optional<std::string>> values_;  // parallel to spec_->parameters
};

// Binds command-line style arguments (see the file comment).
absl::StatusOr<Arguments> ParseArguments(const FunctionSpec& spec,
                                         const std::vector<std::string>& args);

// Binds arguments given by parameter name (as a stored Invocation or a Link's setter holds
// them). Unknown names, repeats, missing required parameters and ill-typed values are refused
// as ParseArguments refuses them.
absl::StatusOr<Arguments> BindArguments(
    const FunctionSpec& spec, const std::vector<std::pair<std::string, std::string>>& named);

// InvalidArgument "<function>: <problem>; usage: <signature>", for functions that check more
// than the types do.
absl::Status UsageError(const FunctionSpec& spec, std::string_view problem);

// Checks `text` against parameter type `type` (see ParameterSpec): nullopt when it is valid,
// otherwise what was expected, as "an int" or "one of Always|Never" (messages read
// "expected <that> for <parameter>, got '<text>'"). An unknown type accepts nothing.
std::optional<std::string> CheckArgumentType(std::string_view type, std::string_view text);

}  // namespace cub::functions

#endif  // CUB_LIB_FUNCTIONS_ARGUMENTS_H_
