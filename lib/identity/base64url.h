// Base64url without padding (RFC 7515 section 2, "Base64url Encoding"), as JWS and JWK use it.
//
// Decoding is strict, so one token has one spelling: only A-Z a-z 0-9 '-' '_' are accepted
// ('=' padding, '+', '/', whitespace are not), a length that no encoding has (4n+1) is
// refused, and the unused low bits of the last character must be zero. Pure functions.
#ifndef CUB_LIB_IDENTITY_BASE64URL_H_
#define CUB_LIB_IDENTITY_BASE64URL_H_

#include <optional>
#include <string>
#include <string_view>

namespace cub::identity {

// The decoded bytes, or nullopt when `text` is not strict unpadded base64url.
std::optional<std::string> Base64UrlDecode(std::string_view text);

// Whether every character of `text` is in the base64url alphabet (no decoding).
bool IsBase64UrlAlphabet(std::string_view text);

std::string Base64UrlEncode(std::string_view bytes);

}  // namespace cub::identity

#endif  // CUB_LIB_IDENTITY_BASE64URL_H_
