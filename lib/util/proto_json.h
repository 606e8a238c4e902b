// A protobuf message as compact JSON, printed in one pass over the message by reflection.
//
// The result is the document google::protobuf::util::MessageToJsonString prints with
// always_print_primitive_fields (and neither whitespace nor proto field names), which the API's
// JSON is defined by: every field under its json_name, scalars, repeated fields and maps even
// when empty, a singular message or oneof member only when set, 64-bit integers quoted, enums by
// name (by number when the value has none), bytes in base64, NaN and the infinities as strings.
// Map entries are sorted by key; a double prints in its shortest exact form, a float as protobuf
// prints it; a string that is not valid UTF-8 (which only a program, not the wire, can give a
// message) has U+FFFD for each bad byte, where protobuf drops them.
//
// Why not protobuf's printer: it serializes the message, parses it back against a type resolver
// and, to print defaults, builds a tree with a node per value before writing anything. For a
// ChangeOrder with 10,000 Spaces in scope that was 7 of a `cub changeorder get`'s 17 ms of CPU,
// and a 5,000-Space promote's answer (15 MB) held 235 MB. This writes each value as it reads it.
//
// Thread-safe; does not support google.protobuf.Any or the other well-known types' special
// forms (Timestamp, Duration, Struct, wrappers), which the API does not use: such a message
// prints as an ordinary message.
#ifndef CUB_LIB_UTIL_PROTO_JSON_H_
#define CUB_LIB_UTIL_PROTO_JSON_H_

#include <string>

#include "google/protobuf/message.h"

namespace cub::util {

// Appends the JSON of `message` to `out`.
void AppendProtoJson(const google::protobuf::Message& message, std::string& out);

// The JSON of `message`.
std::string ProtoJson(const google::protobuf::Message& message);

}  // namespace cub::util

#endif  // CUB_LIB_UTIL_PROTO_JSON_H_
