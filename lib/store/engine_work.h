// The promotion engine's work list: one row per ChangeOrder that something may have moved.
//
// Writers that may open a gate call Wake in their own transaction; it upserts the row due now
// and sends NOTIFY cub_engine, which PostgreSQL delivers at commit. A replica works on a row
// only while it holds the row's advisory lock (EngineConnection::TryLock), so no writer ever
// waits for the engine, and finishes it with the generation it read: a Wake that arrived while
// it worked keeps the row.
#ifndef CUB_LIB_STORE_ENGINE_WORK_H_
#define CUB_LIB_STORE_ENGINE_WORK_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "cub/v1/changeorder.pb.h"
#include "lib/store/transaction.h"

namespace cub::store {

// The channel Wake notifies.
inline constexpr char kEngineChannel[] = "cub_engine";

// Makes each ChangeOrder's row due now (a new row, or an existing one, its backoff cleared),
// unless it was aborted. The Wake... functions below skip Completed ChangeOrders as well.
absl::Status Wake(Tx& tx, const std::vector<std::string>& change_order_ids);
// Wake for every ChangeOrder of `base_space_id` not yet completed or aborted (a workflow edit
// may change what any of them may do).
absl::Status WakeOpenChangeOrdersOf(Tx& tx, const std::string& base_space_id);
// Wake for every open ChangeOrder that follows workflow `workflow_ref` ("SPACE/NAME" as
// ChangeOrders record it).
absl::Status WakeChangeOrdersOfWorkflow(Tx& tx, const std::string& workflow_ref);
// Wake for the ChangeOrders whose publish Tag marks a Unit of `space_id`: those that a status
// report or publish in that Space may move on.
absl::Status WakeChangeOrdersInSpace(Tx& tx, const std::string& space_id);
// The same for every Space of `space_ids`, in one statement.
absl::Status WakeChangeOrdersInSpaces(Tx& tx, const std::vector<std::string>& space_ids);

// Serializes, until the transaction ends, the promotions into Stage `stage` of ChangeOrders of
// `base_space_id`, so one that checks "has a newer ChangeOrder been promoted there?" sees
// every promotion that committed before it.
absl::Status LockStage(Tx& tx, const std::string& base_space_id, const std::string& stage);

// NOTIFY cub_engine alone (at commit): wakes every engine worker, e.g. to have it stop.
absl::Status NotifyEngine(Tx& tx);

struct EngineWork {
  std::string change_order_id;
  int64_t generation = 0;
  int attempts = 0;
};

// Rows due now, oldest first, at most `limit`.
absl::StatusOr<std::vector<EngineWork>> DueWork(Tx& tx, int limit);
// The row as it is now (generation and attempts), or nullopt when it was finished meanwhile.
absl::StatusOr<std::optional<EngineWork>> ReadWork(Tx& tx, const std::string& change_order_id);
// Removes the row unless a Wake bumped its generation since `w` was read.
absl::Status FinishWork(Tx& tx, const EngineWork& w);
// Makes the row due again after `delay` with `error` kept (and, with `count_attempt`, one
// more attempt counted, which the backoff grows with), unless a Wake bumped its generation
// since `w` was read (then it stays due now).
absl::Status RetryWork(Tx& tx, const EngineWork& w, absl::Duration delay, const std::string& error,
                       bool count_attempt);
// Seconds until the next row is due (0 when one is due now); nullopt when there is none.
absl::StatusOr<std::optional<double>> SecondsUntilDue(Tx& tx);
// The row of one ChangeOrder as the API shows it (an empty state when it has none).
absl::StatusOr<v1::EngineState> EngineStateOf(Tx& tx, const std::string& change_order_id);
// Rows waiting (due or backed off), for the metrics and `cubd` logs.
absl::StatusOr<int64_t> WorkBacklog(Tx& tx);

}  // namespace cub::store

#endif  // CUB_LIB_STORE_ENGINE_WORK_H_
