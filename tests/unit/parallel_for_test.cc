// ParallelFor: every index is visited exactly once, whatever the split, and small loops stay on
// the calling thread.
#include "lib/util/parallel_for.h"

#include <atomic>
#include <catch2/catch.hpp>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

namespace cub {
namespace {

TEST_CASE("ParallelFor visits every index once") {
  for (size_t n : {0, 1, 7, 63, 64, 65, 128, 1000, 1001}) {
    for (size_t threads : {1, 2, 3, 8}) {
      std::vector<std::atomic<int>> seen(n);
      ParallelFor(n, /*min_per_thread=*/4, threads, [&](size_t i) { seen[i].fetch_add(1); });
      for (size_t i = 0; i < n; ++i) {
        INFO("n=" << n << " threads=" << threads << " i=" << i);
        REQUIRE(seen[i].load() == 1);
      }
    }
  }
}

TEST_CASE("ParallelFor runs a small loop on the caller only") {
  std::mutex mu;
  std::set<std::thread::id> ids;
  ParallelFor(10, /*min_per_thread=*/64, /*max_threads=*/4, [&](size_t) {
    std::lock_guard<std::mutex> l(mu);
    ids.insert(std::this_thread::get_id());
  });
  REQUIRE(ids == std::set<std::thread::id>{std::this_thread::get_id()});
}

TEST_CASE("ParallelFor uses the threads it is given for a large loop") {
  std::mutex mu;
  std::set<std::thread::id> ids;
  ParallelFor(400, /*min_per_thread=*/100, /*max_threads=*/4, [&](size_t) {
    std::lock_guard<std::mutex> l(mu);
    ids.insert(std::this_thread::get_id());
  });
  REQUIRE(ids.size() == 4);
  REQUIRE(ids.count(std::this_thread::get_id()) == 1);
}

}  // namespace
}  // namespace cub
