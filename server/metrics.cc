#include "server/metrics.h"

#include <algorithm>
#include <mutex>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "lib/store/pool_stats.h"

namespace cub::server {
namespace {

// A label value as the text format quotes it: backslash, double quote and newline escaped.
std::string Quote(const std::string& v) {
  std::string out = "\"";
  for (char c : v) {
    if (c == '\\' || c == '"') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out + "\"";
}

std::string CodeName(int code) {
  return absl::StatusCodeToString(static_cast<absl::StatusCode>(code));
}

std::string Num(double v) { return absl::StrFormat("%.6g", v); }

void Head(std::string& out, const char* name, const char* type, const char* help) {
  absl::StrAppend(&out, "# HELP ", name, " ", help, "\n# TYPE ", name, " ", type, "\n");
}

void Gauge(std::string& out, const char* name, const char* help, const std::string& value) {
  Head(out, name, "gauge", help);
  absl::StrAppend(&out, name, " ", value, "\n");
}

// The request pool's gauges and counters (lib/store/pool_stats.h).
void RenderPool(std::string& out, const store::ConnectionPool& pool) {
  const store::PoolStats s = store::ReadPoolStats(pool);
  Gauge(out, "cubd_db_pool_size", "Connections the request pool may open.", absl::StrCat(s.size));
  Gauge(out, "cubd_db_pool_open", "Connections of the request pool open now.",
        absl::StrCat(s.open));
  Gauge(out, "cubd_db_pool_in_use", "Connections of the request pool leased now.",
        absl::StrCat(s.in_use));
  Head(out, "cubd_db_pool_acquires_total", "counter", "Connections asked of the pool.");
  absl::StrAppend(&out, "cubd_db_pool_acquires_total ", s.acquires, "\n");
  Head(out, "cubd_db_pool_waits_total", "counter",
       "Requests for a connection that found none free and waited.");
  absl::StrAppend(&out, "cubd_db_pool_waits_total ", s.waits, "\n");
  Head(out, "cubd_db_pool_wait_timeouts_total", "counter",
       "Waits for a connection that gave up (the call got RESOURCE_EXHAUSTED).");
  absl::StrAppend(&out, "cubd_db_pool_wait_timeouts_total ", s.wait_timeouts, "\n");
  Head(out, "cubd_db_pool_wait_seconds_total", "counter",
       "Time spent waiting for a free connection.");
  absl::StrAppend(&out, "cubd_db_pool_wait_seconds_total ", Num(s.wait_seconds), "\n");
}

}  // namespace

Metrics::MethodSeries& Metrics::Series(const std::string& method) {
  {
    std::shared_lock<std::shared_mutex> read(mu_);
    if (auto it = methods_.find(method); it != methods_.end()) return *it->second;
  }
  std::unique_lock<std::shared_mutex> write(mu_);
  auto& slot = methods_[method];
  if (!slot) {
    slot = std::make_unique<MethodSeries>();
    if (method == "ChangeOrderService/Promote") slot->kind = Kind::kPromote;
    if (method == "ReleaseService/PublishRelease" || method == "ReleaseService/PublishReleases") {
      slot->kind = Kind::kPublish;
    }
  }
  return *slot;
}

void Metrics::RecordCall(const std::string& method, int code, absl::Duration duration) {
  if (code < 0 || code >= kCodes) code = static_cast<int>(absl::StatusCode::kUnknown);
  MethodSeries& m = Series(method);
  CodeSeries& c = m.codes[code];
  const double seconds = absl::ToDoubleSeconds(duration);
  c.count.fetch_add(1, std::memory_order_relaxed);
  c.sum_micros.fetch_add(static_cast<uint64_t>(absl::ToInt64Microseconds(duration)),
                         std::memory_order_relaxed);
  for (size_t i = 0; i < kBuckets.size(); ++i) {
    if (seconds <= kBuckets[i]) {
      c.buckets[i].fetch_add(1, std::memory_order_relaxed);
      break;
    }
  }
  if (m.kind == Kind::kPromote) api_promotions_[code].fetch_add(1, std::memory_order_relaxed);
  if (m.kind == Kind::kPublish) api_publishes_[code].fetch_add(1, std::memory_order_relaxed);
}

void Metrics::RecordEngineStep(int promotions, int publishes, bool failed) {
  if (promotions > 0) engine_promotions_.fetch_add(promotions, std::memory_order_relaxed);
  if (publishes > 0) engine_publishes_.fetch_add(publishes, std::memory_order_relaxed);
  if (failed) engine_failed_steps_.fetch_add(1, std::memory_order_relaxed);
}

void Metrics::SetDatabaseState(bool up, const store::OpsGauges* gauges) {
  database_up_ = up;
  if (gauges == nullptr) return;
  engine_rows_ = gauges->engine_rows;
  engine_due_ = gauges->engine_due;
  engine_lag_ = gauges->engine_lag_seconds;
  delivery_pending_ = gauges->delivery_pending;
  delivery_failed_ = gauges->delivery_failed;
  delivery_oldest_ = gauges->delivery_oldest_seconds;
  have_gauges_ = true;
}

void Metrics::SetDraining() { draining_ = true; }

std::string Metrics::Render(const store::ConnectionPool* pool) const {
  std::string out;
  out.reserve(16 << 10);
  RenderCalls(out);
  RenderWork(out);
  if (pool != nullptr) RenderPool(out, *pool);
  return out;
}

void Metrics::RenderCalls(std::string& out) const {
  // Calls: a snapshot of the method list under the reader lock, then the atomics.
  std::vector<std::pair<std::string, const MethodSeries*>> methods;
  {
    std::shared_lock<std::shared_mutex> read(mu_);
    for (const auto& [name, series] : methods_) methods.emplace_back(name, series.get());
  }
  Head(out, "cubd_rpc_requests_total", "counter", "RPCs finished, by method and gRPC code.");
  for (const auto& [name, m] : methods) {
    for (int code = 0; code < kCodes; ++code) {
      uint64_t n = m->codes[code].count.load(std::memory_order_relaxed);
      if (n == 0) continue;
      absl::StrAppend(&out, "cubd_rpc_requests_total{method=", Quote(name),
                      ",code=", Quote(CodeName(code)), "} ", n, "\n");
    }
  }
  Head(out, "cubd_rpc_duration_seconds", "histogram",
       "Duration of RPCs from arrival to answer, by method and gRPC code.");
  for (const auto& [name, m] : methods) {
    for (int code = 0; code < kCodes; ++code) {
      const CodeSeries& c = m->codes[code];
      const uint64_t n = c.count.load(std::memory_order_relaxed);
      if (n == 0) continue;
      const std::string labels =
          absl::StrCat("method=", Quote(name), ",code=", Quote(CodeName(code)));
      uint64_t cumulative = 0;
      for (size_t i = 0; i < kBuckets.size(); ++i) {
        cumulative += c.buckets[i].load(std::memory_order_relaxed);
        absl::StrAppend(&out, "cubd_rpc_duration_seconds_bucket{", labels, ",le=\"",
                        Num(kBuckets[i]), "\"} ", cumulative, "\n");
      }
      // A call counted between the loads above lands in +Inf at worst, never below a bucket.
      absl::StrAppend(&out, "cubd_rpc_duration_seconds_bucket{", labels, ",le=\"+Inf\"} ",
                      std::max(n, cumulative), "\n");
      absl::StrAppend(&out, "cubd_rpc_duration_seconds_sum{", labels, "} ",
                      Num(c.sum_micros.load(std::memory_order_relaxed) / 1e6), "\n");
      absl::StrAppend(&out, "cubd_rpc_duration_seconds_count{", labels, "} ",
                      std::max(n, cumulative), "\n");
    }
  }
}

void Metrics::RenderWork(std::string& out) const {
  const auto outcomes = [&](const char* name, const char* help,
                            const std::array<std::atomic<uint64_t>, kCodes>& api,
                            const std::vector<std::pair<const char*, uint64_t>>& engine) {
    Head(out, name, "counter", help);
    for (int code = 0; code < kCodes; ++code) {
      uint64_t n = api[code].load(std::memory_order_relaxed);
      if (n == 0 && code != 0) continue;
      absl::StrAppend(&out, name, "{source=\"api\",outcome=", Quote(CodeName(code)), "} ", n, "\n");
    }
    for (const auto& [outcome, n] : engine) {
      absl::StrAppend(&out, name, "{source=\"engine\",outcome=\"", outcome, "\"} ", n, "\n");
    }
  };
  const uint64_t failed_steps = engine_failed_steps_.load(std::memory_order_relaxed);
  outcomes("cubd_promotions_total", "ChangeOrder promotions, by source and outcome.",
           api_promotions_, {{"OK", engine_promotions_.load()}, {"failed", failed_steps}});
  outcomes("cubd_publishes_total", "Release publishes, by source and outcome.", api_publishes_,
           {{"OK", engine_publishes_.load()}, {"failed", failed_steps}});

  Gauge(out, "cubd_database_up", "1 when the last database probe succeeded.",
        database_up_ ? "1" : "0");
  Gauge(out, "cubd_draining", "1 once SIGTERM was received and cubd is draining.",
        draining_ ? "1" : "0");
  if (have_gauges_) {
    Gauge(out, "cubd_engine_queue_depth",
          "ChangeOrders on the promotion engine's work list (due or backed off).",
          absl::StrCat(engine_rows_.load()));
    Gauge(out, "cubd_engine_due", "ChangeOrders on the work list that are due now.",
          absl::StrCat(engine_due_.load()));
    Gauge(out, "cubd_engine_lag_seconds",
          "How long the longest-due ChangeOrder has waited for the engine.",
          Num(engine_lag_.load()));
    Head(out, "cubd_delivery_backlog", "gauge", "Releases not yet delivered, by state.");
    absl::StrAppend(&out, "cubd_delivery_backlog{state=\"Pending\"} ", delivery_pending_.load(),
                    "\ncubd_delivery_backlog{state=\"Failed\"} ", delivery_failed_.load(), "\n");
    Gauge(out, "cubd_delivery_oldest_undelivered_seconds",
          "Age of the oldest Release not yet delivered (0: none).", Num(delivery_oldest_.load()));
  }
}

}  // namespace cub::server
