// What cubd's /metrics reports about work waiting in the database: the promotion engine's work
// list (lib/store/engine_work.h) and the Releases not yet delivered (lib/ops/delivery.h). Read in
// one statement over small or partially indexed sets, so a probe every few seconds costs little.
#ifndef CUB_LIB_STORE_OPS_GAUGES_H_
#define CUB_LIB_STORE_OPS_GAUGES_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "lib/store/transaction.h"

namespace cub::store {

struct OpsGauges {
  int64_t engine_rows = 0;             // ChangeOrders on the engine's work list (due or backed off)
  int64_t engine_due = 0;              // of them, due now
  double engine_lag_seconds = 0;       // how long the longest-due row has been due (0: none due)
  int64_t delivery_pending = 0;        // Releases recorded and not yet tried
  int64_t delivery_failed = 0;         // Releases whose delivery failed and will be retried
  double delivery_oldest_seconds = 0;  // age of the oldest undelivered Release (0: none)
};

absl::StatusOr<OpsGauges> ReadOpsGauges(Tx& tx);

}  // namespace cub::store

#endif  // CUB_LIB_STORE_OPS_GAUGES_H_
