// What Insert and Upsert Links do to their downstream Unit: copy resources from the upstream
// Unit's documents, matched by ResourceIdentity (resource.h):
//   - a resource the downstream lacks is appended, in upstream order (Insert and Upsert);
//   - one the downstream has is left alone by Insert, and replaced whole, in place, by the
//     upstream's version by Upsert (nothing changes when the two are already equal);
//   - a document without an identity is appended unless an equal document is already there;
//   - nothing is ever removed: a resource the upstream dropped stays downstream (a downstream
//     of nothing but null documents, an empty Unit, is replaced by the copies).
//
// Pure functions; thread-safe.

#ifndef CUB_LIB_LINKS_COPY_H_
#define CUB_LIB_LINKS_COPY_H_

#include <string>
#include <vector>

#include "lib/config/node.h"

namespace cub::links {

enum class CopyMode { kInsert, kUpsert };

struct CopyResult {
  std::vector<config::Node> docs;  // the downstream documents after the copy
  size_t added = 0;                // documents appended
  size_t replaced = 0;             // documents replaced (Upsert only)
  bool changed = false;            // added + replaced > 0
};

CopyResult CopyResources(const std::vector<config::Node>& upstream,
                         std::vector<config::Node> downstream, CopyMode mode);

}  // namespace cub::links

#endif  // CUB_LIB_LINKS_COPY_H_
