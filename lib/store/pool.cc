#include "lib/store/pool.h"

#include <atomic>
#include <chrono>
#include <shared_mutex>
#include <unordered_map>

#include "absl/strings/str_cat.h"
#include "lib/store/errors.h"
#include "lib/store/pool_stats.h"
#include "lib/store/pq.h"

namespace cub::store {
namespace {

// Each pool's counters (lib/store/pool_stats.h), registered by its address for its lifetime.
struct Counters {
  std::atomic<int64_t> open{0}, in_use{0};
  std::atomic<uint64_t> acquires{0}, waits{0}, wait_timeouts{0}, wait_micros{0};
};

std::shared_mutex& RegistryMu() {
  static std::shared_mutex mu;
  return mu;
}
std::unordered_map<const ConnectionPool*, std::unique_ptr<Counters>>& Registry() {
  static auto* r = new std::unordered_map<const ConnectionPool*, std::unique_ptr<Counters>>();
  return *r;
}

// The counters of `pool`; they live as long as the pool.
Counters& CountersOf(const ConnectionPool* pool) {
  std::shared_lock<std::shared_mutex> read(RegistryMu());
  return *Registry().at(pool);
}

}  // namespace

Lease::Lease(ConnectionPool* pool, std::unique_ptr<Connection> conn)
    : pool_(pool), conn_(std::move(conn)) {}

Lease::Lease(Lease&& other) noexcept : pool_(other.pool_), conn_(std::move(other.conn_)) {
  other.pool_ = nullptr;
}

Lease::~Lease() {
  if (pool_ != nullptr) pool_->Release(std::move(conn_));
}

ConnectionPool::ConnectionPool(std::string url, int size) : url_(std::move(url)), size_(size) {
  std::unique_lock<std::shared_mutex> write(RegistryMu());
  Registry()[this] = std::make_unique<Counters>();
}

ConnectionPool::~ConnectionPool() {
  std::unique_lock<std::shared_mutex> write(RegistryMu());
  Registry().erase(this);
}

PoolStats ReadPoolStats(const ConnectionPool& pool) {
  Counters& c = CountersOf(&pool);
  PoolStats s;
  s.size = pool.size();
  s.open = c.open.load();
  s.in_use = c.in_use.load();
  s.acquires = c.acquires.load();
  s.waits = c.waits.load();
  s.wait_timeouts = c.wait_timeouts.load();
  s.wait_seconds = static_cast<double>(c.wait_micros.load()) / 1e6;
  return s;
}

absl::StatusOr<Lease> ConnectionPool::Acquire(absl::Duration timeout) {
  Counters& counters = CountersOf(this);
  counters.acquires.fetch_add(1, std::memory_order_relaxed);
  std::unique_lock<std::mutex> lock(mu_);
  if (idle_.empty() && open_ >= size_) {
    counters.waits.fetch_add(1, std::memory_order_relaxed);
    const auto begin = std::chrono::steady_clock::now();
    const auto deadline = begin + absl::ToChronoNanoseconds(timeout);
    const auto waited = [&] {
      counters.wait_micros.fetch_add(std::chrono::duration_cast<std::chrono::microseconds>(
                                         std::chrono::steady_clock::now() - begin)
                                         .count(),
                                     std::memory_order_relaxed);
    };
    while (idle_.empty() && open_ >= size_) {
      if (cv_.wait_until(lock, deadline) == std::cv_status::timeout && idle_.empty() &&
          open_ >= size_) {
        waited();
        counters.wait_timeouts.fetch_add(1, std::memory_order_relaxed);
        return absl::ResourceExhaustedError(
            absl::StrCat("all ", size_, " database connections are busy"));
      }
    }
    waited();
  }
  if (!idle_.empty()) {
    auto conn = std::move(idle_.back());
    idle_.pop_back();
    counters.in_use.fetch_add(1, std::memory_order_relaxed);
    return Lease(this, std::move(conn));
  }
  ++open_;
  lock.unlock();
  try {
    auto conn = std::make_unique<Connection>(url_);
    counters.open.fetch_add(1, std::memory_order_relaxed);
    counters.in_use.fetch_add(1, std::memory_order_relaxed);
    return Lease(this, std::move(conn));
  } catch (const std::exception& e) {
    std::lock_guard<std::mutex> relock(mu_);
    --open_;
    cv_.notify_one();
    absl::Status s = StatusFromException(e);
    return absl::UnavailableError(absl::StrCat("cannot connect to the database: ", s.message()));
  }
}

void ConnectionPool::Release(std::unique_ptr<Connection> conn) {
  Counters& counters = CountersOf(this);
  std::lock_guard<std::mutex> lock(mu_);
  counters.in_use.fetch_sub(1, std::memory_order_relaxed);
  if (conn && conn->pq.is_open() && !conn->discard) {
    idle_.push_back(std::move(conn));
  } else {
    --open_;
    counters.open.fetch_sub(1, std::memory_order_relaxed);
  }
  cv_.notify_one();
}

}  // namespace cub::store
