// A budget of memory for large requests in flight. Handling a request costs several times its
// size (the parsed message, the stored copy, hashes, the response, the JSON of the REST
// mirror), so requests of at least `threshold` bytes are each charged `factor` times their
// size against `total`; one that does not fit is refused at once (RESOURCE_EXHAUSTED) rather
// than queued, so a burst of large writes cannot take cubd's memory and small requests are
// never held up. A request that alone exceeds the whole budget is refused too.
#ifndef CUB_SERVER_REQUEST_BUDGET_H_
#define CUB_SERVER_REQUEST_BUDGET_H_

#include <cstddef>
#include <cstdint>
#include <mutex>

#include "absl/status/status.h"

namespace cub::server {

struct RequestBudgetLimits {
  int64_t total = 256 << 20;    // bytes charged at once; 0 disables the budget
  int64_t threshold = 1 << 20;  // requests smaller than this are not charged
  int64_t factor = 6;           // charge per request byte
};

class RequestBudget {
 public:
  explicit RequestBudget(RequestBudgetLimits limits) : limits_(limits) {}

  // Holds the charge for one request until destroyed.
  class Charge {
   public:
    Charge() = default;
    Charge(Charge&& o) noexcept : budget_(o.budget_), bytes_(o.bytes_) { o.budget_ = nullptr; }
    Charge& operator=(Charge&& o) noexcept {
      if (this != &o) {
        if (budget_ != nullptr) budget_->Release(bytes_);
        budget_ = o.budget_;
        bytes_ = o.bytes_;
        o.budget_ = nullptr;
      }
      return *this;
    }
    ~Charge() {
      if (budget_ != nullptr) budget_->Release(bytes_);
    }

   private:
    friend class RequestBudget;
    Charge(RequestBudget* b, int64_t bytes) : budget_(b), bytes_(bytes) {}
    RequestBudget* budget_ = nullptr;
    int64_t bytes_ = 0;
  };

  // Charges a request of `request_bytes` (nothing below the threshold), or refuses it naming
  // its size and what is in use.
  absl::Status Acquire(int64_t request_bytes, Charge* out);

  int64_t InUseForTest() const;

 private:
  void Release(int64_t bytes);

  const RequestBudgetLimits limits_;
  mutable std::mutex mu_;
  int64_t in_use_ = 0;
  int requests_ = 0;
};

}  // namespace cub::server

#endif  // CUB_SERVER_REQUEST_BUDGET_H_
