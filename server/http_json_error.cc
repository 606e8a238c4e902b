// JsonErrorBody() and GrpcCodeName(), declared in http_server.h: the REST mirror's error body,
// shared by the HTTP server (errors it produces itself) and the gateway.
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "lib/util/json_text.h"
#include "lib/util/utf8.h"
#include "server/http_server.h"

namespace cub::server {

const char* GrpcCodeName(int code) {
  // gRPC's code numbers are absl::StatusCode's; abseil spells them as gRPC does.
  static const std::string* const kNames = [] {
    auto* names = new std::string[17];
    for (int c = 0; c <= 16; ++c) names[c] = absl::StatusCodeToString(absl::StatusCode(c));
    return names;
  }();
  return code >= 0 && code <= 16 ? kNames[code].c_str() : "UNKNOWN";
}

std::string JsonErrorBody(int grpc_code, std::string_view message) {
  return absl::StrCat("{\"code\":", grpc_code, ",\"status\":\"", GrpcCodeName(grpc_code),
                      "\",\"message\":", JsonQuote(ValidUtf8(message)), "}");
}

}  // namespace cub::server
