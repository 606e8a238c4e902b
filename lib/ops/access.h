// Finding a Space on behalf of a caller and checking what the caller may do there.
//
// A Space the caller holds no role on is reported as not found, exactly like a Space that
// does not exist, so names of other teams' Spaces do not leak. A Space the caller can see but
// may not act on is PERMISSION_DENIED, naming the role that is needed.
#ifndef CUB_LIB_OPS_ACCESS_H_
#define CUB_LIB_OPS_ACCESS_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "cub/v1/common.pb.h"
#include "lib/ops/principal.h"
#include "lib/store/caller.h"
#include "lib/store/transaction.h"

namespace cub::ops {

store::Caller ToCaller(const Principal& p);

// A reference to an entity kept in a Space: "SPACE/NAME", or "NAME" in `default_space`.
struct SpacedRef {
  std::string space;
  std::string name;
};
SpacedRef SplitRef(const std::string& ref, const std::string& default_space);

// The Space named by slug or ID, if `p` may perform `access` on it.
absl::StatusOr<v1::Space> ResolveSpace(store::Tx& tx, const Principal& p, const std::string& ref,
                                       Access access);

// For each of `spaces`, in order, whether `p` may perform `access` on it, in one query
// whatever their number (an admin may do anything). A Space answered false is refused by
// ResolveSpace, whose Status gives the words.
absl::StatusOr<std::vector<bool>> MayAccessEach(store::Tx& tx, const Principal& p,
                                                const std::vector<v1::Space>& spaces,
                                                Access access);

// The Unit `ref` (slug or ID) of `space`; NOT_FOUND naming both otherwise.
absl::StatusOr<v1::Unit> ResolveUnit(store::Tx& tx, const v1::Space& space, const std::string& ref);

// The where expression of a saved Filter, "space/name" or "name" (in `default_space`),
// which must select `entity` ("Space" or "Unit"). Empty `ref` gives "".
absl::StatusOr<std::string> ResolveFilter(store::Tx& tx, const Principal& p, const std::string& ref,
                                          const std::string& default_space,
                                          const std::string& entity);

}  // namespace cub::ops

#endif  // CUB_LIB_OPS_ACCESS_H_
