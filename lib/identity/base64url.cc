#include "lib/identity/base64url.h"

#include "absl/strings/escaping.h"

namespace cub::identity {
namespace {

bool IsAlphabet(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
         c == '_';
}

absl::string_view Sv(std::string_view s) { return absl::string_view(s.data(), s.size()); }

}  // namespace

bool IsBase64UrlAlphabet(std::string_view text) {
  for (char c : text) {
    if (!IsAlphabet(c)) return false;
  }
  return true;
}

// abseil decodes (it also takes '=' and the standard alphabet, hence the alphabet check
// first); encoding the bytes again must give `text` back, which refuses a 4n+1 length and
// non-zero unused bits in the last character: one spelling per token, as lib/sign/base64.cc
// checks for DSSE.
std::optional<std::string> Base64UrlDecode(std::string_view text) {
  if (!IsBase64UrlAlphabet(text)) return std::nullopt;
  std::string out;
  if (!absl::WebSafeBase64Unescape(Sv(text), &out)) return std::nullopt;
  if (absl::WebSafeBase64Escape(out) != text) return std::nullopt;
  return out;
}

std::string Base64UrlEncode(std::string_view bytes) { return absl::WebSafeBase64Escape(Sv(bytes)); }

}  // namespace cub::identity
