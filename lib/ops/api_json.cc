#include "lib/ops/api_json.h"

#include "lib/util/proto_json.h"

namespace cub::ops {

// util::ProtoJson prints what protobuf's MessageToJsonString prints with
// always_print_primitive_fields, in one pass: a CEL gate reads every evaluated Space this way.
std::string ApiJson(const google::protobuf::Message& m) { return util::ProtoJson(m); }

}  // namespace cub::ops
