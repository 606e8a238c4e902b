// The query string of a REST `GET /v1/<Service>/List...` call, as the JSON body the POST form
// of the same call would carry, so that a list can be read (and paged) with a plain link:
//
//   GET /v1/UnitService/ListUnits?Space=home&Options.Where=Slug%20LIKE%20'a%25'&Limit=50
//     is  POST /v1/UnitService/ListUnits {"Space": "home", "Options": {"Where": "..."},
//                                          "Limit": 50}
//
// Names are the fields' json_names (PascalCase), a dot reaching into a message field; values are
// percent-decoded ('+' is a space). Only singular scalar fields can be given; a name that is no
// such field, a repeated or map field, a name given twice, or an undecodable value is
// INVALID_ARGUMENT naming the parameter. Numbers and enums are checked by the JSON parser that
// reads the result.
#ifndef CUB_SERVER_REST_QUERY_H_
#define CUB_SERVER_REST_QUERY_H_

#include <google/protobuf/descriptor.h>

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace cub::server {

absl::StatusOr<std::string> QueryToJson(const google::protobuf::Descriptor& input,
                                        absl::string_view query);

}  // namespace cub::server

#endif  // CUB_SERVER_REST_QUERY_H_
