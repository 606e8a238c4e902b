#include "lib/targets/known_hosts.h"

#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/sha.h>

#include <cctype>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace cub::targets::internal {
namespace {

std::string Lower(absl::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// ssh's match_pattern: '*' any run, '?' any one character.
bool Glob(const char* p, const char* s) {
  for (;;) {
    if (*p == '\0') return *s == '\0';
    if (*p == '*') {
      while (*p == '*') ++p;
      if (*p == '\0') return true;
      for (; *s != '\0'; ++s) {
        if (Glob(p, s)) return true;
      }
      return false;
    }
    if (*s == '\0') return false;
    if (*p != '?' && *p != *s) return false;
    ++p;
    ++s;
  }
}

std::optional<std::string> Decode(absl::string_view b64) {
  std::string out;
  if (!absl::Base64Unescape(b64, &out)) return std::nullopt;
  return out;
}

// "|1|salt|hash": HMAC-SHA1 of the name keyed by the salt.
bool HashedMatches(absl::string_view entry, const std::string& name) {
  std::vector<absl::string_view> parts = absl::StrSplit(entry.substr(3), '|');
  if (parts.size() != 2) return false;
  auto salt = Decode(parts[0]);
  auto want = Decode(parts[1]);
  if (!salt || !want || want->size() != SHA_DIGEST_LENGTH) return false;
  unsigned char got[EVP_MAX_MD_SIZE];
  unsigned int got_len = 0;
  if (HMAC(EVP_sha1(), salt->data(), static_cast<int>(salt->size()),
           reinterpret_cast<const unsigned char*>(name.data()), name.size(), got,
           &got_len) == nullptr) {
    return false;
  }
  return got_len == want->size() && std::string(reinterpret_cast<char*>(got), got_len) == *want;
}

// SSH wire string at the start of `blob`.
bool FirstString(absl::string_view blob, std::string* out) {
  if (blob.size() < 4) return false;
  uint32_t n = (uint32_t{static_cast<unsigned char>(blob[0])} << 24) |
               (uint32_t{static_cast<unsigned char>(blob[1])} << 16) |
               (uint32_t{static_cast<unsigned char>(blob[2])} << 8) |
               uint32_t{static_cast<unsigned char>(blob[3])};
  if (n > blob.size() - 4) return false;
  *out = std::string(blob.substr(4, n));
  return true;
}

}  // namespace

std::vector<KnownHost> ParseKnownHosts(absl::string_view text) {
  std::vector<KnownHost> out;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    std::vector<absl::string_view> f =
        absl::StrSplit(line, absl::ByAnyChar(" \t\r"), absl::SkipEmpty());
    if (f.empty() || f[0][0] == '#') continue;
    KnownHost h;
    if (f[0][0] == '@') {
      if (f[0] != "@revoked") continue;  // @cert-authority and unknown markers
      h.revoked = true;
      f.erase(f.begin());
    }
    if (f.size() < 3) continue;
    auto key = Decode(f[2]);
    std::string type;
    if (!key || !FirstString(*key, &type) || type != f[1]) continue;
    h.hosts = std::string(f[0]);
    h.key_type = std::string(f[1]);
    h.key = *std::move(key);
    out.push_back(std::move(h));
  }
  return out;
}

std::string KnownHostName(absl::string_view host, int port) {
  std::string h = Lower(host);
  if (h.size() > 1 && h.front() == '[' && h.back() == ']') h = h.substr(1, h.size() - 2);
  return port == 22 ? h : absl::StrCat("[", h, "]:", port);
}

bool KnownHostMatches(const std::string& hosts, const std::string& name) {
  if (hosts.rfind("|1|", 0) == 0) return HashedMatches(hosts, name);
  bool matched = false;
  for (absl::string_view pat : absl::StrSplit(hosts, ',', absl::SkipEmpty())) {
    bool negate = pat[0] == '!';
    if (negate) pat.remove_prefix(1);
    if (Glob(Lower(pat).c_str(), name.c_str())) {
      if (negate) return false;
      matched = true;
    }
  }
  return matched;
}

HostKeyCheck CheckHostKey(const std::vector<KnownHost>& entries, const std::string& name,
                          absl::string_view key) {
  bool listed = false, known = false;
  for (const KnownHost& h : entries) {
    // ssh refuses a revoked key whichever hosts the line names.
    if (h.revoked) {
      if (h.key == key) return HostKeyCheck::kRevoked;
      continue;
    }
    if (!KnownHostMatches(h.hosts, name)) continue;
    listed = true;
    if (h.key == key) known = true;
  }
  if (known) return HostKeyCheck::kKnown;
  return listed ? HostKeyCheck::kMismatch : HostKeyCheck::kUnknown;
}

std::string KeyFingerprint(absl::string_view key) {
  unsigned char d[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(key.data()), key.size(), d);
  std::string b64 = absl::Base64Escape(absl::string_view(reinterpret_cast<char*>(d), sizeof d));
  while (!b64.empty() && b64.back() == '=') b64.pop_back();
  return "SHA256:" + b64;
}

std::string KeyTypeOf(absl::string_view key) {
  std::string type;
  return FirstString(key, &type) ? type : "unknown";
}

}  // namespace cub::targets::internal
