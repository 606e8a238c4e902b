// The version of this build of cub and cubd (CMake's PROJECT_VERSION), for `cub version` and
// ServerService/GetVersion.
#ifndef CUB_LIB_UTIL_VERSION_H_
#define CUB_LIB_UTIL_VERSION_H_

namespace cub {

// "0.1.0"; never empty.
const char* CubVersion();

}  // namespace cub

#endif  // CUB_LIB_UTIL_VERSION_H_
