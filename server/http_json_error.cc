// JsonErrorBody(), declared in http_server.h: the REST mirror's error body, shared by the HTTP
// server (errors it produces itself) and the gateway.
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "lib/util/json.h"
#include "server/http_server.h"

namespace cub::server {

std::string JsonErrorBody(int grpc_code, std::string_view message) {
  // gRPC's code numbers are absl::StatusCode's, and abseil spells them as gRPC does.
  const std::string name = grpc_code >= 0 && grpc_code <= 16
                               ? absl::StatusCodeToString(static_cast<absl::StatusCode>(grpc_code))
                               : "UNKNOWN";
  Json body = Json::object();
  body["code"] = grpc_code;
  body["status"] = name;
  body["message"] = message;  // malformed UTF-8 is written as U+FFFD
  return JsonText(body);
}

}  // namespace cub::server
