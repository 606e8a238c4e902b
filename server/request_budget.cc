#include "server/request_budget.h"

#include "absl/strings/str_format.h"

namespace cub::server {

absl::Status RequestBudget::Acquire(int64_t request_bytes, Charge* out) {
  if (limits_.total <= 0 || request_bytes < limits_.threshold) return absl::OkStatus();
  const int64_t cost = request_bytes * limits_.factor;
  std::lock_guard<std::mutex> l(mu_);
  if (in_use_ + cost > limits_.total) {
    return absl::ResourceExhaustedError(absl::StrFormat(
        "cubd is busy: this %d-byte request needs %d bytes of the large-request budget, and "
        "%d large requests already hold %d of its %d bytes (cubd --max-inflight-request-bytes); "
        "retry later",
        request_bytes, cost, requests_, in_use_, limits_.total));
  }
  in_use_ += cost;
  ++requests_;
  *out = Charge(this, cost);
  return absl::OkStatus();
}

void RequestBudget::Release(int64_t bytes) {
  std::lock_guard<std::mutex> l(mu_);
  in_use_ -= bytes;
  --requests_;
}

int64_t RequestBudget::InUseForTest() const {
  std::lock_guard<std::mutex> l(mu_);
  return in_use_;
}

}  // namespace cub::server
