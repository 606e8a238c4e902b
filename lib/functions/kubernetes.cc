#include "lib/functions/kubernetes.h"

#include <algorithm>
#include <array>

namespace cub::functions {
namespace {

using config::Node;

// Built-in cluster-scoped kinds (kubectl api-resources --namespaced=false) that do not start
// with "Cluster".
constexpr std::array<std::string_view, 23> kClusterScoped = {
    "APIService",
    "CSIDriver",
    "CSINode",
    "CertificateSigningRequest",
    "ComponentStatus",
    "CustomResourceDefinition",
    "FlowSchema",
    "IngressClass",
    "MutatingAdmissionPolicy",
    "MutatingAdmissionPolicyBinding",
    "MutatingWebhookConfiguration",
    "Namespace",
    "Node",
    "PersistentVolume",
    "PodSecurityPolicy",
    "PriorityClass",
    "PriorityLevelConfiguration",
    "RuntimeClass",
    "StorageClass",
    "ValidatingAdmissionPolicy",
    "ValidatingAdmissionPolicyBinding",
    "ValidatingWebhookConfiguration",
    "VolumeAttachment",
};

}  // namespace

bool IsBuiltinApi(const Node& doc) {
  const Node* api = doc.Find("apiVersion");
  if (api == nullptr || !api->IsString()) return true;
  const std::string_view v = api->AsString();
  const size_t slash = v.find('/');
  if (slash == std::string_view::npos) return true;
  const std::string_view group = v.substr(0, slash);
  return group == "apps" || group == "batch" || group == "extensions";
}

namespace {

template <typename NodeT>
auto FindPodSpecImpl(NodeT& doc, std::string_view* path) -> decltype(doc.Find("")) {
  const std::string_view kind = KindOf(doc);
  if (kind.empty() || !IsBuiltinApi(doc)) return nullptr;
  auto* spec = doc.Find("spec");
  if (spec == nullptr) return nullptr;
  decltype(spec) pod_spec = nullptr;
  std::string_view pod_path;
  if (kind == "Deployment" || kind == "StatefulSet" || kind == "DaemonSet" ||
      kind == "ReplicaSet" || kind == "ReplicationController" || kind == "Job") {
    auto* tmpl = spec->Find("template");
    pod_spec = tmpl == nullptr ? nullptr : tmpl->Find("spec");
    pod_path = "spec.template.spec";
  } else if (kind == "CronJob") {
    auto* job = spec->Find("jobTemplate");
    auto* job_spec = job == nullptr ? nullptr : job->Find("spec");
    auto* tmpl = job_spec == nullptr ? nullptr : job_spec->Find("template");
    pod_spec = tmpl == nullptr ? nullptr : tmpl->Find("spec");
    pod_path = "spec.jobTemplate.spec.template.spec";
  } else if (kind == "Pod") {
    pod_spec = spec;
    pod_path = "spec";
  }
  if (pod_spec == nullptr || !pod_spec->IsMapping()) return nullptr;
  *path = pod_path;
  return pod_spec;
}

}  // namespace

std::string_view KindOf(const Node& doc) {
  const Node* kind = doc.Find("kind");
  if (kind == nullptr || !kind->IsString()) return {};
  return kind->AsString();
}

std::string_view NameOf(const Node& doc) {
  const Node* metadata = doc.Find("metadata");
  const Node* name = metadata == nullptr ? nullptr : metadata->Find("name");
  if (name == nullptr || !name->IsString()) return {};
  return name->AsString();
}

std::string ResourceLabel(const Node& doc, size_t index) {
  const std::string_view kind = KindOf(doc);
  const std::string number = "document " + std::to_string(index + 1);
  if (kind.empty()) return number;
  const std::string_view name = NameOf(doc);
  if (name.empty()) return std::string(kind) + " (" + number + ")";
  std::string out(kind);
  out += '/';
  out += name;
  return out;
}

bool MatchesResource(const Node& doc, std::string_view selector) {
  const std::string_view kind = KindOf(doc);
  if (kind.empty()) return false;
  const size_t slash = selector.find('/');
  if (slash == std::string_view::npos) return kind == selector;
  return kind == selector.substr(0, slash) && NameOf(doc) == selector.substr(slash + 1);
}

bool IsClusterScoped(std::string_view kind) {
  if (kind.substr(0, 7) == "Cluster") return true;
  return std::find(kClusterScoped.begin(), kClusterScoped.end(), kind) != kClusterScoped.end();
}

bool HasReplicas(const Node& doc) {
  const std::string_view kind = KindOf(doc);
  return (kind == "Deployment" || kind == "StatefulSet" || kind == "ReplicaSet") &&
         IsBuiltinApi(doc);
}

const Node* FindPodSpec(const Node& doc, std::string_view* path) {
  return FindPodSpecImpl(doc, path);
}

Node* FindPodSpec(Node& doc, std::string_view* path) { return FindPodSpecImpl(doc, path); }

bool ContainerNamed(const Node& container, std::string_view name) {
  const Node* n = container.Find("name");
  return n != nullptr && n->IsString() && n->AsString() == name;
}

}  // namespace cub::functions
