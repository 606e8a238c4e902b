// Metadata functions: set-label, get-label, set-annotation, get-annotation, set-namespace.
//
// Labels and annotations are those of each resource's own metadata. A workload's pod
// template labels are left alone: a Deployment's selector must keep matching them and cannot
// change after creation, so adding a label there would either break the match or be a
// change Kubernetes refuses; use set-path for a deliberate template edit.

#include <string>

#include "lib/functions/builtin.h"
#include "lib/functions/display_path.h"
#include "lib/functions/kubernetes.h"
#include "lib/functions/results.h"
#include "lib/util/status_macros.h"

namespace cub::functions::internal {
namespace {

using config::Node;

absl::Status SetMetadataEntry(std::string_view field, const Arguments& args, SetResult* result) {
  const std::string& key = args.Text("key");
  const std::string& value = args.Text("value");
  for (size_t i = 0; i < result->docs.size(); ++i) {
    Node& doc = result->docs[i];
    if (KindOf(doc).empty()) continue;
    DocumentEdits edits(doc, i, result);
    edits.Matched();
    CUB_RETURN_IF_ERROR(edits.SetIn(doc, "", {"metadata", field, key}, Node::String(value)));
  }
  return absl::OkStatus();
}

void GetMetadataEntry(std::string_view field, const Arguments& args, const std::vector<Node>& docs,
                      GetResult* result) {
  const std::string& key = args.Text("key");
  for (size_t i = 0; i < docs.size(); ++i) {
    if (KindOf(docs[i]).empty()) continue;
    const Node* metadata = docs[i].Find("metadata");
    const Node* entries = metadata == nullptr ? nullptr : metadata->Find(field);
    const Node* value = entries == nullptr ? nullptr : entries->Find(key);
    if (value == nullptr) continue;
    std::string path = "metadata";
    AppendKey(&path, field);
    AppendKey(&path, key);
    AddFound(docs[i], i, std::move(path), *value, result);
  }
}

absl::Status SetLabel(const Arguments& args, SetResult* result) {
  return SetMetadataEntry("labels", args, result);
}
absl::Status SetAnnotation(const Arguments& args, SetResult* result) {
  return SetMetadataEntry("annotations", args, result);
}
absl::Status GetLabel(const Arguments& args, const std::vector<Node>& docs, GetResult* result) {
  GetMetadataEntry("labels", args, docs, result);
  return absl::OkStatus();
}
absl::Status GetAnnotation(const Arguments& args, const std::vector<Node>& docs,
                           GetResult* result) {
  GetMetadataEntry("annotations", args, docs, result);
  return absl::OkStatus();
}

absl::Status SetNamespace(const Arguments& args, SetResult* result) {
  const std::string& ns = args.Text("namespace");
  for (size_t i = 0; i < result->docs.size(); ++i) {
    Node& doc = result->docs[i];
    const std::string_view kind = KindOf(doc);
    if (kind.empty() || IsClusterScoped(kind)) continue;
    DocumentEdits edits(doc, i, result);
    edits.Matched();
    CUB_RETURN_IF_ERROR(edits.SetIn(doc, "", {"metadata", "namespace"}, Node::String(ns)));
  }
  return absl::OkStatus();
}

}  // namespace

void AddMetadataFunctions(std::vector<Function>* out) {
  const ParameterSpec label_key =
      Param("key", "label-key", "The key: tier, or app.kubernetes.io/name.");
  const ParameterSpec annotation_key =
      Param("key", "label-key", "The key: note, or example.com/owner.");
  Function f = Define("set-label", FunctionKind::kSet,
                      "Sets a label in metadata.labels of every resource (not in pod templates, "
                      "whose labels a workload's selector must keep matching).",
                      {label_key, Param("value", "label-value", "The label's value.")});
  f.set = SetLabel;
  out->push_back(std::move(f));

  f = Define("get-label", FunctionKind::kGet,
             "Reads a label from metadata.labels of every resource.", {label_key});
  f.get = GetLabel;
  out->push_back(std::move(f));

  f = Define("set-annotation", FunctionKind::kSet,
             "Sets an annotation in metadata.annotations of every resource.",
             {annotation_key, Param("value", "string", "The annotation's value; any text.")});
  f.set = SetAnnotation;
  out->push_back(std::move(f));

  f = Define("get-annotation", FunctionKind::kGet,
             "Reads an annotation from metadata.annotations of every resource.", {annotation_key});
  f.get = GetAnnotation;
  out->push_back(std::move(f));

  f = Define("set-namespace", FunctionKind::kSet,
             "Sets metadata.namespace of every namespaced resource. Cluster-scoped kinds "
             "(Namespace, ClusterRole, ClusterRoleBinding, CustomResourceDefinition, "
             "PersistentVolume, StorageClass, webhook configurations, and any kind starting with "
             "Cluster) are left alone, as are namespaces named inside specs (RoleBinding "
             "subjects and the like).",
             {Param("namespace", "dns-label", "The namespace's name.")});
  f.set = SetNamespace;
  out->push_back(std::move(f));
}

}  // namespace cub::functions::internal
