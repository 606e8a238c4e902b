#include "lib/links/definition.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "lib/config/path.h"
#include "lib/config/yaml.h"
#include "lib/workflow/names.h"

namespace cub::links {
namespace {

using config::Node;

std::string Field(const std::string& path, std::string_view name) {
  return path.empty() ? std::string(name) : absl::StrCat(path, ".", std::string(name));
}

std::string Item(const std::string& path, size_t i) { return absl::StrCat(path, "[", i, "]"); }

absl::Status WrongType(const std::string& path, const char* want, const Node& got) {
  return absl::InvalidArgumentError(
      absl::StrCat(path, ": must be ", want, ", got ", config::KindName(got.kind())));
}

// Refuses the first key of mapping `m` that is neither in `allowed` nor in `skip`.
absl::Status CheckFields(const Node& m, const std::string& path,
                         const std::vector<std::string>& allowed,
                         const std::vector<std::string>& skip = {}) {
  for (const auto& [key, value] : m.AsMapping()) {
    bool known = false;
    for (const std::string& a : allowed) known = known || a == key;
    for (const std::string& s : skip) known = known || s == key;
    if (known) continue;
    std::string hint = workflow::DidYouMean(key, allowed);
    if (hint.empty()) hint = absl::StrCat(" (fields: ", absl::StrJoin(allowed, ", "), ")");
    return absl::InvalidArgumentError(absl::StrCat(Field(path, key), ": unknown field", hint));
  }
  return absl::OkStatus();
}

absl::Status ReadString(const Node& m, std::string_view key, const std::string& path,
                        std::string* out) {
  const Node* v = m.Find(key);
  if (v == nullptr || v->IsNull()) return absl::OkStatus();
  if (!v->IsString()) return WrongType(Field(path, key), "a string", *v);
  *out = v->AsString();
  return absl::OkStatus();
}

// A string, or an integer or boolean kept as its text.
absl::Status ReadScalarText(const Node& m, std::string_view key, const std::string& path,
                            std::string* out) {
  const Node* v = m.Find(key);
  if (v == nullptr || v->IsNull()) return absl::OkStatus();
  std::optional<std::string> text = config::ScalarText(*v);
  if (!text) return WrongType(Field(path, key), "a string", *v);
  *out = *std::move(text);
  return absl::OkStatus();
}

absl::Status ReadOptionalBool(const Node& m, std::string_view key, std::optional<bool>* out) {
  const Node* v = m.Find(key);
  if (v == nullptr || v->IsNull()) return absl::OkStatus();
  if (!v->IsBool()) return WrongType(std::string(key), "true or false", *v);
  *out = v->AsBool();
  return absl::OkStatus();
}

absl::Status ReadStringList(const Node& m, std::string_view key, const std::string& path,
                            std::vector<std::string>* out) {
  const Node* v = m.Find(key);
  if (v == nullptr || v->IsNull()) return absl::OkStatus();
  std::string p = Field(path, key);
  if (!v->IsSequence()) return WrongType(p, "a list", *v);
  for (size_t i = 0; i < v->AsSequence().size(); ++i) {
    const Node& item = v->AsSequence()[i];
    if (!item.IsString()) return WrongType(Item(p, i), "a string", item);
    out->push_back(item.AsString());
  }
  return absl::OkStatus();
}

// The mapping under `key`, or nullptr when it is absent or null.
absl::StatusOr<const Node*> ReadMapping(const Node& m, std::string_view key,
                                        const std::string& path) {
  const Node* v = m.Find(key);
  if (v == nullptr || v->IsNull()) return nullptr;
  if (!v->IsMapping()) return WrongType(Field(path, key), "a mapping", *v);
  return v;
}

// Calls read(item, item_path) for each item of the list under `key`, each of which must be a
// mapping.
template <typename ReadItem>
absl::Status ReadMappingList(const Node& m, std::string_view key, const std::string& path,
                             ReadItem read) {
  const Node* v = m.Find(key);
  if (v == nullptr || v->IsNull()) return absl::OkStatus();
  std::string p = Field(path, key);
  if (!v->IsSequence()) return WrongType(p, "a list", *v);
  for (size_t i = 0; i < v->AsSequence().size(); ++i) {
    const Node& item = v->AsSequence()[i];
    std::string ip = Item(p, i);
    if (!item.IsMapping()) return WrongType(ip, "a mapping", item);
    if (absl::Status s = read(item, ip); !s.ok()) return s;
  }
  return absl::OkStatus();
}

absl::Status ReadUpstreamPath(const Node& m, const std::string& path, UpstreamPath* out) {
  if (absl::Status s = CheckFields(m, path, {"Name", "Path", "Resource"}); !s.ok()) return s;
  absl::Status s = ReadString(m, "Name", path, &out->name);
  if (s.ok()) s = ReadString(m, "Path", path, &out->path);
  if (!s.ok()) return s;
  absl::StatusOr<const Node*> resource = ReadMapping(m, "Resource", path);
  if (!resource.ok()) return resource.status();
  if (*resource == nullptr) return absl::OkStatus();
  std::string rp = Field(path, "Resource");
  s = CheckFields(**resource, rp, {"ResourceType", "ResourceName"});
  if (s.ok()) s = ReadString(**resource, "ResourceType", rp, &out->resource.type);
  if (s.ok()) s = ReadString(**resource, "ResourceName", rp, &out->resource.name);
  return s;
}

absl::Status ReadArgument(const Node& m, const std::string& path, SetterArgument* out) {
  if (absl::Status s = CheckFields(m, path, {"ParameterName", "Value", "Evaluator"}); !s.ok()) {
    return s;
  }
  absl::Status s = ReadString(m, "ParameterName", path, &out->parameter_name);
  if (s.ok()) s = ReadScalarText(m, "Value", path, &out->value);
  if (s.ok()) s = ReadString(m, "Evaluator", path, &out->evaluator);
  return s;
}

absl::Status ReadSetter(const Node& m, const std::string& path, DownstreamSetter* out) {
  if (absl::Status s = CheckFields(m, path, {"Parameters", "FunctionInvocation"}); !s.ok()) {
    return s;
  }
  if (absl::Status s = ReadStringList(m, "Parameters", path, &out->parameters); !s.ok()) return s;
  absl::StatusOr<const Node*> invocation = ReadMapping(m, "FunctionInvocation", path);
  if (!invocation.ok()) return invocation.status();
  if (*invocation == nullptr) return absl::OkStatus();
  std::string ip = Field(path, "FunctionInvocation");
  absl::Status s = CheckFields(**invocation, ip, {"FunctionName", "Arguments"});
  if (s.ok()) s = ReadString(**invocation, "FunctionName", ip, &out->function_name);
  if (!s.ok()) return s;
  return ReadMappingList(**invocation, "Arguments", ip, [&](const Node& a, const std::string& p) {
    out->arguments.emplace_back();
    return ReadArgument(a, p, &out->arguments.back());
  });
}

}  // namespace

absl::StatusOr<Definition> DefinitionFromNode(const Node& doc, const ParseOptions& options) {
  if (doc.IsNull()) return absl::InvalidArgumentError("link definition is empty");
  if (!doc.IsMapping()) {
    return absl::InvalidArgumentError(
        absl::StrCat("link definition must be a mapping of Protect, AutoUpdate, UpstreamPaths "
                     "and DownstreamSetters, got ",
                     config::KindName(doc.kind())));
  }
  if (absl::Status s = CheckFields(
          doc, "", {"Protect", "AutoUpdate", "UpdateType", "UpstreamPaths", "DownstreamSetters"},
          options.skip_fields);
      !s.ok()) {
    return s;
  }
  Definition def;
  absl::Status s = ReadOptionalBool(doc, "Protect", &def.protect);
  if (s.ok()) s = ReadOptionalBool(doc, "AutoUpdate", &def.auto_update);
  if (!s.ok()) return s;
  if (const Node* t = doc.Find("UpdateType"); t != nullptr && !t->IsNull()) {
    if (!t->IsString()) return WrongType("UpdateType", "a string", *t);
    if (!t->AsString().empty()) def.update_type = t->AsString();
  }
  s = ReadMappingList(doc, "UpstreamPaths", "", [&](const Node& m, const std::string& p) {
    def.upstream_paths.emplace_back();
    return ReadUpstreamPath(m, p, &def.upstream_paths.back());
  });
  if (!s.ok()) return s;
  s = ReadMappingList(doc, "DownstreamSetters", "", [&](const Node& m, const std::string& p) {
    def.setters.emplace_back();
    return ReadSetter(m, p, &def.setters.back());
  });
  if (!s.ok()) return s;
  return def;
}

absl::StatusOr<Definition> ParseDefinition(std::string_view text, const ParseOptions& options) {
  absl::StatusOr<std::vector<Node>> docs = config::ParseYaml(text);
  if (!docs.ok()) return docs.status();
  if (docs->empty()) return absl::InvalidArgumentError("link definition is empty");
  if (docs->size() > 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("link definition must be one document, got ", docs->size()));
  }
  return DefinitionFromNode(docs->front(), options);
}

}  // namespace cub::links
