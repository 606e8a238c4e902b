#include "lib/links/resource.h"

#include "absl/strings/str_cat.h"
#include "lib/config/documents.h"
#include "lib/config/json.h"

namespace cub::links {
namespace {

using config::Node;
using config::PathSegment;

const std::string* StringAt(const Node* m, std::string_view key) {
  if (m == nullptr) return nullptr;
  const Node* v = m->Find(key);
  return v != nullptr && v->IsString() ? &v->AsString() : nullptr;
}

bool TypeMatches(const Node& doc, const std::string& type) {
  if (type.empty()) return true;
  if (const std::string* schema = StringAt(doc.Find("configHub"), "configSchema")) {
    if (*schema == type) return true;
  }
  const std::string* api_version = StringAt(&doc, "apiVersion");
  if (api_version == nullptr) return false;
  if (*api_version == type) return true;
  const std::string* kind = StringAt(&doc, "kind");
  return kind != nullptr && absl::StrCat(*api_version, "/", *kind) == type;
}

bool NameMatches(const Node& doc, const std::string& name) {
  if (name.empty()) return true;
  const Node* metadata = doc.Find("metadata");
  if (const std::string* n = StringAt(metadata, "name")) {
    if (*n == name) return true;
    if (const std::string* ns = StringAt(metadata, "namespace")) {
      if (absl::StrCat(*ns, "/", *n) == name) return true;
    }
  }
  const std::string* config_name = StringAt(doc.Find("configHub"), "configName");
  return config_name != nullptr && *config_name == name;
}

}  // namespace

bool ResourceMatches(const Node& doc, const ResourceRef& ref) {
  if (doc.IsNull()) return false;
  if (ref.type.empty() && ref.name.empty()) return true;
  if (!doc.IsMapping()) return false;
  return TypeMatches(doc, ref.type) && NameMatches(doc, ref.name);
}

std::string DescribeResource(const ResourceRef& ref) {
  if (ref.type.empty() && ref.name.empty()) return "the only document";
  if (ref.name.empty()) return absl::StrCat("of type ", ref.type);
  if (ref.type.empty()) return absl::StrCat("named ", ref.name);
  return absl::StrCat(ref.type, " named ", ref.name);
}

absl::StatusOr<size_t> FindResource(const std::vector<Node>& docs, const ResourceRef& ref) {
  std::optional<size_t> found;
  size_t count = 0, non_null = 0;
  for (size_t i = 0; i < docs.size(); ++i) {
    if (!docs[i].IsNull()) ++non_null;
    if (!ResourceMatches(docs[i], ref)) continue;
    if (!found) found = i;
    ++count;
  }
  if (ref.type.empty() && ref.name.empty()) {
    if (non_null == 1) return *found;
    return absl::FailedPreconditionError(
        absl::StrCat("the upstream unit holds ", non_null,
                     " documents; say which with Resource (ResourceType, ResourceName)"));
  }
  if (count == 0) {
    return absl::FailedPreconditionError(
        absl::StrCat("no resource ", DescribeResource(ref), " in the upstream unit"));
  }
  if (count > 1) {
    return absl::FailedPreconditionError(absl::StrCat(count, " resources ", DescribeResource(ref),
                                                      " match in the upstream unit; name one "
                                                      "with ResourceType and ResourceName"));
  }
  return *found;
}

absl::StatusOr<config::Path> ParseValuePath(std::string_view text) {
  if (text.empty()) return absl::InvalidArgumentError("path is empty");
  absl::StatusOr<config::Path> path = config::ParsePath(text);
  if (!path.ok()) return path.status();
  if (path->document) {
    return absl::InvalidArgumentError(
        "path names a document; the resource is chosen by Resource, so leave out the "
        "document part before ':'");
  }
  if (path->HasWildcard()) {
    return absl::InvalidArgumentError("path has a wildcard; it must name one value");
  }
  if (path->segments.empty()) return absl::InvalidArgumentError("path is empty");
  return path;
}

const Node* FindValue(const Node& root, const config::Path& path) {
  const Node* at = &root;
  for (const PathSegment& seg : path.segments) {
    switch (seg.kind) {
      case PathSegment::Kind::kKey:
        at = at->Find(seg.key);
        break;
      case PathSegment::Kind::kIndex:
        at = at->IsSequence() && seg.index < at->AsSequence().size() ? &at->AsSequence()[seg.index]
                                                                     : nullptr;
        break;
      case PathSegment::Kind::kSelector: {
        const Node* match = nullptr;
        if (at->IsSequence()) {
          for (const Node& item : at->AsSequence()) {
            const Node* field = item.Find(seg.key);
            if (field == nullptr) continue;
            std::optional<std::string> text = config::ScalarText(*field);
            if (text && *text == seg.value) {
              match = &item;
              break;
            }
          }
        }
        at = match;
        break;
      }
      case PathSegment::Kind::kAny:
      case PathSegment::Kind::kAnyDepth:
        return nullptr;  // excluded by ParseValuePath
    }
    if (at == nullptr) return nullptr;
  }
  return at;
}

std::optional<std::string> ValueText(const Node& value) {
  if (value.IsNull()) return std::nullopt;
  if (value.IsString()) return value.AsString();
  return config::EmitJson(value, false);
}

std::optional<std::string> ResourceIdentity(const Node& doc) {
  if (std::optional<config::DocumentRef> ref = config::KubernetesRef(doc)) {
    return absl::StrCat("k8s:", config::DocumentKey(*ref));
  }
  const Node* config_hub = doc.Find("configHub");
  const std::string* schema = StringAt(config_hub, "configSchema");
  const std::string* name = StringAt(config_hub, "configName");
  if (schema == nullptr || name == nullptr) return std::nullopt;
  return absl::StrCat("configHub:", schema->size(), ":", *schema, name->size(), ":", *name);
}

}  // namespace cub::links
