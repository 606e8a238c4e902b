// Base64 (RFC 4648) for DSSE envelopes, which carry their payload and signatures as base64
// strings inside JSON.
//
// Encoding always uses the standard alphabet (A-Z a-z 0-9 + /) with '=' padding. Decoding is
// strict: it accepts exactly the texts that some encoder following RFC 4648 produces, so two
// different texts never decode to the same bytes. Rejected: characters outside the alphabet
// (whitespace and line breaks included), misplaced or excess '=', a length that no encoding
// has, and non-zero unused bits in the last character (RFC 4648 section 3.5: "QR==" is not
// accepted for "QQ==").
//
// The codec is abseil's (absl/strings/escaping.h); this adds the strictness. Pure functions;
// thread-safe.

#ifndef CUB_LIB_SIGN_BASE64_H_
#define CUB_LIB_SIGN_BASE64_H_

#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace cub::sign {

// `bytes` in the standard alphabet, padded with '=' to a multiple of 4 characters.
std::string Base64Encode(std::string_view bytes);

// Decodes the standard alphabet with the padding required (what Base64Encode writes).
// Errors: InvalidArgument "base64: <what> at offset N" (offsets count characters from 0).
absl::StatusOr<std::string> Base64Decode(std::string_view text);

// Decodes either alphabet, standard or URL-safe ('-' and '_' for '+' and '/'), with or
// without padding: the spellings the DSSE envelope format allows. One text must not mix the
// two alphabets; if it is padded, the padding must be complete. Otherwise as strict as
// Base64Decode, with the same errors.
absl::StatusOr<std::string> Base64DecodeStdOrUrl(std::string_view text);

}  // namespace cub::sign

#endif  // CUB_LIB_SIGN_BASE64_H_
