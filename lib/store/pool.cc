#include "lib/store/pool.h"

#include <chrono>

#include "absl/strings/str_cat.h"
#include "lib/store/errors.h"
#include "lib/store/pq.h"

namespace cub::store {

Lease::Lease(ConnectionPool* pool, std::unique_ptr<Connection> conn)
    : pool_(pool), conn_(std::move(conn)) {}

Lease::Lease(Lease&& other) noexcept : pool_(other.pool_), conn_(std::move(other.conn_)) {
  other.pool_ = nullptr;
}

Lease::~Lease() {
  if (pool_ != nullptr) pool_->Release(std::move(conn_));
}

ConnectionPool::ConnectionPool(std::string url, int size) : url_(std::move(url)), size_(size) {}

ConnectionPool::~ConnectionPool() = default;

absl::StatusOr<Lease> ConnectionPool::Acquire(absl::Duration timeout) {
  std::unique_lock<std::mutex> lock(mu_);
  auto deadline = std::chrono::steady_clock::now() + absl::ToChronoNanoseconds(timeout);
  while (idle_.empty() && open_ >= size_) {
    if (cv_.wait_until(lock, deadline) == std::cv_status::timeout && idle_.empty() &&
        open_ >= size_) {
      return absl::ResourceExhaustedError(
          absl::StrCat("all ", size_, " database connections are busy"));
    }
  }
  if (!idle_.empty()) {
    auto conn = std::move(idle_.back());
    idle_.pop_back();
    return Lease(this, std::move(conn));
  }
  ++open_;
  lock.unlock();
  try {
    auto conn = std::make_unique<Connection>(url_);
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
  std::lock_guard<std::mutex> lock(mu_);
  if (conn && conn->pq.is_open()) {
    idle_.push_back(std::move(conn));
  } else {
    --open_;
  }
  cv_.notify_one();
}

}  // namespace cub::store
