// What the Kubernetes/YAML functions know about Kubernetes resources: how to name one in
// messages, which kinds are cluster-scoped, which are workloads and where their containers
// are.
//
// Workloads and where their pod spec is (only for the built-in API groups "" (v1), apps,
// extensions and batch, so a custom resource that reuses a name such as Job is left alone):
//   Deployment, StatefulSet, DaemonSet, ReplicaSet, ReplicationController, Job
//                                          spec.template.spec
//   CronJob                                spec.jobTemplate.spec.template.spec
//   Pod                                    spec
// A pod spec's containers are the items of its `containers` and then `initContainers` lists
// (ephemeralContainers are never in manifests); items that are not mappings are skipped.
//
// Pure functions; thread-safe for distinct documents.

#ifndef CUB_LIB_FUNCTIONS_KUBERNETES_H_
#define CUB_LIB_FUNCTIONS_KUBERNETES_H_

#include <cstddef>
#include <string>
#include <string_view>
#include <type_traits>

#include "lib/config/node.h"
#include "lib/functions/display_path.h"

namespace cub::functions {

// The document's `kind` if it is a mapping with a non-empty string kind (a resource), else "".
std::string_view KindOf(const config::Node& doc);

// metadata.name if it is a string, else "".
std::string_view NameOf(const config::Node& doc);

// How messages and results name document `index` (0-based): "Deployment/web" for a named
// resource, "Deployment (document 2)" for an unnamed one, "document 2" for a document that is
// not a resource (document numbers in messages are 1-based).
std::string ResourceLabel(const config::Node& doc, size_t index);

// Whether the resource matches a selector "KIND" or "KIND/NAME" (kind compared exactly).
bool MatchesResource(const config::Node& doc, std::string_view selector);

// Whether a kind is cluster-scoped, so has no metadata.namespace: the built-in cluster-scoped
// kinds (Namespace, Node, PersistentVolume, StorageClass, ClusterRole, ClusterRoleBinding,
// CustomResourceDefinition, APIService, webhook configurations, PriorityClass, ...) and any
// kind starting with "Cluster" (ClusterIssuer, ClusterPolicy, ClusterSecretStore ...). Other
// custom kinds are taken to be namespaced.
bool IsClusterScoped(std::string_view kind);

// Whether the document's apiVersion is of a built-in group that vet-schemas and the workload
// functions know: "v1" (the core group), apps/..., batch/... or extensions/...; a missing
// apiVersion counts as built-in.
bool IsBuiltinApi(const config::Node& doc);

// Whether the resource is a Deployment, StatefulSet or ReplicaSet (the kinds with
// spec.replicas that set-replicas edits) of a built-in API group.
bool HasReplicas(const config::Node& doc);

// The pod spec of a workload (see the file comment) and its display path, or nullptr (and
// `path` untouched) if the document is not a workload or has no pod spec mapping.
const config::Node* FindPodSpec(const config::Node& doc, std::string_view* path);
config::Node* FindPodSpec(config::Node& doc, std::string_view* path);

// Calls fn(container, path_fn) for each container of a workload, where container is a
// (const) config::Node& and path_fn() returns its display path, such as
// "spec.template.spec.containers.name=web". The path is built only if asked for.
template <typename NodeT, typename Fn>
void ForEachContainer(NodeT& doc, Fn&& fn) {
  std::string_view pod_path;
  auto* pod_spec = FindPodSpec(doc, &pod_path);
  if (pod_spec == nullptr) return;
  for (const char* list_name : {"containers", "initContainers"}) {
    auto* list = pod_spec->Find(list_name);
    if (list == nullptr || !list->IsSequence()) continue;
    auto& items = [&]() -> auto& {
      if constexpr (std::is_const_v<NodeT>) {
        return list->AsSequence();
      } else {
        return list->MutableSequence();
      }
    }
    ();
    for (size_t i = 0; i < items.size(); ++i) {
      if (!items[i].IsMapping()) continue;
      auto path_fn = [&, i] {
        std::string path(pod_path);
        AppendKey(&path, list_name);
        AppendItem(&path, items[i], i);
        return path;
      };
      fn(items[i], path_fn);
    }
  }
}

// Whether a container's `name` is the string `name` (exactly; "*" is not special here).
bool ContainerNamed(const config::Node& container, std::string_view name);

}  // namespace cub::functions

#endif  // CUB_LIB_FUNCTIONS_KUBERNETES_H_
