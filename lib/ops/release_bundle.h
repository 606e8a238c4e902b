// What a Target is handed of a recorded Release: its bundle as the database holds it now,
// checked against the Release's signed provenance first. Shared by the outbox
// (lib/ops/delivery.cc) and publishing (lib/ops/releases.cc, which defines it).
#ifndef CUB_LIB_OPS_RELEASE_BUNDLE_H_
#define CUB_LIB_OPS_RELEASE_BUNDLE_H_

#include <vector>

#include "absl/status/statusor.h"
#include "cub/v1/release.pb.h"
#include "lib/ops/releases.h"
#include "lib/store/transaction.h"
#include "lib/targets/provider.h"

namespace cub::ops {

// The files of `r` (one per Unit), after VerifyRelease's checks of the stored bundle against
// the signed record. DATA_LOSS naming the Release when they fail: it is not delivered.
absl::StatusOr<std::vector<targets::BundleFile>> VerifiedBundleFiles(store::Tx& tx,
                                                                     const ReleaseEnv& env,
                                                                     const v1::Release& r);

// The same for many Releases, with two queries for all of them: each entry, in the order given,
// is the Release's files or its DATA_LOSS. An error of the whole is the database's.
absl::StatusOr<std::vector<absl::StatusOr<std::vector<targets::BundleFile>>>> VerifiedBundleFilesOf(
    store::Tx& tx, const ReleaseEnv& env, const std::vector<v1::Release>& releases);

}  // namespace cub::ops

#endif  // CUB_LIB_OPS_RELEASE_BUNDLE_H_
