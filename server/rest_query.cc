#include "server/rest_query.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "lib/util/json.h"
#include "lib/util/status_macros.h"
#include "lib/util/utf8.h"

namespace cub::server {
namespace {

namespace pb = google::protobuf;

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// application/x-www-form-urlencoded decoding of one name or value.
absl::StatusOr<std::string> Decode(absl::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '+') {
      out.push_back(' ');
    } else if (s[i] != '%') {
      out.push_back(s[i]);
    } else if (i + 2 < s.size() && HexDigit(s[i + 1]) >= 0 && HexDigit(s[i + 2]) >= 0) {
      out.push_back(static_cast<char>(HexDigit(s[i + 1]) * 16 + HexDigit(s[i + 2])));
      i += 2;
    } else {
      return absl::InvalidArgumentError("a '%' not followed by two hex digits");
    }
  }
  return out;
}

const pb::FieldDescriptor* FieldByJsonName(const pb::Descriptor& d, absl::string_view name) {
  for (int i = 0; i < d.field_count(); ++i) {
    if (d.field(i)->json_name() == name) return d.field(i);
  }
  return nullptr;
}

// Sets `value` at the dotted json_name path `name` of `out`, a JSON object for `input`.
absl::Status Set(const pb::Descriptor& input, const std::string& name, const std::string& value,
                 Json& out) {
  const pb::Descriptor* d = &input;
  Json* at = &out;
  std::vector<std::string> parts = absl::StrSplit(name, '.');
  for (size_t i = 0; i < parts.size(); ++i) {
    const pb::FieldDescriptor* f = FieldByJsonName(*d, parts[i]);
    if (f == nullptr || f->is_repeated()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "query parameter \"", name, "\": ", d->full_name(), " has no ",
          f == nullptr ? "field" : "singular field", " \"", parts[i], "\" (names are JSON names)"));
    }
    const bool last = i + 1 == parts.size();
    if (last != (f->type() != pb::FieldDescriptor::TYPE_MESSAGE)) {
      return absl::InvalidArgumentError(
          absl::StrCat("query parameter \"", name, "\": \"", parts[i], "\" is ",
                       last ? "a message; name one of its fields after a dot" : "not a message"));
    }
    if (!last) {
      d = f->message_type();
      at = &(*at)[parts[i]];
      continue;
    }
    if (at->contains(parts[i])) {
      return absl::InvalidArgumentError(
          absl::StrCat("query parameter \"", name, "\" is given more than once"));
    }
    if (f->type() == pb::FieldDescriptor::TYPE_BOOL && (value == "true" || value == "false")) {
      (*at)[parts[i]] = value == "true";
    } else {
      (*at)[parts[i]] = value;  // numbers as JSON strings, which protobuf's JSON parser reads
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::string> QueryToJson(const pb::Descriptor& input, absl::string_view query) {
  Json out = Json::object();
  for (absl::string_view pair : absl::StrSplit(query, '&', absl::SkipEmpty())) {
    std::pair<absl::string_view, absl::string_view> kv =
        absl::StrSplit(pair, absl::MaxSplits('=', 1));
    absl::StatusOr<std::string> name = Decode(kv.first);
    absl::StatusOr<std::string> value = Decode(kv.second);
    if (!name.ok() || !value.ok()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "query parameter \"", kv.first, "\": ", (!name.ok() ? name : value).status().message()));
    }
    if (FindInvalidUtf8(*name) != std::string::npos ||
        FindInvalidUtf8(*value) != std::string::npos) {
      return absl::InvalidArgumentError(
          absl::StrCat("query parameter \"", kv.first, "\": not UTF-8 once decoded"));
    }
    CUB_RETURN_IF_ERROR(Set(input, *name, *value, out));
  }
  return JsonText(out);
}

}  // namespace cub::server
