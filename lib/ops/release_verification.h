// A Release's Verification (the newest check of its OCI artifact's evidence in the registry,
// lib/oci/verify.h) is a record of its own (lib/store/release_verifications.h): attached to
// the Releases an operation returns.
#ifndef CUB_LIB_OPS_RELEASE_VERIFICATION_H_
#define CUB_LIB_OPS_RELEASE_VERIFICATION_H_

#include <vector>

#include "absl/status/status.h"
#include "cub/v1/release.pb.h"
#include "lib/store/transaction.h"

namespace cub::ops {

// Sets each Release's verification from the newest check recorded for it (one query); leaves
// it unset for a Release never checked (other providers, not yet delivered).
absl::Status AttachVerifications(store::Tx& tx, const std::vector<v1::Release*>& releases);

template <typename Container>
absl::Status AttachVerificationsTo(store::Tx& tx, Container& releases) {
  std::vector<v1::Release*> ptrs;
  for (auto& r : releases) ptrs.push_back(&r);
  return AttachVerifications(tx, ptrs);
}

}  // namespace cub::ops

#endif  // CUB_LIB_OPS_RELEASE_VERIFICATION_H_
