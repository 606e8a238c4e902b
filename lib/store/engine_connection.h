// A database connection of the engine's own, outside the pool: it listens for wake-ups and
// holds the advisory locks that say which ChangeOrders this process is working on. Closing it
// (or the process dying) releases every lock at once, so another replica can take the work.
// Not thread-safe: one per engine worker.
#ifndef CUB_LIB_STORE_ENGINE_CONNECTION_H_
#define CUB_LIB_STORE_ENGINE_CONNECTION_H_

#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace cub::store {

class EngineConnection {
 public:
  // Connects and LISTENs on `channel` (empty: listens on nothing).
  static absl::StatusOr<std::unique_ptr<EngineConnection>> Open(const std::string& url,
                                                                const std::string& channel);
  ~EngineConnection();

  // Waits up to `timeout` for a notification; true when one (or more) arrived. An error means
  // the connection is lost: open a new one.
  absl::StatusOr<bool> Wait(absl::Duration timeout);
  // Takes the advisory lock standing for `change_order_id` without waiting; false when another
  // session holds it.
  absl::StatusOr<bool> TryLock(const std::string& change_order_id);
  absl::Status Unlock(const std::string& change_order_id);
  // Whether the session (and so every lock it holds) is still there: one round trip.
  bool Alive();

 private:
  struct Impl;
  explicit EngineConnection(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace cub::store

#endif  // CUB_LIB_STORE_ENGINE_CONNECTION_H_
