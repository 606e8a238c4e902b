// Protected paths: places of a downstream Unit that merges (merge.h) must not change. A Link's
// Protect setting names them; a change there is withheld and reported as a Conflict with
// reason kProtectedPath.
//
// A protected path is a merge path (path.h), possibly with wildcards:
//   spec.replicas                                     in every document
//   apps/v1/Deployment/prod/web:spec.replicas         in one document
//   */Deployment/*/*:spec.replicas                    in every Deployment
//   spec.template.spec.containers.name=web.image      one container's image
//   spec.template.spec.containers.*.image            every container's image
//   **.metadata.labels.team                           at any depth
//   apps/v1/Deployment/prod/web:                      the whole document
// A path protects the place it names and everything below it. A change to an enclosing
// value (replacing a whole atomic list, removing a container or a document) is withheld too
// when it would change what a protected path names there. The downstream keeps its value,
// including the absence of one: an upstream addition at a protected path is withheld. The
// one exception is a document that the downstream does not have: adding it is withheld only
// by a protected path naming the whole document.
//
// Thread safety: a Protection is immutable; ProtectionCursors are values.

#ifndef CUB_LIB_CONFIG_PROTECTION_H_
#define CUB_LIB_CONFIG_PROTECTION_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "lib/config/node.h"
#include "lib/config/path.h"

namespace cub::config {

class ProtectionCursor;

class Protection {
 public:
  Protection() = default;  // protects nothing
  explicit Protection(std::vector<Path> patterns) : patterns_(std::move(patterns)) {}

  // Parses each of `paths` with ParsePath; InvalidArgument naming the first that fails.
  static absl::StatusOr<Protection> Parse(const std::vector<std::string>& paths);

  bool empty() const { return patterns_.empty(); }
  const std::vector<Path>& patterns() const { return patterns_; }

  // A cursor at the root of document `doc`.
  ProtectionCursor Start(const DocumentRef& doc) const;

 private:
  std::vector<Path> patterns_;
};

// Where a walk down one document stands relative to the protected paths: whether the current
// place is protected, and whether any protected place may lie below it. Cheap when nothing is
// protected (no allocation). Must not outlive its Protection.
class ProtectionCursor {
 public:
  ProtectionCursor() = default;  // protects nothing

  // The current place is protected (a path named it or a place above it).
  bool holds() const { return holds_; }
  // A protected path may name a place below the current one.
  bool below() const { return !states_.empty(); }

  // The cursor one step down: into mapping key `key`, or into sequence item `item` (whose
  // fields selectors test) at position `index` (nullopt when the position is unknown, as for
  // an item the downstream does not have: then no [N] selector matches it).
  ProtectionCursor IntoKey(std::string_view key) const;
  ProtectionCursor IntoItem(const Node& item, std::optional<size_t> index) const;

  // Whether replacing `current` by `replacement` (either nullptr: absent) would change what
  // the protected paths below this place name. Precondition: !holds().
  bool ChangesProtected(const Node* current, const Node* replacement) const;

 private:
  friend class Protection;
  struct Step;
  ProtectionCursor Into(const Step& step) const;
  void Close();  // adds the states reached by matching a "**" with nothing

  const Protection* protection_ = nullptr;
  // (pattern, next segment to match) pairs.
  std::vector<std::pair<uint32_t, uint32_t>> states_;
  bool holds_ = false;
};

}  // namespace cub::config

#endif  // CUB_LIB_CONFIG_PROTECTION_H_
