// A bounded pool of PostgreSQL connections shared by all request threads.
//
// The pool holds at most `size` connections, opened lazily. Acquire() blocks until a
// connection is free or the deadline passes (DEADLINE_EXCEEDED / RESOURCE_EXHAUSTED), so the
// number of concurrent database sessions is bounded no matter how many calls arrive.
// A lease returns its connection on destruction; a broken connection is dropped and reopened
// on next use. Thread-safe.
#ifndef CUB_LIB_STORE_POOL_H_
#define CUB_LIB_STORE_POOL_H_

#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace cub::store {

class ConnectionPool;

// An open database connection; what it is, is lib/store's business (lib/store/pq.h).
class Connection;

// Exclusive use of one pooled connection until destroyed.
class Lease {
 public:
  Lease(Lease&& other) noexcept;
  Lease& operator=(Lease&&) = delete;
  ~Lease();
  Connection& conn() { return *conn_; }

 private:
  friend class ConnectionPool;
  Lease(ConnectionPool* pool, std::unique_ptr<Connection> conn);
  ConnectionPool* pool_;
  std::unique_ptr<Connection> conn_;
};

class ConnectionPool {
 public:
  ConnectionPool(std::string url, int size);
  ConnectionPool(const ConnectionPool&) = delete;
  ConnectionPool& operator=(const ConnectionPool&) = delete;
  ~ConnectionPool();

  // Waits up to `timeout` for a free connection.
  absl::StatusOr<Lease> Acquire(absl::Duration timeout = absl::Seconds(10));

  const std::string& url() const { return url_; }
  int size() const { return size_; }

 private:
  friend class Lease;
  void Release(std::unique_ptr<Connection> conn);

  const std::string url_;
  const int size_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<std::unique_ptr<Connection>> idle_;  // guarded by mu_
  int open_ = 0;                                   // leased + idle; guarded by mu_
};

}  // namespace cub::store

#endif  // CUB_LIB_STORE_POOL_H_
