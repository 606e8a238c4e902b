// One step of cubd's promotion engine for one ChangeOrder: everything the server may do for it
// now, done through the same use cases a caller's request goes through.
//
// A step reads the ChangeOrder afresh and repeats, while anything lands:
//   1. each promotion queued for it is tried as the user who queued it (ops::Promote, every
//      gate evaluated now); one whose gates do not hold keeps waiting, with the reason kept;
//   2. if the first Stage it has not reached is Automatic (in the workflow as it is now), it is
//      promoted there as the user `automatic`, unless a newer ChangeOrder of its base Space has
//      been promoted there already: then it is Superseded for that Stage (recorded once);
//      if it is Manual instead, and nothing is queued into it, that its gates hold is recorded
//      once (GateOpened);
//   3. in each Automatic Stage with AutoRelease that it is not superseded in, each Space that
//      has taken it, has a Target and has not published it is published (ops::PublishRelease
//      with Revision ChangeOrder:BASE/NAME), refused Spaces waiting for their release gates.
// Nothing here is kept in memory between steps; the work row (lib/store/engine_work.h) is the
// only state, so any replica can take the next step.
#ifndef CUB_LIB_OPS_ENGINE_STEP_H_
#define CUB_LIB_OPS_ENGINE_STEP_H_

#include <functional>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "lib/ops/principal.h"
#include "lib/ops/releases.h"
#include "lib/store/pool.h"

namespace cub::ops {

struct EngineEnv {
  store::ConnectionPool* db = nullptr;
  ReleaseEnv release;
  Principal automatic;  // the user the engine acts as on its own account
  // Polled between actions: true once the server is stopping, to end a long step early (what
  // is left stays due and another worker, or the next start, takes it).
  std::function<bool()> stopping;
};

// The user `automatic` (created by the migrations), as the engine's Principal.
absl::StatusOr<Principal> AutomaticPrincipal(store::ConnectionPool& db);

struct StepResult {
  enum class Next {
    kIdle,     // nothing more to do until something wakes the ChangeOrder again
    kRecheck,  // waiting on a gate that may open with time alone: look again after a while
    kRetry,    // something failed (a Space, a delivery): retry with backoff
  };
  Next next = Next::kIdle;
  std::string error;    // kRetry: what failed, for the work row and the log
  std::string waiting;  // the first refusal by a gate, for the log
  // kRecheck: the soonest moment a gate it waits on can hold by time alone (a soak's end):
  // the work row is kept due then. Unset, or with `sweep`, it is looked at again after the
  // sweep interval at the latest.
  std::optional<absl::Time> recheck_at;
  bool sweep = false;   // kRecheck: a gate reads `now` (CEL), so may open at any moment
  int promotions = 0;   // promotions that landed something
  int publishes = 0;
};

// Takes the step for the ChangeOrder with ID `change_order_id`. An error is one of the
// database (the step is retried); everything else is in the result.
absl::StatusOr<StepResult> RunEngineStep(const EngineEnv& env, const std::string& change_order_id);

}  // namespace cub::ops

#endif  // CUB_LIB_OPS_ENGINE_STEP_H_
