#include "lib/util/json.h"

#include <set>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace cub {

std::string JsonText(const Json& json) {
  return json.dump(-1, ' ', /*ensure_ascii=*/false, Json::error_handler_t::replace);
}

std::string PrettyJsonText(const Json& json) {
  return json.dump(2, ' ', /*ensure_ascii=*/false, Json::error_handler_t::replace);
}

std::string JsonQuote(std::string_view s) { return JsonText(Json(s)); }

void AppendJsonQuote(std::string& out, std::string_view s) {
  for (const char ch : s) {
    const unsigned char c = static_cast<unsigned char>(ch);
    if (c < 0x20 || c >= 0x7f || c == '"' || c == '\\') {
      out += JsonQuote(s);
      return;
    }
  }
  out += '"';
  out.append(s.data(), s.size());
  out += '"';
}

std::string& JsonObjectWriter::Key(std::string_view key) {
  if (!first_) out_ += ',';
  first_ = false;
  AppendJsonQuote(out_, key);
  out_ += ':';
  return out_;
}

JsonObjectWriter& JsonObjectWriter::Int(std::string_view key, int64_t value) {
  absl::StrAppend(&Key(key), value);
  return *this;
}

JsonObjectWriter& JsonObjectWriter::Strings(std::string_view key,
                                            const std::vector<std::string>& values) {
  return Array(key, values.size(),
               [&](std::string& out, size_t i) { AppendJsonQuote(out, values[i]); });
}

void AppendJsonString(std::string& out, std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  out += '"';
  size_t plain = 0;  // the start of the run not yet copied
  for (size_t i = 0; i < s.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c != '"' && c != '\\') continue;
    out.append(s.data() + plain, i - plain);
    plain = i + 1;
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        out += "\\u00";
        out += kHex[c >> 4];
        out += kHex[c & 0xf];
    }
  }
  out.append(s.data() + plain, s.size() - plain);
  out += '"';
}

absl::StatusOr<Json> ParseJson(std::string_view text) {
  // nlohmann keeps the last of duplicate keys; a callback sees each key as it is read and
  // records the first one an enclosing object already has.
  std::vector<std::set<std::string>> keys;
  std::string duplicate;
  auto callback = [&](int /*depth*/, Json::parse_event_t event, Json& parsed) {
    switch (event) {
      case Json::parse_event_t::object_start:
        keys.emplace_back();
        break;
      case Json::parse_event_t::object_end:
        keys.pop_back();
        break;
      case Json::parse_event_t::key:
        if (!keys.back().insert(parsed.get<std::string>()).second && duplicate.empty()) {
          duplicate = parsed.get<std::string>();
        }
        break;
      default:
        break;
    }
    return true;
  };
  try {
    Json json = Json::parse(text.begin(), text.end(), callback);
    if (!duplicate.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("duplicate key ", JsonQuote(duplicate), " in an object"));
    }
    return json;
  } catch (const Json::exception& e) {
    // what() is "[json.exception.parse_error.101] parse error at line 1, column 5: ...".
    std::string_view what = e.what();
    if (size_t end = what.find("] "); what.rfind("[json.exception.", 0) == 0 && end != what.npos) {
      what.remove_prefix(end + 2);
    }
    return absl::InvalidArgumentError(absl::string_view(what.data(), what.size()));
  }
}

const char* JsonKindName(const Json& json) {
  switch (json.type()) {
    case Json::value_t::null:
      return "null";
    case Json::value_t::boolean:
      return "bool";
    case Json::value_t::number_integer:
    case Json::value_t::number_unsigned:
      return "int";
    case Json::value_t::number_float:
      return "float";
    case Json::value_t::string:
      return "string";
    case Json::value_t::array:
      return "sequence";
    case Json::value_t::object:
      return "mapping";
    default:
      return "binary";
  }
}

}  // namespace cub
