// vet-format: every document is a Kubernetes resource in form: a mapping with non-empty
// string apiVersion and kind, and a metadata mapping with a non-empty string name.
// (Text that does not parse at all fails through Registry::VetYaml.)

#include <string>

#include "lib/functions/builtin.h"
#include "lib/functions/kubernetes.h"
#include "lib/functions/results.h"

namespace cub::functions::internal {
namespace {

using config::Node;

// The problem with `node` as a required non-empty string, or "" if none.
std::string CheckName(const Node* node) {
  if (node == nullptr) return "missing";
  if (!node->IsString() || node->AsString().empty()) {
    return "expected a non-empty string, got " + DescribeValue(*node);
  }
  return "";
}

absl::Status VetFormat(const Arguments&, const std::vector<Node>& docs, VetResult* result) {
  for (size_t i = 0; i < docs.size(); ++i) {
    const Node& doc = docs[i];
    const std::string label = ResourceLabel(doc, i);
    if (!doc.IsMapping()) {
      result->errors.push_back(label + ": expected a mapping, got " + DescribeValue(doc));
      continue;
    }
    for (const char* field : {"apiVersion", "kind"}) {
      const std::string problem = CheckName(doc.Find(field));
      if (!problem.empty()) result->errors.push_back(label + ": " + field + ": " + problem);
    }
    const Node* metadata = doc.Find("metadata");
    if (metadata == nullptr) {
      result->errors.push_back(label + ": metadata: missing");
    } else if (!metadata->IsMapping()) {
      result->errors.push_back(label + ": metadata: expected a mapping, got " +
                               DescribeValue(*metadata));
    } else if (std::string problem = CheckName(metadata->Find("name")); !problem.empty()) {
      result->errors.push_back(label + ": metadata.name: " + problem);
    }
  }
  return absl::OkStatus();
}

}  // namespace

void AddVetFormat(std::vector<Function>* out) {
  Function f = Define("vet-format", FunctionKind::kVet,
                      "Checks that the data parses and that every document is a resource: a "
                      "mapping with apiVersion, kind and metadata.name, each a non-empty string. "
                      "Reports every failure.",
                      {});
  f.vet = VetFormat;
  out->push_back(std::move(f));
}

}  // namespace cub::functions::internal
