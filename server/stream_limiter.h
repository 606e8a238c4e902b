// The long-lived server-streaming calls of one cubd (`cub changeorder watch`): how many may be
// open at once, and the signal that ends them when cubd shuts down. Each open stream holds a
// gRPC thread and a database connection of its own, so their number is bounded (a stream over
// the bound is refused at once with RESOURCE_EXHAUSTED, not queued), and the drain on SIGTERM
// must not wait for streams that would otherwise run until their ChangeOrder completes.
#ifndef CUB_SERVER_STREAM_LIMITER_H_
#define CUB_SERVER_STREAM_LIMITER_H_

#include <atomic>
#include <mutex>

#include "absl/status/statusor.h"

namespace cub::server {

class StreamLimiter {
 public:
  // `max_streams` open at once; at least 1.
  explicit StreamLimiter(int max_streams) : max_(max_streams < 1 ? 1 : max_streams) {}
  StreamLimiter(const StreamLimiter&) = delete;
  StreamLimiter& operator=(const StreamLimiter&) = delete;

  // Holds one stream's place until destroyed.
  class Slot {
   public:
    Slot(Slot&& o) noexcept : limiter_(o.limiter_) { o.limiter_ = nullptr; }
    Slot& operator=(Slot&&) = delete;
    ~Slot();

   private:
    friend class StreamLimiter;
    explicit Slot(StreamLimiter* l) : limiter_(l) {}
    StreamLimiter* limiter_;
  };

  // A place for one more stream: RESOURCE_EXHAUSTED naming the bound when all are taken,
  // UNAVAILABLE once Stop() was called.
  absl::StatusOr<Slot> Acquire();

  // Tells every open stream to end (they poll stopping()) and refuses new ones. Called by
  // Serve before it drains the gRPC server.
  void Stop() { stopping_.store(true); }
  bool stopping() const { return stopping_.load(); }

  int max_streams() const { return max_; }
  int open_streams() const;

 private:
  void Release();

  const int max_;
  std::atomic<bool> stopping_{false};
  mutable std::mutex mu_;
  int open_ = 0;  // guarded by mu_
};

}  // namespace cub::server

#endif  // CUB_SERVER_STREAM_LIMITER_H_
