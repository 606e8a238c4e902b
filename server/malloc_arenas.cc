#include "server/malloc_arenas.h"

#include <algorithm>
#include <cstdlib>
#include <thread>

#ifdef __GLIBC__
#include <malloc.h>
#endif

namespace cub::server {

void LimitMallocArenas() {
#ifdef __GLIBC__
  if (std::getenv("MALLOC_ARENA_MAX") != nullptr) return;  // the operator's choice stands
  const int threads = static_cast<int>(std::thread::hardware_concurrency());
  mallopt(M_ARENA_MAX, std::max(2, threads));
#endif
}

}  // namespace cub::server
