#include "server/auth_limiter.h"

#include <algorithm>

namespace cub::server {

bool AuthFailureLimiter::Refill(Bucket& b, absl::Time now) const {
  if (b.updated == absl::InfinitePast()) {
    b.tokens = limits_.burst;
  } else if (now > b.updated) {
    b.tokens = std::min<double>(
        limits_.burst, b.tokens + absl::ToDoubleMinutes(now - b.updated) * limits_.per_minute);
  }
  b.updated = std::max(b.updated, now);
  return b.tokens >= limits_.burst;
}

AuthFailureLimiter::Bucket& AuthFailureLimiter::Find(const std::string& addr, absl::Time now) {
  auto it = buckets_.find(addr);
  if (it != buckets_.end()) return it->second;
  if (buckets_.size() >= limits_.max_addresses) {
    // A full bucket says nothing a fresh one would not.
    absl::erase_if(buckets_, [&](auto& entry) { return Refill(entry.second, now); });
    if (buckets_.size() >= limits_.max_addresses) return overflow_;
  }
  return buckets_.emplace(addr, Bucket{0, absl::InfinitePast()}).first->second;
}

absl::Duration AuthFailureLimiter::RetryAfter(const std::string& addr, absl::Time now) {
  if (limits_.burst <= 0) return absl::ZeroDuration();
  std::lock_guard<std::mutex> l(mu_);
  auto it = buckets_.find(addr);
  Bucket* b = it != buckets_.end() ? &it->second : nullptr;
  if (b == nullptr && buckets_.size() >= limits_.max_addresses) b = &overflow_;
  if (b == nullptr) return absl::ZeroDuration();
  Refill(*b, now);
  if (b->tokens >= 1) return absl::ZeroDuration();
  if (limits_.per_minute <= 0) return absl::InfiniteDuration();
  return absl::Minutes((1 - b->tokens) / limits_.per_minute);
}

bool AuthFailureLimiter::RecordFailure(const std::string& addr, absl::Time now) {
  if (limits_.burst <= 0) return false;
  std::lock_guard<std::mutex> l(mu_);
  Bucket& b = Find(addr, now);
  Refill(b, now);
  if (b.tokens < 1) return false;  // already blocked
  b.tokens -= 1;
  return b.tokens < 1;
}

size_t AuthFailureLimiter::TrackedForTest() const {
  std::lock_guard<std::mutex> l(mu_);
  return buckets_.size();
}

}  // namespace cub::server
