// The whitelist of fields one entity (Space, Unit, Revision ...) exposes to the where
// language, with the SQL expression behind each. A field name that is not in the Schema can
// never reach SQL: the compiler only ever writes FieldDef::sql, which comes from code.
//
// A Schema is immutable after construction and safe to share between threads.

#ifndef CUB_LIB_WHERE_SCHEMA_H_
#define CUB_LIB_WHERE_SCHEMA_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"

namespace cub::where {

enum class FieldType {
  kString,
  kInt,
  kBool,
  kTime,        // timestamptz; in memory an RFC 3339 string
  kUuid,        // uuid; in memory its text form
  kStringList,  // text[]; in memory std::vector<std::string>
  kStringMap,   // jsonb object of strings; users name one key: "Labels.tier"
};

// For messages (static strings): "a string", "a number", "a boolean", "a time", "a UUID",
// "a list of strings", "a map".
const char* TypeName(FieldType type);

struct FieldDef {
  // As users write it: "HeadRevisionNum", "Labels", "Component.Slug".
  std::string name;
  FieldType type;
  // Trusted SQL expression for the column, e.g. "u.head_revision_num", "u.labels" (jsonb for
  // kStringMap), "s.resolved_ids" (text[] for kStringList). Empty means the field is derived at
  // read time: it can be evaluated in memory only, and CompileToSql refuses it.
  std::string sql;
};

// What a dotted name in an expression refers to. `field` points into the Schema that
// resolved it and is valid as long as that Schema is.
struct FieldRef {
  const FieldDef* field = nullptr;
  // For a kStringMap field named with a key ("Labels.app.kubernetes.io/name"), the key
  // ("app.kubernetes.io/name"); otherwise empty.
  std::optional<std::string> key;
};

class Schema {
 public:
  // `entity` names the entity in messages. Field names should be unique; if one repeats, the
  // first definition wins.
  Schema(std::string entity, std::vector<FieldDef> fields);

  const std::string& entity() const { return entity_; }
  const std::vector<FieldDef>& fields() const { return fields_; }

  // The field named exactly `name`, or nullptr.
  const FieldDef* Find(std::string_view name) const;

  // Resolves a dotted name: an exact match of the whole name first; otherwise the longest
  // prefix (ending at a '.') that names a kStringMap field, the rest of the name being the
  // key: "Space.Labels.Stage" -> field "Space.Labels", key "Stage". nullopt if neither.
  std::optional<FieldRef> Resolve(std::string_view name) const;

 private:
  std::string entity_;
  std::vector<FieldDef> fields_;
  absl::flat_hash_map<std::string, size_t> index_;  // name -> position in fields_
};

}  // namespace cub::where

#endif  // CUB_LIB_WHERE_SCHEMA_H_
