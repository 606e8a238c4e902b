#include "lib/ops/api_json.h"

#include <google/protobuf/util/json_util.h>

namespace cub::ops {

std::string ApiJson(const google::protobuf::Message& m) {
  std::string out;
  google::protobuf::util::JsonPrintOptions opts;
  opts.always_print_primitive_fields = true;
  (void)google::protobuf::util::MessageToJsonString(m, &out, opts);
  return out;
}

}  // namespace cub::ops
