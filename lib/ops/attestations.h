// Use cases on Attestations: recording approvals and rejections (`cub variant approve`) and
// other attested facts (`cub attestation create`), reading them, and revoking them.
//
// The attester is the caller, with the groups their token carries; nothing in a request says
// who votes. An Approval needs the approver (or admin) role on the Space and a personal
// identity: service accounts and the server administrator cannot vote. Attestations are never
// changed: a revocation is a new record naming the one it withdraws.
#ifndef CUB_LIB_OPS_ATTESTATIONS_H_
#define CUB_LIB_OPS_ATTESTATIONS_H_

#include "absl/status/statusor.h"
#include "cub/v1/attestation.pb.h"
#include "lib/ops/principal.h"
#include "lib/store/pool.h"

namespace cub::ops {

// One attestation per Space selected, over the revisions selected there; Units with no
// revision matching the selection are reported in Skipped, not attested at another revision.
absl::StatusOr<v1::ApproveResponse> Approve(store::ConnectionPool& db, const Principal& p,
                                            const v1::ApproveRequest& req);
absl::StatusOr<v1::Attestation> GetAttestation(store::ConnectionPool& db, const Principal& p,
                                               const v1::GetAttestationRequest& req);
absl::StatusOr<v1::ListAttestationsResponse> ListAttestations(
    store::ConnectionPool& db, const Principal& p, const v1::ListAttestationsRequest& req);
// By the attester, or an admin of the Space. Refused for a revocation or one already revoked.
absl::StatusOr<v1::Attestation> RevokeAttestation(store::ConnectionPool& db, const Principal& p,
                                                  const v1::RevokeAttestationRequest& req);

}  // namespace cub::ops

#endif  // CUB_LIB_OPS_ATTESTATIONS_H_
