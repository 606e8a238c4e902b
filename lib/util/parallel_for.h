// Spreading a CPU-bound loop over the machine's cores, for the few places where one request
// does enough pure computation to be worth it (signing a whole Stage's Releases).
#ifndef CUB_LIB_UTIL_PARALLEL_FOR_H_
#define CUB_LIB_UTIL_PARALLEL_FOR_H_

#include <cstddef>
#include <functional>

namespace cub {

// Calls fn(i) once for every i in [0, n), on up to `max_threads` threads (the calling one
// included; 0 means the number of cores), each taking a contiguous share. Threads are started
// only when every one of them gets at least `min_per_thread` calls, so a small loop runs on the
// caller alone. Returns once every call has returned. fn must be safe to call concurrently for
// different i and must not throw.
void ParallelFor(size_t n, size_t min_per_thread, size_t max_threads,
                 const std::function<void(size_t)>& fn);

}  // namespace cub

#endif  // CUB_LIB_UTIL_PARALLEL_FOR_H_
