#include "lib/ops/landed_heads.h"

namespace cub::ops {
namespace {

constexpr std::string_view kSha256Prefix = "sha256:";
constexpr char kHex[] = "0123456789abcdef";

// The value of a lowercase hex digit, or -1.
int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

// Reads `hex` (exactly 2 * N lowercase hex digits) into `out`.
template <size_t N>
bool ReadHex(std::string_view hex, std::array<uint8_t, N>& out) {
  if (hex.size() != 2 * N) return false;
  for (size_t i = 0; i < N; ++i) {
    const int hi = HexValue(hex[2 * i]);
    const int lo = HexValue(hex[2 * i + 1]);
    if (hi < 0 || lo < 0) return false;
    out[i] = static_cast<uint8_t>(hi * 16 + lo);
  }
  return true;
}

// The 16 bytes of a UUID in its canonical text (8-4-4-4-12 lowercase hex digits).
bool ReadUuid(std::string_view text, std::array<uint8_t, 16>& out) {
  if (text.size() != 36 || text[8] != '-' || text[13] != '-' || text[18] != '-' ||
      text[23] != '-') {
    return false;
  }
  std::string digits;
  digits.reserve(32);
  for (char c : text) {
    if (c != '-') digits += c;
  }
  return ReadHex(digits, out);
}

}  // namespace

void LandedHeads::Note(std::string_view unit_id, int64_t num, std::string_view data_hash) {
  Key key;
  Value value;
  value.revision_num = num;
  if (!ReadUuid(unit_id, key)) return;  // never noted, so nothing to forget
  if (data_hash.substr(0, kSha256Prefix.size()) != kSha256Prefix ||
      !ReadHex(data_hash.substr(kSha256Prefix.size()), value.sha256)) {
    heads_.erase(key);
    return;
  }
  heads_[key] = value;
}

void LandedHeads::Forget(std::string_view unit_id) {
  Key key;
  if (ReadUuid(unit_id, key)) heads_.erase(key);
}

std::optional<LandedHeads::Head> LandedHeads::Find(std::string_view unit_id) const {
  Key key;
  if (!ReadUuid(unit_id, key)) return std::nullopt;
  auto it = heads_.find(key);
  if (it == heads_.end()) return std::nullopt;
  Head h;
  h.revision_num = it->second.revision_num;
  h.data_hash.reserve(kSha256Prefix.size() + 64);
  h.data_hash.append(kSha256Prefix.data(), kSha256Prefix.size());
  for (uint8_t b : it->second.sha256) {
    h.data_hash += kHex[b >> 4];
    h.data_hash += kHex[b & 15];
  }
  return h;
}

}  // namespace cub::ops
