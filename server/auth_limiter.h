// Limits failed authentication per client address, so bearer tokens cannot be guessed at the
// speed of the network. Each address has a token bucket of `burst` failures refilled at
// `per_minute`; while an address's bucket is empty, every call from it is refused before its
// token is even looked at (a guess must not be verifiable then), with the time until the next
// try is allowed. Successful calls cost nothing and an address that is not blocked is never
// slowed down.
//
// Memory is bounded: at most `max_addresses` addresses are tracked; when the table is full,
// addresses whose bucket has refilled are forgotten, and if none has, new addresses share one
// overflow bucket (so many addresses at once are limited together, not let through).
// The state is in memory, per cubd process.
#ifndef CUB_SERVER_AUTH_LIMITER_H_
#define CUB_SERVER_AUTH_LIMITER_H_

#include <cstddef>
#include <mutex>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/time/time.h"

namespace cub::server {

struct AuthLimits {
  int burst = 20;          // failures in a row before an address is refused; 0 disables
  double per_minute = 30;  // failures allowed per minute after that
  size_t max_addresses = 10000;
};

class AuthFailureLimiter {
 public:
  explicit AuthFailureLimiter(AuthLimits limits) : limits_(limits) {}

  // Zero when `addr` may try to authenticate now; otherwise how long until it may.
  absl::Duration RetryAfter(const std::string& addr, absl::Time now);

  // Counts one failed authentication from `addr`. Returns true when this failure spent the
  // address's last allowance (so the caller logs the block once).
  bool RecordFailure(const std::string& addr, absl::Time now);

  size_t TrackedForTest() const;

 private:
  struct Bucket {
    double tokens;
    absl::Time updated;
  };
  // Brings `b` up to `now`; true if it is full again.
  bool Refill(Bucket& b, absl::Time now) const;
  Bucket& Find(const std::string& addr, absl::Time now);

  const AuthLimits limits_;
  mutable std::mutex mu_;
  absl::flat_hash_map<std::string, Bucket> buckets_;
  Bucket overflow_{0, absl::InfinitePast()};
};

}  // namespace cub::server

#endif  // CUB_SERVER_AUTH_LIMITER_H_
