// set-replicas and get-replicas: spec.replicas of Deployments, StatefulSets and ReplicaSets.

#include <cstdint>

#include "lib/functions/builtin.h"
#include "lib/functions/kubernetes.h"
#include "lib/functions/results.h"
#include "lib/util/status_macros.h"

namespace cub::functions::internal {
namespace {

using config::Node;

absl::Status SetReplicas(const Arguments& args, SetResult* result) {
  const int64_t replicas = args.Int("replicas");
  if (replicas < 0 || replicas > INT32_MAX) {
    return UsageError(args.spec(), "expected a non-negative int32 for replicas, got '" +
                                       args.Text("replicas") + "'");
  }
  for (size_t i = 0; i < result->docs.size(); ++i) {
    Node& doc = result->docs[i];
    if (!HasReplicas(doc)) continue;
    DocumentEdits edits(doc, i, result);
    edits.Matched();
    CUB_RETURN_IF_ERROR(edits.SetIn(doc, "", {"spec", "replicas"}, Node::Int(replicas)));
  }
  return absl::OkStatus();
}

absl::Status GetReplicas(const Arguments&, const std::vector<Node>& docs, GetResult* result) {
  for (size_t i = 0; i < docs.size(); ++i) {
    if (!HasReplicas(docs[i])) continue;
    const Node* spec = docs[i].Find("spec");
    const Node* replicas = spec == nullptr ? nullptr : spec->Find("replicas");
    if (replicas != nullptr) AddFound(docs[i], i, "spec.replicas", *replicas, result);
  }
  return absl::OkStatus();
}

}  // namespace

void AddReplicaFunctions(std::vector<Function>* out) {
  Function f = Define("set-replicas", FunctionKind::kSet,
                      "Sets spec.replicas of every Deployment, StatefulSet and ReplicaSet.",
                      {Param("replicas", "int", "The number of pods, 0 or more.")});
  f.set = SetReplicas;
  out->push_back(std::move(f));

  f = Define("get-replicas", FunctionKind::kGet,
             "Reads spec.replicas of every Deployment, StatefulSet and ReplicaSet that sets it "
             "(Kubernetes defaults it to 1 where it is absent).",
             {});
  f.get = GetReplicas;
  out->push_back(std::move(f));
}

}  // namespace cub::functions::internal
