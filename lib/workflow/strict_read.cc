#include "lib/workflow/strict_read.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "lib/config/yaml.h"
#include "lib/workflow/names.h"

namespace cub::workflow {

using config::Node;

std::string Field(const std::string& path, std::string_view name) {
  return path.empty() ? std::string(name) : absl::StrCat(path, ".", std::string(name));
}

std::string Item(const std::string& path, size_t i) { return absl::StrCat(path, "[", i, "]"); }

absl::Status WrongType(const std::string& path, const char* want, const config::Node& got) {
  return absl::InvalidArgumentError(
      absl::StrCat(path, ": must be ", want, ", got ", config::KindName(got.kind())));
}

// Refuses the first key of mapping `m` that is neither in `allowed` nor in `skip`.
absl::Status CheckFields(const config::Node& m, const std::string& path,
                         const std::vector<std::string>& allowed,
                         const std::vector<std::string>& skip) {
  for (const auto& [key, value] : m.AsMapping()) {
    bool known = false;
    for (const std::string& a : allowed) known = known || a == key;
    for (const std::string& s : skip) known = known || s == key;
    if (known) continue;
    std::string hint = DidYouMean(key, allowed);
    if (hint.empty()) hint = absl::StrCat(" (fields: ", absl::StrJoin(allowed, ", "), ")");
    return absl::InvalidArgumentError(absl::StrCat(Field(path, key), ": unknown field", hint));
  }
  return absl::OkStatus();
}

absl::Status ReadString(const config::Node& m, std::string_view key, const std::string& path,
                        std::string* out) {
  const Node* v = m.Find(key);
  if (v == nullptr || v->IsNull()) return absl::OkStatus();
  if (!v->IsString()) return WrongType(Field(path, key), "a string", *v);
  *out = v->AsString();
  return absl::OkStatus();
}

absl::Status ReadStringList(const config::Node& m, std::string_view key, const std::string& path,
                            std::vector<std::string>* out) {
  const Node* v = m.Find(key);
  if (v == nullptr || v->IsNull()) return absl::OkStatus();
  std::string p = Field(path, key);
  if (!v->IsSequence()) return WrongType(p, "a list", *v);
  out->clear();
  for (size_t i = 0; i < v->AsSequence().size(); ++i) {
    const config::Node& item = v->AsSequence()[i];
    if (!item.IsString()) return WrongType(Item(p, i), "a string", item);
    out->push_back(item.AsString());
  }
  return absl::OkStatus();
}

}  // namespace cub::workflow
