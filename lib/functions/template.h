// Argument templates: "template:TEXT" arguments of saved Invocations (and, later, Link
// setters) whose {{ .Params.NAME }} placeholders take parameter values when the call runs.
// A named argument works the same way: "--name=template:TEXT" or "name=template:TEXT".
//
// Only that one form is understood (whitespace inside the braces is free); anything else
// between {{ and }} is an error, so a typo is refused rather than passed through.
#ifndef CUB_LIB_FUNCTIONS_TEMPLATE_H_
#define CUB_LIB_FUNCTIONS_TEMPLATE_H_

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace cub::functions {

inline constexpr std::string_view kTemplatePrefix = "template:";

// The parameter names `argument` refers to (empty for a plain argument), in order, or an error
// for a malformed placeholder.
absl::StatusOr<std::vector<std::string>> TemplateParams(std::string_view argument);

// `argument` with its placeholders filled from `params` (a plain argument is returned as is).
// NOT_FOUND-style INVALID_ARGUMENT naming a parameter that has no value.
absl::StatusOr<std::string> ExpandTemplate(std::string_view argument,
                                           const std::map<std::string, std::string>& params);

}  // namespace cub::functions

#endif  // CUB_LIB_FUNCTIONS_TEMPLATE_H_
