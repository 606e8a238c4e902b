#include "lib/where/schema.h"

#include <utility>

namespace cub::where {

const char* TypeName(FieldType type) {
  switch (type) {
    case FieldType::kString:
      return "a string";
    case FieldType::kInt:
      return "a number";
    case FieldType::kBool:
      return "a boolean";
    case FieldType::kTime:
      return "a time";
    case FieldType::kUuid:
      return "a UUID";
    case FieldType::kStringList:
      return "a list of strings";
    case FieldType::kStringMap:
      return "a map";
  }
  return "a value";
}

Schema::Schema(std::string entity, std::vector<FieldDef> fields)
    : entity_(std::move(entity)), fields_(std::move(fields)) {
  for (size_t i = 0; i < fields_.size(); ++i) index_.emplace(fields_[i].name, i);
}

const FieldDef* Schema::Find(std::string_view name) const {
  auto it = index_.find(absl::string_view(name.data(), name.size()));
  return it == index_.end() ? nullptr : &fields_[it->second];
}

std::optional<FieldRef> Schema::Resolve(std::string_view name) const {
  if (const FieldDef* f = Find(name)) return FieldRef{f, std::nullopt};
  // Longest prefix first: walk the dots from the right.
  for (size_t dot = name.rfind('.'); dot != std::string_view::npos && dot > 0;
       dot = name.rfind('.', dot - 1)) {
    const FieldDef* f = Find(name.substr(0, dot));
    if (f != nullptr && f->type == FieldType::kStringMap && dot + 1 < name.size()) {
      return FieldRef{f, std::string(name.substr(dot + 1))};
    }
  }
  return std::nullopt;
}

}  // namespace cub::where
