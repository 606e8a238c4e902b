#include "lib/ops/landed_heads.h"

#include "absl/strings/escaping.h"

namespace cub::ops {
namespace {

constexpr std::string_view kSha256Prefix = "sha256:";

// The value of a lowercase hex digit, or -1.
int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

// Reads `hex`, an even number of lowercase hex digits, into hex.size() / 2 bytes at `out`.
bool ReadHex(std::string_view hex, uint8_t* out) {
  for (size_t i = 0; i + 1 < hex.size(); i += 2) {
    const int hi = HexValue(hex[i]);
    const int lo = HexValue(hex[i + 1]);
    if (hi < 0 || lo < 0) return false;
    out[i / 2] = static_cast<uint8_t>(hi * 16 + lo);
  }
  return hex.size() % 2 == 0;
}

// The 16 bytes of a UUID in its canonical text (8-4-4-4-12 lowercase hex digits).
bool ReadUuid(std::string_view text, std::array<uint8_t, 16>& out) {
  if (text.size() != 36) return false;
  for (size_t at : {8, 13, 18, 23}) {
    if (text[at] != '-') return false;
  }
  return ReadHex(text.substr(0, 8), &out[0]) && ReadHex(text.substr(9, 4), &out[4]) &&
         ReadHex(text.substr(14, 4), &out[6]) && ReadHex(text.substr(19, 4), &out[8]) &&
         ReadHex(text.substr(24, 12), &out[10]);
}

}  // namespace

void LandedHeads::Note(std::string_view unit_id, int64_t num, std::string_view data_hash) {
  Key key;
  Value value;
  value.revision_num = num;
  if (!ReadUuid(unit_id, key)) return;  // never noted, so nothing to forget
  if (data_hash.size() != kSha256Prefix.size() + 64 ||
      data_hash.substr(0, kSha256Prefix.size()) != kSha256Prefix ||
      !ReadHex(data_hash.substr(kSha256Prefix.size()), value.sha256.data())) {
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
  const auto& sha = it->second.sha256;
  h.data_hash = std::string(kSha256Prefix);
  h.data_hash += absl::BytesToHexString(
      absl::string_view(reinterpret_cast<const char*>(sha.data()), sha.size()));
  return h;
}

}  // namespace cub::ops
