#include "lib/config/documents.h"

#include <string_view>

namespace cub::config {
namespace {

const std::string* StringAt(const Node& n, std::string_view key) {
  const Node* v = n.Find(key);
  return v != nullptr && v->IsString() ? &v->AsString() : nullptr;
}

bool PartMatches(std::string_view pattern, std::string_view value) {
  return pattern == "*" || pattern == value;
}

bool ApiVersionMatches(std::string_view pattern, std::string_view value) {
  if (pattern == "*" || pattern == value) return true;
  const size_t p = pattern.find('/');
  const size_t v = value.find('/');
  if (p == std::string_view::npos || v == std::string_view::npos) return false;
  return PartMatches(pattern.substr(0, p), value.substr(0, v)) &&
         PartMatches(pattern.substr(p + 1), value.substr(v + 1));
}

}  // namespace

std::optional<DocumentRef> KubernetesRef(const Node& doc) {
  const std::string* api_version = StringAt(doc, "apiVersion");
  const std::string* kind = StringAt(doc, "kind");
  const Node* metadata = doc.Find("metadata");
  const std::string* name = metadata != nullptr ? StringAt(*metadata, "name") : nullptr;
  if (api_version == nullptr || kind == nullptr || name == nullptr) return std::nullopt;
  const std::string* ns = StringAt(*metadata, "namespace");
  return DocumentRef{*api_version, *kind, ns != nullptr ? *ns : "", *name, std::nullopt};
}

std::vector<DocumentRef> DocumentRefs(const std::vector<Node>& docs) {
  std::vector<DocumentRef> refs;
  refs.reserve(docs.size());
  size_t ordinal = 0;
  for (const Node& doc : docs) {
    std::optional<DocumentRef> ref = KubernetesRef(doc);
    if (ref.has_value()) {
      refs.push_back(*std::move(ref));
    } else {
      refs.emplace_back().ordinal = ordinal++;
    }
  }
  return refs;
}

std::string DocumentKey(const DocumentRef& ref) {
  if (ref.ordinal.has_value()) return "#" + std::to_string(*ref.ordinal);
  std::string key;
  key.reserve(ref.api_version.size() + ref.kind.size() + ref.namespace_name.size() +
              ref.name.size() + 12);
  for (const std::string* part : {&ref.api_version, &ref.kind, &ref.namespace_name, &ref.name}) {
    key.append(std::to_string(part->size()));  // length-prefixed: no two refs collide
    key.push_back(':');
    key.append(*part);
  }
  return key;
}

bool DocumentMatches(const DocumentRef& pattern, const DocumentRef& ref) {
  if (pattern.ordinal.has_value() || ref.ordinal.has_value()) return pattern.ordinal == ref.ordinal;
  return ApiVersionMatches(pattern.api_version, ref.api_version) &&
         PartMatches(pattern.kind, ref.kind) &&
         PartMatches(pattern.namespace_name, ref.namespace_name) &&
         PartMatches(pattern.name, ref.name);
}

}  // namespace cub::config
