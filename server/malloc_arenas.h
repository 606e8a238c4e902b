// How many malloc arenas cubd's threads share.
#ifndef CUB_SERVER_MALLOC_ARENAS_H_
#define CUB_SERVER_MALLOC_ARENAS_H_

namespace cub::server {

// Caps glibc's malloc arenas at one per hardware thread (at least two) unless the operator set
// MALLOC_ARENA_MAX. glibc's default, eight per core, lets every thread that allocates (gRPC's
// pool, the signing workers) keep an arena of its own, and memory freed in one is not reused
// by another: a 10,000-Space promote peaked at 260 MB with the default and 175 MB with two
// arenas, no slower (docs/performance.md). Call before any thread starts; does nothing where
// the C library is not glibc, nor where cubd is linked with tcmalloc (CMakeLists.txt), whose
// mallopt accepts the call and ignores it.
void LimitMallocArenas();

}  // namespace cub::server

#endif  // CUB_SERVER_MALLOC_ARENAS_H_
