#include "lib/util/parallel_for.h"

#include <algorithm>
#include <thread>
#include <vector>

namespace cub {

void ParallelFor(size_t n, size_t min_per_thread, size_t max_threads,
                 const std::function<void(size_t)>& fn) {
  size_t threads = max_threads != 0 ? max_threads : std::thread::hardware_concurrency();
  if (min_per_thread == 0) min_per_thread = 1;
  threads = std::max<size_t>(1, std::min(threads, n / min_per_thread));
  const size_t share = (n + threads - 1) / threads;
  auto run = [&](size_t begin) {
    const size_t end = std::min(n, begin + share);
    for (size_t i = begin; i < end; ++i) fn(i);
  };
  std::vector<std::thread> helpers;
  helpers.reserve(threads - 1);
  for (size_t t = 1; t < threads; ++t) helpers.emplace_back(run, t * share);
  run(0);  // the caller takes the first share
  for (auto& h : helpers) h.join();
}

}  // namespace cub
