// Checks that the text fields of a protobuf message can be kept exactly as sent.
//
// cub stores text in PostgreSQL `text` columns, which cannot hold a NUL byte (and the C-string
// paths to them cut a value at its first NUL), while hashes and signatures are computed over
// the whole value. So a string with a NUL would be stored shorter than it was signed. Proto3
// strings must also be valid UTF-8, or they cannot be parsed again on the other side. Both are
// refused up front, naming the field, rather than truncated or failed deep inside.
#ifndef CUB_LIB_UTIL_PROTO_TEXT_H_
#define CUB_LIB_UTIL_PROTO_TEXT_H_

#include <cstddef>
#include <string>

#include "absl/status/status.h"
#include "google/protobuf/message.h"

namespace cub {

struct TextFieldLimits {
  // Longest string field accepted, in bytes; longer ones are RESOURCE_EXHAUSTED.
  size_t max_field_bytes = static_cast<size_t>(-1);
  // How the message names the limit, e.g. "cubd --max-unit-bytes".
  std::string limit_name = "the limit";
};

// Walks every set string field of `message` (nested messages, repeated fields and map keys
// and values included; `bytes` fields excepted). The first offending field gives
// INVALID_ARGUMENT for a NUL byte or invalid UTF-8, RESOURCE_EXHAUSTED past
// `limits.max_field_bytes`. Fields are named by their JSON path as the REST API spells it,
// e.g. "Data", "Unit.Labels[\"team\"]", "Claims[2]":
//   "Data holds a NUL byte at offset 8; text fields cannot contain NUL bytes"
absl::Status CheckTextFields(const google::protobuf::Message& message,
                             const TextFieldLimits& limits = {});

}  // namespace cub

#endif  // CUB_LIB_UTIL_PROTO_TEXT_H_
