// JsonErrorBody() and GrpcCodeName(), declared in http_server.h: the REST mirror's error body,
// shared by the HTTP server (errors it produces itself) and the gateway.
#include <cstdio>
#include <string>
#include <string_view>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "server/http_server.h"

namespace cub::server {

const char* GrpcCodeName(int code) {
  static const char* const kNames[] = {"OK",
                                       "CANCELLED",
                                       "UNKNOWN",
                                       "INVALID_ARGUMENT",
                                       "DEADLINE_EXCEEDED",
                                       "NOT_FOUND",
                                       "ALREADY_EXISTS",
                                       "PERMISSION_DENIED",
                                       "RESOURCE_EXHAUSTED",
                                       "FAILED_PRECONDITION",
                                       "ABORTED",
                                       "OUT_OF_RANGE",
                                       "UNIMPLEMENTED",
                                       "INTERNAL",
                                       "UNAVAILABLE",
                                       "DATA_LOSS",
                                       "UNAUTHENTICATED"};
  return code >= 0 && code <= 16 ? kNames[code] : "UNKNOWN";
}

namespace {

// Length of the well-formed UTF-8 sequence at s[i] (a non-ASCII lead byte), or 0.
size_t Utf8SequenceLength(absl::string_view s, size_t i) {
  auto byte = [&](size_t k) -> unsigned { return static_cast<unsigned char>(s[k]); };
  auto cont = [&](size_t k, unsigned lo = 0x80, unsigned hi = 0xBF) {
    return k < s.size() && byte(k) >= lo && byte(k) <= hi;
  };
  unsigned b = byte(i);
  if (b >= 0xC2 && b <= 0xDF) return cont(i + 1) ? 2 : 0;
  if (b == 0xE0) return cont(i + 1, 0xA0) && cont(i + 2) ? 3 : 0;
  if ((b >= 0xE1 && b <= 0xEC) || b == 0xEE || b == 0xEF) return cont(i + 1) && cont(i + 2) ? 3 : 0;
  if (b == 0xED) return cont(i + 1, 0x80, 0x9F) && cont(i + 2) ? 3 : 0;
  if (b == 0xF0) return cont(i + 1, 0x90) && cont(i + 2) && cont(i + 3) ? 4 : 0;
  if (b >= 0xF1 && b <= 0xF3) return cont(i + 1) && cont(i + 2) && cont(i + 3) ? 4 : 0;
  if (b == 0xF4) return cont(i + 1, 0x80, 0x8F) && cont(i + 2) && cont(i + 3) ? 4 : 0;
  return 0;
}

void AppendJsonString(std::string* out, absl::string_view s) {
  out->push_back('"');
  for (size_t i = 0; i < s.size();) {
    unsigned char c = s[i];
    if (c >= 0x80) {
      size_t n = Utf8SequenceLength(s, i);
      if (n == 0) {
        out->append("\xEF\xBF\xBD");  // U+FFFD
        ++i;
      } else {
        out->append(s.data() + i, n);
        i += n;
      }
      continue;
    }
    switch (c) {
      case '"':
        out->append("\\\"");
        break;
      case '\\':
        out->append("\\\\");
        break;
      case '\n':
        out->append("\\n");
        break;
      case '\r':
        out->append("\\r");
        break;
      case '\t':
        out->append("\\t");
        break;
      default:
        if (c < 0x20 || c == 0x7f) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out->append(buf);
        } else {
          out->push_back(static_cast<char>(c));
        }
    }
    ++i;
  }
  out->push_back('"');
}

}  // namespace

std::string JsonErrorBody(int grpc_code, std::string_view message_in) {
  absl::string_view message(message_in.data(), message_in.size());
  std::string out = absl::StrCat("{\"code\":", grpc_code, ",\"status\":\"", GrpcCodeName(grpc_code),
                                 "\",\"message\":");
  AppendJsonString(&out, message);
  out += "}";
  return out;
}

}  // namespace cub::server
