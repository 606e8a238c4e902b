#include "lib/sign/base64.h"

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"

namespace cub::sign {
namespace {

// absl::string_view is not std::string_view in this build of abseil.
absl::string_view Sv(std::string_view s) { return absl::string_view(s.data(), s.size()); }

absl::Status Invalid(std::string_view what, size_t offset) {
  return absl::InvalidArgumentError(absl::StrCat("base64: ", Sv(what), " at offset ", offset));
}

// The character, quoted and escaped for a message.
std::string Quoted(char c) { return absl::StrCat("'", absl::CHexEscape(std::string(1, c)), "'"); }

// abseil decodes and encodes; this only refuses, with the offset of the fault, every text that
// abseil's encoder would not have written (abseil's decoder is laxer: it ignores non-zero
// unused bits, for one).
absl::StatusOr<std::string> Decode(std::string_view text, bool allow_url) {
  // Split off the padding; '=' anywhere else is an error found below.
  size_t data_len = text.size();
  while (data_len > 0 && text[data_len - 1] == '=') --data_len;
  const size_t padding = text.size() - data_len;
  if (padding > 2) return Invalid("more than two '=' of padding", data_len);
  if (data_len % 4 == 1) {
    return Invalid("truncated text (a single character cannot encode a byte)", data_len - 1);
  }
  if ((padding > 0 || !allow_url) && text.size() % 4 != 0) {
    return Invalid(absl::StrCat("length ", text.size(), " that is not a multiple of 4 (",
                                padding == 0 ? "missing" : "wrong", " '=' padding)"),
                   text.size());
  }
  // The alphabet is the one of the first of its own characters ("+/" standard, "-_" URL-safe).
  const size_t first = text.substr(0, data_len).find_first_of("+/-_");
  const bool url = allow_url && first != text.npos && (text[first] == '-' || text[first] == '_');
  const std::string_view own = url ? "-_" : "+/";
  for (size_t i = 0; i < data_len; ++i) {
    const char c = text[i];
    if (absl::ascii_isalnum(static_cast<unsigned char>(c)) || own.find(c) != own.npos) continue;
    if (c == '=') return Invalid("'=' before the end", i);
    if (allow_url && std::string_view("+/-_").find(c) != std::string_view::npos) {
      return Invalid(absl::StrCat("character ", Quoted(c),
                                  " of the other alphabet (standard and URL-safe mixed)"),
                     i);
    }
    return Invalid(absl::StrCat("invalid character ", Quoted(c)), i);
  }

  std::string out;
  const absl::string_view data = Sv(text.substr(0, data_len));
  if (!(url ? absl::WebSafeBase64Unescape(data, &out) : absl::Base64Unescape(data, &out))) {
    return Invalid("text abseil cannot decode", 0);
  }
  // Only the unused bits of the last character can still differ from what an encoder writes.
  const std::string again = url ? absl::WebSafeBase64Escape(out) : absl::Base64Escape(out);
  if (again.compare(0, data_len, text.data(), data_len) != 0) {
    return Invalid("non-zero unused bits in the last character", data_len - 1);
  }
  return out;
}

}  // namespace

std::string Base64Encode(std::string_view bytes) { return absl::Base64Escape(Sv(bytes)); }

absl::StatusOr<std::string> Base64Decode(std::string_view text) {
  return Decode(text, /*allow_url=*/false);
}

absl::StatusOr<std::string> Base64DecodeStdOrUrl(std::string_view text) {
  return Decode(text, /*allow_url=*/true);
}

}  // namespace cub::sign
