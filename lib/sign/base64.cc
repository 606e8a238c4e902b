#include "lib/sign/base64.h"

#include <cstdint>

#include "absl/status/status.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"

namespace cub::sign {
namespace {

constexpr char kStandard[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

// absl::string_view is not std::string_view in this build of abseil.
absl::string_view Sv(std::string_view s) { return absl::string_view(s.data(), s.size()); }

absl::Status Invalid(std::string_view what, size_t offset) {
  return absl::InvalidArgumentError(absl::StrCat("base64: ", Sv(what), " at offset ", offset));
}

// The character at `offset`, quoted and escaped for a message.
std::string Quoted(char c) { return absl::StrCat("'", absl::CHexEscape(std::string(1, c)), "'"); }

// The 6-bit value of `c`, or -1. '+' '/' belong to the standard alphabet, '-' '_' to the
// URL-safe one; `*alphabet` records which was seen first (0 none, 1 standard, 2 URL-safe) so
// that a text mixing them is refused.
int Value(char c, bool allow_url, int* alphabet, bool* mixed) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  int which = 0;
  int value = -1;
  if (c == '+' || c == '/') {
    which = 1;
    value = c == '+' ? 62 : 63;
  } else if (allow_url && (c == '-' || c == '_')) {
    which = 2;
    value = c == '-' ? 62 : 63;
  } else {
    return -1;
  }
  if (*alphabet == 0) *alphabet = which;
  if (*alphabet != which) *mixed = true;
  return value;
}

absl::StatusOr<std::string> Decode(std::string_view text, bool allow_url) {
  // Split off the padding; '=' anywhere else is an error found below.
  size_t data_len = text.size();
  while (data_len > 0 && text[data_len - 1] == '=') --data_len;
  const size_t padding = text.size() - data_len;
  if (padding > 2) return Invalid("more than two '=' of padding", data_len);
  if (data_len % 4 == 1) {
    return Invalid("truncated text (a single character cannot encode a byte)", data_len - 1);
  }
  if (padding > 0 || !allow_url) {
    if (text.size() % 4 != 0) {
      return Invalid(absl::StrCat("length ", text.size(), " that is not a multiple of 4 (",
                                  padding == 0 ? "missing" : "wrong", " '=' padding)"),
                     text.size());
    }
  }

  std::string out;
  out.reserve(data_len / 4 * 3 + 2);
  int alphabet = 0;
  bool mixed = false;
  uint32_t acc = 0;
  int bits = 0;
  for (size_t i = 0; i < data_len; ++i) {
    const char c = text[i];
    const int v = Value(c, allow_url, &alphabet, &mixed);
    if (v < 0) {
      if (c == '=') return Invalid("'=' before the end", i);
      return Invalid(absl::StrCat("invalid character ", Quoted(c)), i);
    }
    if (mixed) {
      return Invalid(absl::StrCat("character ", Quoted(c),
                                  " of the other alphabet (standard and URL-safe mixed)"),
                     i);
    }
    acc = (acc << 6) | static_cast<uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<char>((acc >> bits) & 0xff));
    }
  }
  // 2 or 4 bits are left over after a final group of 2 or 3 characters; an encoder sets them
  // to zero.
  if (bits > 0 && (acc & ((1u << bits) - 1)) != 0) {
    return Invalid("non-zero unused bits in the last character", data_len - 1);
  }
  return out;
}

}  // namespace

std::string Base64Encode(std::string_view bytes) {
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  size_t i = 0;
  for (; i + 3 <= bytes.size(); i += 3) {
    const uint32_t n = (static_cast<uint8_t>(bytes[i]) << 16) |
                       (static_cast<uint8_t>(bytes[i + 1]) << 8) |
                       static_cast<uint8_t>(bytes[i + 2]);
    out.push_back(kStandard[(n >> 18) & 63]);
    out.push_back(kStandard[(n >> 12) & 63]);
    out.push_back(kStandard[(n >> 6) & 63]);
    out.push_back(kStandard[n & 63]);
  }
  const size_t rest = bytes.size() - i;
  if (rest == 1) {
    const uint32_t n = static_cast<uint8_t>(bytes[i]) << 16;
    out.push_back(kStandard[(n >> 18) & 63]);
    out.push_back(kStandard[(n >> 12) & 63]);
    out += "==";
  } else if (rest == 2) {
    const uint32_t n =
        (static_cast<uint8_t>(bytes[i]) << 16) | (static_cast<uint8_t>(bytes[i + 1]) << 8);
    out.push_back(kStandard[(n >> 18) & 63]);
    out.push_back(kStandard[(n >> 12) & 63]);
    out.push_back(kStandard[(n >> 6) & 63]);
    out.push_back('=');
  }
  return out;
}

absl::StatusOr<std::string> Base64Decode(std::string_view text) {
  return Decode(text, /*allow_url=*/false);
}

absl::StatusOr<std::string> Base64DecodeStdOrUrl(std::string_view text) {
  return Decode(text, /*allow_url=*/true);
}

}  // namespace cub::sign
