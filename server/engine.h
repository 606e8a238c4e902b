// cubd's promotion engine (docs/design.md, "The promotion engine"): worker threads that take
// the work rows that are due, one ChangeOrder at a time under its advisory lock, and run
// ops::RunEngineStep for it. Idle workers sleep until NOTIFY cub_engine (sent at the commit of
// whatever may open a gate) or until the next row is due (a backoff, or a time gate's recheck),
// at most `sweep` apart. Any number of replicas may run engines on one database.
#ifndef CUB_SERVER_ENGINE_H_
#define CUB_SERVER_ENGINE_H_

#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "lib/ops/engine_step.h"
#include "lib/store/engine_connection.h"
#include "lib/store/engine_work.h"

namespace cub::server {

class Metrics;  // server/metrics.h

struct EngineOptions {
  int workers = 2;
  // The longest an idle worker sleeps; also how long a ChangeOrder waiting on a time gate
  // waits before it is evaluated again.
  absl::Duration sweep = absl::Seconds(30);
  absl::Duration first_backoff = absl::Seconds(1);
  absl::Duration max_backoff = absl::Minutes(5);
  // Where steps' promotions and publishes are counted (server/metrics.h); null: nowhere.
  Metrics* metrics = nullptr;
};

class Engine {
 public:
  // `env.db` must outlive the engine; `db_url` is where workers open their own connections.
  Engine(std::string db_url, ops::EngineEnv env, EngineOptions opts);
  ~Engine();  // Stop()

  // Finds the user `automatic` and starts the workers.
  absl::Status Start();
  // Lets each worker finish the step it is taking, then joins them.
  void Stop();

 private:
  void Work(int worker);
  // Takes the due rows this worker can lock; returns once none is left or on stop, with
  // `contended` set when due rows were held by someone else.
  absl::Status TakeDue(store::EngineConnection& conn, bool* contended);
  absl::Status TakeOne(store::EngineConnection& conn, const store::EngineWork& due);
  absl::Status Finish(const store::EngineWork& w, const ops::StepResult& r);
  // When to look again at a step that waits on time: just after its recheck_at (within the
  // sweep when a gate reads `now`), or a sweep later when no moment is known.
  absl::Duration RecheckDelay(const ops::StepResult& r) const;
  absl::Duration SleepFor();

  const std::string db_url_;
  ops::EngineEnv env_;
  const EngineOptions opts_;
  std::atomic<bool> stop_{false};
  std::vector<std::thread> threads_;
};

}  // namespace cub::server

#endif  // CUB_SERVER_ENGINE_H_
