// cubd's metrics, rendered at /metrics in Prometheus' text exposition format (version 0.0.4).
//
// A fixed, small set, not a general registry: every series is named here, so what /metrics
// shows is this file. Recording is lock-cheap: a call takes a shared (reader) lock to find its
// method's counters, which are atomics; the exclusive lock is taken once per method, the first
// time it is called. Gauges of the database's work lists are read by the health probe
// (server/health.h) every few seconds and stored here, so a scrape never queries PostgreSQL.
//
//   cubd_rpc_requests_total{method,code}            counter: calls finished
//   cubd_rpc_duration_seconds{method,code}          histogram: their duration
//   cubd_promotions_total{source,outcome}           counter: ChangeOrder promotions
//   cubd_publishes_total{source,outcome}            counter: Release publishes
//   cubd_engine_queue_depth, cubd_engine_due        gauges: the engine's work list
//   cubd_engine_lag_seconds                         gauge: how long the longest-due row waits
//   cubd_delivery_backlog{state}                    gauge: Releases Pending or Failed
//   cubd_delivery_oldest_undelivered_seconds        gauge
//   cubd_db_pool_{size,open,in_use}                 gauges: the request pool
//   cubd_db_pool_acquires_total, _waits_total, _wait_timeouts_total, _wait_seconds_total
//   cubd_database_up, cubd_draining                 gauges (0/1) of the readiness state
//
// source is "api" (an RPC: ChangeOrderService/Promote, ReleaseService/PublishRelease(s); the
// outcome is the call's code) or "engine" (the promotion engine: outcome "OK" per promotion
// or publish it made, "failed" per step that failed and will be retried).
#ifndef CUB_SERVER_METRICS_H_
#define CUB_SERVER_METRICS_H_

#include <array>
#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <shared_mutex>
#include <string>

#include "absl/time/time.h"
#include "lib/store/ops_gauges.h"
#include "lib/store/pool.h"

namespace cub::server {

class Metrics {
 public:
  // Upper bounds of the latency buckets, in seconds (+Inf is implicit).
  static constexpr std::array<double, 12> kBuckets = {0.001, 0.0025, 0.005, 0.01, 0.025, 0.05,
                                                      0.1,   0.25,   0.5,   1,    2.5,   10};
  static constexpr int kCodes = 17;  // the canonical gRPC codes 0..16

  Metrics() = default;
  Metrics(const Metrics&) = delete;
  Metrics& operator=(const Metrics&) = delete;

  // One finished RPC. `method` is "Service/Method" as logged; `code` a grpc::StatusCode.
  void RecordCall(const std::string& method, int code, absl::Duration duration);
  // What one engine step did (counts may be 0); `failed` when the step failed.
  void RecordEngineStep(int promotions, int publishes, bool failed);
  // The latest probe's readings; `gauges` null when the database could not be read.
  void SetDatabaseState(bool up, const store::OpsGauges* gauges);
  void SetDraining();

  // The exposition text; `pool` is the request pool, read now.
  std::string Render(const store::ConnectionPool* pool) const;

 private:
  enum class Kind { kOther, kPromote, kPublish };
  struct CodeSeries {
    std::atomic<uint64_t> count{0};
    std::atomic<uint64_t> sum_micros{0};
    std::array<std::atomic<uint64_t>, kBuckets.size()> buckets{};  // non-cumulative
  };
  struct MethodSeries {
    Kind kind = Kind::kOther;
    std::array<CodeSeries, kCodes> codes;
  };
  MethodSeries& Series(const std::string& method);
  void RenderCalls(std::string& out) const;  // requests and durations
  void RenderWork(std::string& out) const;   // promotions, publishes, database gauges

  mutable std::shared_mutex mu_;
  std::map<std::string, std::unique_ptr<MethodSeries>> methods_;  // guarded by mu_
  // [code] of API calls; the engine's OK and failed.
  std::array<std::atomic<uint64_t>, kCodes> api_promotions_{}, api_publishes_{};
  std::atomic<uint64_t> engine_promotions_{0}, engine_publishes_{0}, engine_failed_steps_{0};
  std::atomic<bool> database_up_{false}, draining_{false}, have_gauges_{false};
  std::atomic<int64_t> engine_rows_{0}, engine_due_{0}, delivery_pending_{0}, delivery_failed_{0};
  std::atomic<double> engine_lag_{0}, delivery_oldest_{0};
};

}  // namespace cub::server

#endif  // CUB_SERVER_METRICS_H_
