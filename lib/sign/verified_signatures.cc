#include "lib/sign/verified_signatures.h"

#include <openssl/evp.h>

#include <array>
#include <cstdint>
#include <mutex>
#include <optional>
#include <set>

namespace cub::sign {
namespace {

using Digest = std::array<unsigned char, 32>;

// SHA-256 of the three inputs, each preceded by its length; nullopt if OpenSSL fails (then the
// caller verifies in full, or remembers nothing).
std::optional<Digest> DigestOf(std::string_view key, std::string_view message,
                               std::string_view signature) {
  EVP_MD_CTX* ctx = EVP_MD_CTX_new();
  if (ctx == nullptr) return std::nullopt;
  bool ok = EVP_DigestInit_ex(ctx, EVP_sha256(), nullptr) == 1;
  for (std::string_view part : {key, signature, message}) {
    const uint64_t len = part.size();
    ok = ok && EVP_DigestUpdate(ctx, &len, sizeof len) == 1;
    ok = ok && (part.empty() || EVP_DigestUpdate(ctx, part.data(), part.size()) == 1);
  }
  Digest d;
  unsigned int n = 0;
  ok = ok && EVP_DigestFinal_ex(ctx, d.data(), &n) == 1 && n == d.size();
  EVP_MD_CTX_free(ctx);
  if (!ok) return std::nullopt;
  return d;
}

struct Memo {
  std::mutex mu;
  std::set<Digest> known;
};

Memo& TheMemo() {
  static Memo* const memo = new Memo;
  return *memo;
}

}  // namespace

void RememberVerified(std::string_view raw_public_key, std::string_view message,
                      std::string_view signature) {
  const std::optional<Digest> d = DigestOf(raw_public_key, message, signature);
  if (!d) return;
  Memo& m = TheMemo();
  std::lock_guard<std::mutex> l(m.mu);
  if (m.known.size() >= kMaxRemembered) m.known.clear();
  m.known.insert(*d);
}

bool KnownVerified(std::string_view raw_public_key, std::string_view message,
                   std::string_view signature) {
  const std::optional<Digest> d = DigestOf(raw_public_key, message, signature);
  if (!d) return false;
  Memo& m = TheMemo();
  std::lock_guard<std::mutex> l(m.mu);
  return m.known.count(*d) > 0;
}

}  // namespace cub::sign
