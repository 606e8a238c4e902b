// SHA-256 digests as lowercase hex, for content hashes (DataHash) and token storage.
//
// Thread-safe; no state. Backed by OpenSSL's EVP interface.

#ifndef CUB_LIB_UTIL_SHA256_H_
#define CUB_LIB_UTIL_SHA256_H_

#include <string>
#include <string_view>

namespace cub {

// Returns the SHA-256 digest of `data` as 64 lowercase hex characters.
std::string Sha256Hex(std::string_view data);

}  // namespace cub

#endif  // CUB_LIB_UTIL_SHA256_H_
