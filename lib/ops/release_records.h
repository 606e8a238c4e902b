// What a publish writes about each Release, shared by the single-Space publish
// (lib/ops/releases.cc) and the Stage-wide one (lib/ops/stage_publish.cc): the bundle digest, the
// signed provenance record and the sealed approvals. Both must produce byte for byte the same
// records, since VerifyRelease checks any Release against the same rules.
#ifndef CUB_LIB_OPS_RELEASE_RECORDS_H_
#define CUB_LIB_OPS_RELEASE_RECORDS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "cub/v1/release.pb.h"
#include "cub/v1/space.pb.h"
#include "lib/ops/attestation_gate.h"
#include "lib/ops/change_orders.h"
#include "lib/ops/releases.h"
#include "lib/store/releases.h"
#include "lib/store/transaction.h"
#include "lib/targets/provider.h"
#include "lib/workflow/model.h"

namespace cub::ops {

// The bundle digest: SHA-256 over each file's name and the SHA-256 of its content, in name
// order, so it names exactly the bytes a Target is handed.
std::string BundleDigest(std::vector<targets::BundleFile> files);

// The name a Release's signed statements give it: "SPACE/release-N".
std::string ReleaseSubjectName(const std::string& space_slug, int64_t num);

// "SPACE/TARGET", as a Release names its Target.
std::string ReleaseTargetName(const v1::Target& target);

// The provenance record of the Release `nr`: an in-toto statement naming its bundle digest and
// every field of its row that is not live state, signed with the server's key into a DSSE
// envelope (JSON). `published_by` is the publisher's username.
// FAILED_PRECONDITION SigningKeyNotReady while cubd has no signing key.
absl::StatusOr<std::string> SignReleaseProvenance(const ReleaseEnv& env,
                                                  const store::NewRelease& nr,
                                                  const std::string& published_by);

// Sealing approvals onto Releases takes two steps, so that a whole Stage's are judged at once:
//
// JudgeApprovals judges, now, the votes behind each attestation prerequisite of `reqs` for the
// change `rco` in each of `spaces`: out[k][j] is reqs[k]'s outcome in spaces[j]. A fixed number
// of queries whatever the number of Spaces.
absl::StatusOr<std::vector<std::vector<RequirementOutcome>>> JudgeApprovals(
    store::Tx& tx, const ResolvedChangeOrder& rco,
    const std::vector<const workflow::AttestationPrerequisite*>& reqs,
    const std::vector<v1::Space>& spaces);

// SignApprovalSeal writes the votes of Release `num` of `space` (outcomes[k]: reqs[k]'s outcome
// in that Space, from JudgeApprovals) as an approval statement of Stage `stage` naming the
// Release and `digest`, signed with the server's key. Pure: safe to call concurrently.
absl::StatusOr<std::string> SignApprovalSeal(
    const ReleaseEnv& env, const ResolvedChangeOrder& rco, const std::string& stage,
    const std::vector<const workflow::AttestationPrerequisite*>& reqs,
    const std::vector<const RequirementOutcome*>& outcomes, const v1::Space& space, int64_t num,
    const std::string& digest);

}  // namespace cub::ops

#endif  // CUB_LIB_OPS_RELEASE_RECORDS_H_
