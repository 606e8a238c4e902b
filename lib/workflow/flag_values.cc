#include "lib/workflow/flag_values.h"

#include "absl/strings/str_cat.h"
#include "lib/workflow/names.h"

namespace cub::workflow::internal {
namespace {

std::string_view Trim(std::string_view s) {
  size_t b = s.find_first_not_of(" \t\r\n");
  if (b == std::string_view::npos) return {};
  size_t e = s.find_last_not_of(" \t\r\n");
  return s.substr(b, e - b + 1);
}

}  // namespace

absl::Status FlagError(std::string_view flag, std::string_view value, std::string_view what) {
  return absl::InvalidArgumentError(
      absl::StrCat(std::string(flag), " '", std::string(value), "': ", std::string(what)));
}

absl::StatusOr<NameValue> SplitNameValue(std::string_view flag, const std::string& raw,
                                         std::string_view name_kind, bool value_required) {
  NameValue nv;
  size_t eq = raw.find('=');
  if (eq == std::string::npos) {
    if (value_required) {
      return FlagError(
          flag, raw,
          absl::StrCat("give it as ", name_kind == "stage" ? "STAGE" : "NAME", "=VALUE"));
    }
    nv.name = std::string(Trim(raw));
  } else {
    nv.name = std::string(Trim(std::string_view(raw).substr(0, eq)));
    nv.value = raw.substr(eq + 1);
    nv.has_value = true;
  }
  if (!IsValidName(nv.name)) return FlagError(flag, raw, InvalidNameMessage(name_kind, nv.name));
  return nv;
}

absl::StatusOr<std::vector<std::string>> ParseList(std::string_view flag, const std::string& raw,
                                                   std::string_view list,
                                                   std::string_view item_kind, bool uuids) {
  std::vector<std::string> items;
  size_t start = 0;
  while (start <= list.size()) {
    size_t end = list.find_first_of(",;", start);
    if (end == std::string_view::npos) end = list.size();
    std::string_view item = Trim(list.substr(start, end - start));
    if (!item.empty()) {
      if (uuids && !IsUuid(item)) {
        return FlagError(flag, raw,
                         absl::StrCat("'", std::string(item), "' is not a user ID (a UUID)"));
      }
      // Groups may carry a provider's prefix ("dex:admins"): their own, wider rule.
      if (!uuids && item_kind == "group" && !IsValidGroupName(item)) {
        return FlagError(flag, raw, InvalidGroupNameMessage(item));
      }
      if (!uuids && item_kind != "group" && !IsValidName(item)) {
        return FlagError(flag, raw, InvalidNameMessage(item_kind, item));
      }
      items.emplace_back(item);
    }
    start = end + 1;
  }
  return items;
}

absl::StatusOr<bool> ParseBool(std::string_view flag, const std::string& raw, const NameValue& nv) {
  if (!nv.has_value || nv.value == "true") return true;
  if (nv.value == "false") return false;
  return FlagError(flag, raw, "the value must be true or false");
}

absl::Status CheckOnce(std::string_view flag, const std::string& raw, const std::string& name,
                       std::vector<std::string>* seen) {
  for (const std::string& s : *seen) {
    if (s == name) return FlagError(flag, raw, absl::StrCat("'", name, "' is given twice"));
  }
  seen->push_back(name);
  return absl::OkStatus();
}

}  // namespace cub::workflow::internal
