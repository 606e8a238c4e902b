// API messages as the JSON the API returns (PascalCase json_name keys, fields with default
// values included): what CEL gates see as Space and ChangeOrder, and how PromotionFailures and
// PromotionOverrides are stored, so that they read back through the same shape.
#ifndef CUB_LIB_OPS_API_JSON_H_
#define CUB_LIB_OPS_API_JSON_H_

#include <google/protobuf/message.h>

#include <string>

namespace cub::ops {

std::string ApiJson(const google::protobuf::Message& m);

}  // namespace cub::ops

#endif  // CUB_LIB_OPS_API_JSON_H_
