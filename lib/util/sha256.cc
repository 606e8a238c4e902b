#include "lib/util/sha256.h"

#include <openssl/evp.h>

#include <cstdlib>

namespace cub {

std::string Sha256Hex(std::string_view data) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  // EVP_Digest fails only on allocation failure or a broken OpenSSL install; there is no
  // meaningful hash to return then.
  // Fetched once: with OpenSSL 3, EVP_sha256() in every call looks the algorithm up again under
  // the library's locks, which shows when a publish hashes ten thousand files. An EVP_MD may be
  // used by any number of threads at once.
  static EVP_MD* const kSha256 = EVP_MD_fetch(nullptr, "SHA256", nullptr);
  if (kSha256 == nullptr ||
      EVP_Digest(data.data(), data.size(), digest, &len, kSha256, nullptr) != 1) {
    std::abort();
  }
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out(2 * len, '\0');
  for (unsigned int i = 0; i < len; ++i) {
    out[2 * i] = kHex[digest[i] >> 4];
    out[2 * i + 1] = kHex[digest[i] & 0xf];
  }
  return out;
}

}  // namespace cub
