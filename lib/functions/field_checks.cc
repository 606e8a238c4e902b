#include "lib/functions/field_checks.h"

#include <limits>

#include "lib/functions/display_path.h"
#include "lib/functions/names.h"
#include "lib/functions/quantity.h"
#include "lib/functions/results.h"

namespace cub::functions {

using config::Node;

void FieldChecks::Error(std::string_view path, std::string_view problem) {
  std::string message = label_ + ": ";
  if (!path.empty()) message.append(path).append(": ");
  message.append(problem);
  errors_->push_back(std::move(message));
}

void FieldChecks::Expected(std::string_view path, std::string_view what, const Node& got) {
  Error(path, "expected " + std::string(what) + ", got " + DescribeValue(got));
}

const Node* FieldChecks::Field(const Node& parent, std::string_view parent_path,
                               std::string_view key, bool required) {
  const Node* child = parent.Find(key);
  if (child == nullptr && required) Error(JoinKey(parent_path, key), "missing required field");
  return child;
}

bool FieldChecks::Mapping(const Node& n, std::string_view path) {
  if (n.IsMapping()) return true;
  Expected(path, "a mapping", n);
  return false;
}

bool FieldChecks::Sequence(const Node& n, std::string_view path) {
  if (n.IsSequence()) return true;
  Expected(path, "a sequence", n);
  return false;
}

bool FieldChecks::String(const Node& n, std::string_view path) {
  if (n.IsString()) return true;
  Expected(path, "a string", n);
  return false;
}

bool FieldChecks::NonEmptyString(const Node& n, std::string_view path) {
  if (n.IsString() && !n.AsString().empty()) return true;
  Expected(path, "a non-empty string", n);
  return false;
}

bool FieldChecks::Int(const Node& n, std::string_view path, int64_t min, int64_t max) {
  if (!n.IsInt()) {
    Expected(path, "an integer", n);
    return false;
  }
  if (n.AsInt() >= min && n.AsInt() <= max) return true;
  std::string what = "an integer";
  if (min == 0 && max == std::numeric_limits<int64_t>::max()) {
    what = "a non-negative integer";
  } else if (max == std::numeric_limits<int64_t>::max()) {
    what += " of at least " + std::to_string(min);
  } else {
    what += " from " + std::to_string(min) + " to " + std::to_string(max);
  }
  Expected(path, what, n);
  return false;
}

bool FieldChecks::Enum(const Node& n, std::string_view path,
                       std::initializer_list<std::string_view> words) {
  std::string what = "one of ";
  for (std::string_view w : words) {
    if (n.IsString() && n.AsString() == w) return true;
    if (what.size() > 7) what += ", ";
    what.append(w);
  }
  Expected(path, what, n);
  return false;
}

bool FieldChecks::StringMap(const Node& n, std::string_view path, Keys keys) {
  if (!Mapping(n, path)) return false;
  bool ok = true;
  for (const auto& [key, value] : n.AsMapping()) {
    const std::string key_path = JoinKey(path, key);
    if (keys != Keys::kAny && !IsQualifiedName(key)) {
      Error(key_path, "invalid key (expected [PREFIX/]NAME, NAME up to 63 of A-Z a-z 0-9 - _ .)");
      ok = false;
    }
    if (!String(value, key_path)) {
      ok = false;
    } else if (keys == Keys::kLabels && !IsLabelValue(value.AsString())) {
      Error(key_path, "invalid label value \"" + value.AsString() +
                          "\" (up to 63 of A-Z a-z 0-9 - _ ., alphanumeric at both ends)");
      ok = false;
    }
  }
  return ok;
}

bool FieldChecks::StringList(const Node& n, std::string_view path) {
  if (!Sequence(n, path)) return false;
  bool ok = true;
  for (size_t i = 0; i < n.size(); ++i) {
    std::string item_path(path);
    AppendItem(&item_path, n.AsSequence()[i], i);
    ok = String(n.AsSequence()[i], item_path) && ok;
  }
  return ok;
}

bool FieldChecks::Quantity(const Node& n, std::string_view path) {
  if (IsQuantityNode(n)) return true;
  Expected(path, "a quantity (such as 250m, 0.5, 512Mi)", n);
  return false;
}

}  // namespace cub::functions
