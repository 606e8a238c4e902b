// Whether this cubd should be sent traffic: its readiness, as `/readyz` and the gRPC health
// service (grpc.health.v1.Health, for "" and for each service by name) report it.
//
// Ready means: not draining (SetDraining, called on SIGTERM) and the database answered the last
// probe. A thread probes PostgreSQL every `interval` on a connection of its own (not one of the
// request pool, so a busy pool does not read as a database that is down), reading the work-list
// gauges of server/metrics.h with the same query; a probe that has not answered for `stale`
// (a hung connection) counts as down for /readyz (the gRPC health service changes when a probe
// ends; connecting gives up after 3 s, libpq's connect_timeout). Liveness (`/healthz`) is not this:
// a cubd whose database is down is alive and becomes ready again by itself.
#ifndef CUB_SERVER_HEALTH_H_
#define CUB_SERVER_HEALTH_H_

#include <grpcpp/health_check_service_interface.h>
#include <grpcpp/server_builder.h>

#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/time/time.h"
#include "lib/store/pool.h"
#include "server/http_server.h"
#include "server/metrics.h"

namespace cub::server {

struct HealthOptions {
  absl::Duration interval = absl::Seconds(2);
  absl::Duration stale = absl::Seconds(6);
};

class Health {
 public:
  // `metrics` (may be null) gets the probe's readings; it must outlive this.
  Health(std::string db_url, Metrics* metrics, HealthOptions options = {});
  Health(const Health&) = delete;
  Health& operator=(const Health&) = delete;
  ~Health();  // Stop()

  // Probes once, then starts the probe thread. `grpc_health` (may be null) is updated with
  // every change, for "" and each of `services`.
  void Start(grpc::HealthCheckServiceInterface* grpc_health, std::vector<std::string> services);
  // From now on not ready, whatever the database says. Idempotent.
  void SetDraining();
  // Joins the probe thread.
  void Stop();

  // Empty when ready; otherwise why not, for /readyz ("draining after SIGTERM", "database
  // unreachable: ...").
  std::string NotReadyReason() const;

 private:
  void Probe();
  void Publish();  // to the gRPC health service, when readiness changed

  store::ConnectionPool probe_pool_;  // one connection of its own
  Metrics* const metrics_;
  const HealthOptions options_;
  std::atomic<bool> draining_{false};
  std::atomic<int64_t> last_ok_nanos_{0};  // steady clock; 0: never
  mutable std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;              // guarded by mu_
  std::string last_error_;         // guarded by mu_
  std::optional<bool> published_;  // guarded by mu_: what the gRPC service says now
  grpc::HealthCheckServiceInterface* grpc_health_ = nullptr;
  std::vector<std::string> services_;
  std::thread thread_;
};

// Collects the names of the services a grpc::ServerBuilder registers (all of them, including
// health and reflection), for the gRPC health service: builder.SetOption(ServiceNamesOption(&v)).
// `*out` is filled during BuildAndStart() and must outlive it.
std::unique_ptr<grpc::ServerBuilderOption> ServiceNamesOption(std::vector<std::string>* out);

// /readyz (200 "ready" or 503 with the reason) and /metrics (the exposition text of `metrics`
// and `pool`), GET or HEAD; nullopt for any other path. Neither needs a token: they say how
// many calls of which method, never whose or what about.
std::optional<HttpResponse> ServeOpsEndpoint(const HttpRequest& req, const Health& health,
                                             const Metrics& metrics,
                                             const store::ConnectionPool* pool);

}  // namespace cub::server

#endif  // CUB_SERVER_HEALTH_H_
