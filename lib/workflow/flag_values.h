// Reading the values of workflow flags (flags.h): NAME=VALUE pairs, lists, booleans, and the
// refusal that names the flag and the value as given.
//
// Internal to lib/workflow. Pure; thread-safe.

#ifndef CUB_LIB_WORKFLOW_FLAG_VALUES_H_
#define CUB_LIB_WORKFLOW_FLAG_VALUES_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace cub::workflow::internal {

// InvalidArgument "<flag> '<value>': <what>".
absl::Status FlagError(std::string_view flag, std::string_view value, std::string_view what);

struct NameValue {
  std::string name;
  std::string value;
  bool has_value = false;  // whether the text held a '='
};

// Splits "NAME=VALUE" at the first '='. NAME must be a valid name (IsValidName) of
// `name_kind` ("stage", "prerequisite"); with `value_required`, the '=' must be there.
absl::StatusOr<NameValue> SplitNameValue(std::string_view flag, const std::string& raw,
                                         std::string_view name_kind, bool value_required);

// Splits a list at ',' and ';', trimming items and dropping empty ones, and requires each to
// be a valid name of `item_kind` (or, with `uuids`, a UUID). `raw` is what the user gave,
// for messages.
absl::StatusOr<std::vector<std::string>> ParseList(std::string_view flag, const std::string& raw,
                                                   std::string_view list,
                                                   std::string_view item_kind, bool uuids = false);

// "true" or "false"; a NameValue without a value is true.
absl::StatusOr<bool> ParseBool(std::string_view flag, const std::string& raw, const NameValue& nv);

// Refuses a name given twice to one flag; `seen` carries the names met so far.
absl::Status CheckOnce(std::string_view flag, const std::string& raw, const std::string& name,
                       std::vector<std::string>* seen);

}  // namespace cub::workflow::internal

#endif  // CUB_LIB_WORKFLOW_FLAG_VALUES_H_
