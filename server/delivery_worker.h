// cubd's delivery workers (lib/ops/delivery.h): threads that deliver the Releases a publish
// could not, or not yet: those left Pending (the publishing cubd died before delivering, or
// gave up waiting) and those Failed whose next attempt is due. Idle workers sleep until NOTIFY
// cub_delivery (sent at the commit of every recorded Release) or until the next Failed
// Release falls due, at most `sweep` apart. A Target is delivered to by one session at a time,
// whichever claims it (store::TargetClaim), so any number of workers and replicas may run.
//
// They run whether or not the promotion engine does (--no-engine): a recorded Release is a
// promise to deliver it. --delivery-workers 0 turns them off (another replica then delivers).
#ifndef CUB_SERVER_DELIVERY_WORKER_H_
#define CUB_SERVER_DELIVERY_WORKER_H_

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "lib/ops/delivery.h"
#include "lib/ops/releases.h"
#include "lib/store/engine_connection.h"
#include "lib/store/pool.h"

namespace cub::server {

struct DeliveryWorkerOptions {
  int workers = 1;
  // The longest an idle worker sleeps (a Release recorded while no notification reached it).
  absl::Duration sweep = absl::Seconds(30);
  ops::DeliveryOptions delivery;
};

class DeliveryWorkers {
 public:
  // `db` and `env` must outlive the workers.
  DeliveryWorkers(store::ConnectionPool& db, const ops::ReleaseEnv& env,
                  DeliveryWorkerOptions opts);
  ~DeliveryWorkers();  // Stop()

  void Start();
  // Lets each worker finish the pass it is making, then joins them.
  void Stop();

 private:
  void Work(int worker);
  // One sweep: a pass over every due Target; returns how long to sleep after.
  absl::Duration Sweep(int worker);

  store::ConnectionPool& db_;
  const ops::ReleaseEnv& env_;
  const DeliveryWorkerOptions opts_;
  std::atomic<bool> stop_{false};
  std::vector<std::thread> threads_;
};

}  // namespace cub::server

#endif  // CUB_SERVER_DELIVERY_WORKER_H_
