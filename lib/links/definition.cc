#include "lib/links/definition.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "lib/config/path.h"
#include "lib/config/yaml.h"
#include "lib/util/status_macros.h"
#include "lib/workflow/strict_read.h"

namespace cub::links {
namespace {

using config::Node;
using workflow::CheckFields;
using workflow::Field;
using workflow::Item;
using workflow::ReadMappingList;
using workflow::ReadString;
using workflow::ReadStringList;
using workflow::WrongType;

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
absl::Status ReadUpstreamPath(const Node& m, const std::string& path, UpstreamPath* out) {
  CUB_RETURN_IF_ERROR(CheckFields(m, path, {"Name", "Path", "Resource"}));
  absl::Status s = ReadString(m, "Name", path, &out->name);
  if (s.ok()) s = ReadString(m, "Path", path, &out->path);
  if (!s.ok()) return s;
  CUB_ASSIGN_OR_RETURN(const Node* resource, ReadMapping(m, "Resource", path));
  if (resource == nullptr) return absl::OkStatus();
  std::string rp = Field(path, "Resource");
  s = CheckFields(*resource, rp, {"ResourceType", "ResourceName"});
  if (s.ok()) s = ReadString(*resource, "ResourceType", rp, &out->resource.type);
  if (s.ok()) s = ReadString(*resource, "ResourceName", rp, &out->resource.name);
  return s;
}

absl::Status ReadArgument(const Node& m, const std::string& path, SetterArgument* out) {
  CUB_RETURN_IF_ERROR(CheckFields(m, path, {"ParameterName", "Value", "Evaluator"}));
  absl::Status s = ReadString(m, "ParameterName", path, &out->parameter_name);
  if (s.ok()) s = ReadScalarText(m, "Value", path, &out->value);
  if (s.ok()) s = ReadString(m, "Evaluator", path, &out->evaluator);
  return s;
}

absl::Status ReadSetter(const Node& m, const std::string& path, DownstreamSetter* out) {
  CUB_RETURN_IF_ERROR(CheckFields(m, path, {"Parameters", "FunctionInvocation"}));
  CUB_RETURN_IF_ERROR(ReadStringList(m, "Parameters", path, &out->parameters));
  CUB_ASSIGN_OR_RETURN(const Node* invocation, ReadMapping(m, "FunctionInvocation", path));
  if (invocation == nullptr) return absl::OkStatus();
  std::string ip = Field(path, "FunctionInvocation");
  absl::Status s = CheckFields(*invocation, ip, {"FunctionName", "Arguments"});
  if (s.ok()) s = ReadString(*invocation, "FunctionName", ip, &out->function_name);
  if (!s.ok()) return s;
  return ReadMappingList(*invocation, "Arguments", ip, [&](const Node& a, const std::string& p) {
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
  CUB_RETURN_IF_ERROR(CheckFields(
      doc, "", {"Protect", "AutoUpdate", "UpdateType", "UpstreamPaths", "DownstreamSetters"},
      options.skip_fields));
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
  CUB_ASSIGN_OR_RETURN(std::vector<Node> docs, config::ParseYaml(text));
  if (docs.empty()) return absl::InvalidArgumentError("link definition is empty");
  if (docs.size() > 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("link definition must be one document, got ", docs.size()));
  }
  return DefinitionFromNode(docs.front(), options);
}

}  // namespace cub::links
