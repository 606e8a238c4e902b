// Random (version 4) UUIDs, made in the server so that a batch of rows and the rows that refer
// to them can be written in one set-based statement each, without reading generated keys back.
//
// Thread-safe; backed by OpenSSL's RAND_bytes.

#ifndef CUB_LIB_UTIL_UUID_H_
#define CUB_LIB_UTIL_UUID_H_

#include <string>

namespace cub {

// A new version 4 UUID in its 36-character text form.
std::string NewUuid();

}  // namespace cub

#endif  // CUB_LIB_UTIL_UUID_H_
