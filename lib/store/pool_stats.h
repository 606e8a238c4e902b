// What a ConnectionPool (lib/store/pool.h) is doing, for cubd's /metrics. Kept beside the pool
// rather than in it: each pool's counters are atomics registered under the pool's address
// when it is made, so counting costs an Acquire() one shared-lock lookup and a few increments.
#ifndef CUB_LIB_STORE_POOL_STATS_H_
#define CUB_LIB_STORE_POOL_STATS_H_

#include <cstdint>

#include "lib/store/pool.h"

namespace cub::store {

struct PoolStats {
  int size = 0;                // the most connections the pool opens
  int64_t open = 0;            // connections open now (leased + idle)
  int64_t in_use = 0;          // leased now
  uint64_t acquires = 0;       // Acquire() calls
  uint64_t waits = 0;          // of them, those that found no connection free and waited
  uint64_t wait_timeouts = 0;  // of those, the ones that gave up (RESOURCE_EXHAUSTED)
  double wait_seconds = 0;     // total time spent waiting
};

// A snapshot of `pool`'s counters (each read atomically, not all at one instant).
PoolStats ReadPoolStats(const ConnectionPool& pool);

}  // namespace cub::store

#endif  // CUB_LIB_STORE_POOL_STATS_H_
