// The bound on open watch streams and the stop signal (server/stream_limiter.h).
#include "server/stream_limiter.h"

#include <catch2/catch.hpp>
#include <optional>
#include <vector>

namespace cub::server {
namespace {

TEST_CASE("StreamLimiter refuses streams over its bound until one ends", "[watch]") {
  StreamLimiter limiter(2);
  std::vector<StreamLimiter::Slot> held;
  for (int i = 0; i < 2; ++i) {
    auto slot = limiter.Acquire();
    REQUIRE(slot.ok());
    held.push_back(*std::move(slot));
  }
  REQUIRE(limiter.open_streams() == 2);
  auto refused = limiter.Acquire();
  REQUIRE(absl::IsResourceExhausted(refused.status()));
  REQUIRE(refused.status().message() ==
          "too many watch streams open (cubd --max-watch-streams 2); retry later or end another "
          "watch");
  held.pop_back();
  REQUIRE(limiter.open_streams() == 1);
  auto again = limiter.Acquire();
  REQUIRE(again.ok());
  REQUIRE(limiter.open_streams() == 2);
}

TEST_CASE("StreamLimiter::Stop tells streams to end and refuses new ones", "[watch]") {
  StreamLimiter limiter(64);
  auto slot = limiter.Acquire();
  REQUIRE(slot.ok());
  REQUIRE(!limiter.stopping());
  limiter.Stop();
  REQUIRE(limiter.stopping());
  REQUIRE(absl::IsUnavailable(limiter.Acquire().status()));
}

TEST_CASE("StreamLimiter allows at least one stream", "[watch]") {
  StreamLimiter limiter(0);
  REQUIRE(limiter.max_streams() == 1);
  REQUIRE(limiter.Acquire().ok());
}

}  // namespace
}  // namespace cub::server
