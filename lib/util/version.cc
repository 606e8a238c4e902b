// See version.h. CUB_VERSION is defined for this file alone by CMakeLists.txt.
#include "lib/util/version.h"

#ifndef CUB_VERSION
#define CUB_VERSION "unknown"
#endif

namespace cub {

const char* CubVersion() { return CUB_VERSION; }

}  // namespace cub
