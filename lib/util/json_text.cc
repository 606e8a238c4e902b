#include "lib/util/json_text.h"

#include "absl/strings/str_format.h"

namespace cub {

std::string JsonQuote(std::string_view s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (c < 0x20) {
          out += absl::StrFormat("\\u%04x", c);
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  out += '"';
  return out;
}

std::string JsonObject(const std::map<std::string, std::string>& m) {
  std::string out = "{";
  for (const auto& [k, v] : m) {
    if (out.size() > 1) out += ',';
    out += JsonQuote(k);
    out += ':';
    out += JsonQuote(v);
  }
  return out + "}";
}

std::string JsonArray(const std::vector<std::string>& v) {
  std::string out = "[";
  for (const auto& s : v) {
    if (out.size() > 1) out += ',';
    out += JsonQuote(s);
  }
  return out + "]";
}

}  // namespace cub
