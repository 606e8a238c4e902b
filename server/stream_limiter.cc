#include "server/stream_limiter.h"

#include "absl/strings/str_cat.h"

namespace cub::server {

StreamLimiter::Slot::~Slot() {
  if (limiter_ != nullptr) limiter_->Release();
}

absl::StatusOr<StreamLimiter::Slot> StreamLimiter::Acquire() {
  if (stopping()) return absl::UnavailableError("cubd is shutting down; watch again later");
  std::lock_guard<std::mutex> l(mu_);
  if (open_ >= max_) {
    return absl::ResourceExhaustedError(
        absl::StrCat("too many watch streams open (cubd --max-watch-streams ", max_,
                     "); retry later or end another watch"));
  }
  ++open_;
  return Slot(this);
}

int StreamLimiter::open_streams() const {
  std::lock_guard<std::mutex> l(mu_);
  return open_;
}

void StreamLimiter::Release() {
  std::lock_guard<std::mutex> l(mu_);
  --open_;
}

}  // namespace cub::server
