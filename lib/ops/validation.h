// Validation on write. A Space may name saved vet Invocations (its ValidatingInvocations);
// every new revision of its Units is vetted by each, and what they find is recorded on the
// revision as ValidationErrors. A finding does not refuse the write: it is what the Validated
// gate and `cub release publish` read later.
#ifndef CUB_LIB_OPS_VALIDATION_H_
#define CUB_LIB_OPS_VALIDATION_H_

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "cub/v1/common.pb.h"
#include "cub/v1/function.pb.h"
#include "lib/ops/principal.h"
#include "lib/store/transaction.h"
#include "lib/store/units.h"

namespace cub::ops {

// Checks, when a Space is configured, that each "SPACE/NAME" is a vet Invocation the caller
// can read and that it needs no parameter values.
absl::Status CheckValidators(store::Tx& tx, const Principal& p,
                             const std::vector<std::string>& refs);

// Runs `space`'s validators over rev->data (of `toolchain`) and sets rev->validation_errors.
// The validators are the Space's configuration, so they are read without the writer needing a
// role on their Space; one that has since been deleted is itself reported as an error.
absl::Status RunValidators(store::Tx& tx, const v1::Space& space, const std::string& toolchain,
                           store::NewRevision* rev);

// RunValidators for many revisions in one transaction: each validator Invocation is read once,
// on first use, instead of once per revision (a Stage-wide promote, an Invocation over many
// Units and a demote vet every revision they write). Not thread-safe; lives no longer than `tx`.
class Validators {
 public:
  explicit Validators(store::Tx& tx) : tx_(tx) {}
  absl::Status Run(const v1::Space& space, const std::string& toolchain, store::NewRevision* rev);

 private:
  // The Invocation "SPACE/NAME" names (nullopt: there is none), read once.
  absl::StatusOr<const std::optional<v1::Invocation>*> Find(const std::string& ref);

  store::Tx& tx_;
  std::map<std::string, std::optional<v1::Invocation>> loaded_;
};

}  // namespace cub::ops

#endif  // CUB_LIB_OPS_VALIDATION_H_
