#include "lib/config/merge_keys.h"

#include <unordered_set>

#include "lib/config/path.h"

namespace cub::config {
namespace {

// Whether every item of `list` is a mapping with a distinct ScalarText under `field`.
bool Identifies(const Node* list, const std::string& field) {
  if (list == nullptr || !list->IsSequence()) return true;  // nothing to contradict it
  std::unordered_set<std::string> seen;
  for (const Node& item : list->AsSequence()) {
    const Node* value = item.Find(field);
    if (value == nullptr) return false;
    std::optional<std::string> text = ScalarText(*value);
    if (!text.has_value() || !seen.insert(*std::move(text)).second) return false;
  }
  return true;
}

}  // namespace

const std::vector<std::string>& MergeKeyCandidates(std::string_view list_key) {
  static const std::vector<std::string> kNone;
  static const std::vector<std::string> kName = {"name"};
  static const std::vector<std::string> kPorts = {"containerPort", "name", "port"};
  static const std::vector<std::string> kMountPath = {"mountPath"};
  static const std::vector<std::string> kDevicePath = {"devicePath"};
  if (list_key == "containers" || list_key == "initContainers" ||
      list_key == "ephemeralContainers" || list_key == "env" || list_key == "volumes" ||
      list_key == "imagePullSecrets") {
    return kName;
  }
  if (list_key == "ports") return kPorts;
  if (list_key == "volumeMounts") return kMountPath;
  if (list_key == "volumeDevices") return kDevicePath;
  return kNone;
}

std::optional<std::string> ListMergeKey(std::string_view list_key, const Node* base,
                                        const Node* end) {
  const bool base_seq = base != nullptr && base->IsSequence();
  const bool end_seq = end != nullptr && end->IsSequence();
  if (!base_seq && !end_seq) return std::nullopt;
  for (const std::string& field : MergeKeyCandidates(list_key)) {
    if (Identifies(base, field) && Identifies(end, field)) return field;
  }
  return std::nullopt;
}

}  // namespace cub::config
