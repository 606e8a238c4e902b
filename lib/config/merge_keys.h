// Which lists a 3-way merge (merge.h) and a diff (diff.h) treat item by item, and by which
// field they identify the items: the Kubernetes strategic-merge keys of the lists that
// variants most often edit on their own.
//
//   list key                                          item field, in order of preference
//   containers, initContainers, ephemeralContainers   name
//   env, volumes, imagePullSecrets                    name
//   ports                                             containerPort, name, port
//                                                     (container ports; Service ports by
//                                                     name, else by port)
//   volumeMounts                                      mountPath
//   volumeDevices                                     devicePath
//
// A list is recognized by the mapping key it is stored under, wherever it appears, so the same
// rules serve Deployments, StatefulSets, Jobs, CronJobs and Pods alike. Every other list is
// atomic: it changes as one value. In particular envFrom (items have no identifying field) and
// tolerations (Kubernetes itself replaces them whole) are atomic.
//
// Pure functions; thread-safe.

#ifndef CUB_LIB_CONFIG_MERGE_KEYS_H_
#define CUB_LIB_CONFIG_MERGE_KEYS_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lib/config/node.h"

namespace cub::config {

// The fields that may identify the items of a list stored under mapping key `list_key`, in
// order of preference; empty for an atomic list.
const std::vector<std::string>& MergeKeyCandidates(std::string_view list_key);

// The field by which the items of the sequences `base` and `end` (either may be nullptr, or
// not a sequence, for a list absent on that side) stored under `list_key` are identified: the
// first candidate that every item of both has, as a mapping whose value under that field has a
// ScalarText (path.h), distinct within each list. nullopt when none qualifies, or when
// neither side is a sequence: the list is then atomic.
std::optional<std::string> ListMergeKey(std::string_view list_key, const Node* base,
                                        const Node* end);

}  // namespace cub::config

#endif  // CUB_LIB_CONFIG_MERGE_KEYS_H_
