#include "lib/util/proto_json.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "lib/util/json.h"
#include "lib/util/utf8.h"

namespace cub::util {
namespace {

using google::protobuf::Descriptor;
using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using google::protobuf::Reflection;

// `s` as a JSON string (AppendJsonString). A proto3 string is UTF-8 whenever it came off the
// wire; one a program set may not be, and then each byte that starts no valid sequence prints
// as U+FFFD, so that the document stays valid.
void AppendString(std::string_view s, std::string& out) {
  if (IsValidUtf8(s)) {
    AppendJsonString(out, s);
  } else {
    AppendJsonString(out, ValidUtf8(s));
  }
}

// A double: the shortest text that reads back as the same value, or the quoted names JSON has
// no number for.
void AppendFloating(double v, std::string& out) {
  if (std::isnan(v)) {
    out += "\"NaN\"";
  } else if (std::isinf(v)) {
    out += v > 0 ? "\"Infinity\"" : "\"-Infinity\"";
  } else {
    char buf[64];
    auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), v);
    out.append(buf, ec == std::errc() ? end - buf : 0);
  }
}

// A float, as protobuf prints one: with 6 significant digits when they read back as the same
// float, else 9, so that a reader taking the text as a double sees the value protobuf shows.
void AppendFloating(float v, std::string& out) {
  if (std::isnan(v) || std::isinf(v)) {
    AppendFloating(static_cast<double>(v), out);
    return;
  }
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.6g", v);
  if (std::strtof(buf, nullptr) != v) std::snprintf(buf, sizeof(buf), "%.9g", v);
  out += buf;
}

void AppendMessage(const Message& m, std::string& out);

// One value of `f` (element `index` when it is repeated, else -1).
void AppendValue(const Message& m, const FieldDescriptor* f, int index, std::string& out) {
  const Reflection* r = m.GetReflection();
  const bool rep = index >= 0;
  switch (f->cpp_type()) {
    case FieldDescriptor::CPPTYPE_INT32:
      absl::StrAppend(&out, rep ? r->GetRepeatedInt32(m, f, index) : r->GetInt32(m, f));
      break;
    case FieldDescriptor::CPPTYPE_UINT32:
      absl::StrAppend(&out, rep ? r->GetRepeatedUInt32(m, f, index) : r->GetUInt32(m, f));
      break;
    case FieldDescriptor::CPPTYPE_INT64:  // quoted: JSON numbers lose 64-bit precision
      absl::StrAppend(&out, "\"", rep ? r->GetRepeatedInt64(m, f, index) : r->GetInt64(m, f), "\"");
      break;
    case FieldDescriptor::CPPTYPE_UINT64:
      absl::StrAppend(&out, "\"", rep ? r->GetRepeatedUInt64(m, f, index) : r->GetUInt64(m, f),
                      "\"");
      break;
    case FieldDescriptor::CPPTYPE_DOUBLE:
      AppendFloating(rep ? r->GetRepeatedDouble(m, f, index) : r->GetDouble(m, f), out);
      break;
    case FieldDescriptor::CPPTYPE_FLOAT:
      AppendFloating(rep ? r->GetRepeatedFloat(m, f, index) : r->GetFloat(m, f), out);
      break;
    case FieldDescriptor::CPPTYPE_BOOL:
      out += (rep ? r->GetRepeatedBool(m, f, index) : r->GetBool(m, f)) ? "true" : "false";
      break;
    case FieldDescriptor::CPPTYPE_ENUM: {
      const int number = rep ? r->GetRepeatedEnumValue(m, f, index) : r->GetEnumValue(m, f);
      const auto* value = f->enum_type()->FindValueByNumber(number);
      if (value != nullptr) {
        AppendString(value->name(), out);
      } else {
        absl::StrAppend(&out, number);
      }
      break;
    }
    case FieldDescriptor::CPPTYPE_STRING: {
      std::string scratch;
      const std::string& s = rep ? r->GetRepeatedStringReference(m, f, index, &scratch)
                                 : r->GetStringReference(m, f, &scratch);
      if (f->type() == FieldDescriptor::TYPE_BYTES) {
        AppendString(absl::Base64Escape(s), out);
      } else {
        AppendString(s, out);
      }
      break;
    }
    case FieldDescriptor::CPPTYPE_MESSAGE:
      AppendMessage(rep ? r->GetRepeatedMessage(m, f, index) : r->GetMessage(m, f), out);
      break;
  }
}

// A map key as JSON object keys have it: text.
std::string MapKey(const Message& entry, const FieldDescriptor* key) {
  const Reflection* r = entry.GetReflection();
  switch (key->cpp_type()) {
    case FieldDescriptor::CPPTYPE_STRING:
      return r->GetString(entry, key);
    case FieldDescriptor::CPPTYPE_BOOL:
      return r->GetBool(entry, key) ? "true" : "false";
    case FieldDescriptor::CPPTYPE_INT32:
      return absl::StrCat(r->GetInt32(entry, key));
    case FieldDescriptor::CPPTYPE_UINT32:
      return absl::StrCat(r->GetUInt32(entry, key));
    case FieldDescriptor::CPPTYPE_INT64:
      return absl::StrCat(r->GetInt64(entry, key));
    case FieldDescriptor::CPPTYPE_UINT64:
      return absl::StrCat(r->GetUInt64(entry, key));
    default:
      return "";  // no other type can be a map key
  }
}

// A map field as an object, its entries sorted by key.
void AppendMap(const Message& m, const FieldDescriptor* f, std::string& out) {
  const Reflection* r = m.GetReflection();
  const int n = r->FieldSize(m, f);
  const Descriptor* entry_type = f->message_type();
  const FieldDescriptor* key = entry_type->map_key();
  const FieldDescriptor* value = entry_type->map_value();
  std::vector<std::pair<std::string, const Message*>> entries;
  entries.reserve(n);
  for (int i = 0; i < n; ++i) {
    const Message& entry = r->GetRepeatedMessage(m, f, i);
    entries.emplace_back(MapKey(entry, key), &entry);
  }
  std::sort(entries.begin(), entries.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  out += '{';
  for (size_t i = 0; i < entries.size(); ++i) {
    if (i > 0) out += ',';
    AppendString(entries[i].first, out);
    out += ':';
    AppendValue(*entries[i].second, value, -1, out);
  }
  out += '}';
}

// Whether `f` is printed when it holds its default: every field but a singular message, a
// member of a oneof and a proto3 `optional` field, which print only when set.
bool PrintedUnset(const FieldDescriptor* f) {
  if (f->is_repeated()) return true;
  if (f->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE) return false;
  return f->containing_oneof() == nullptr;  // a proto3 optional field has a synthetic one
}

void AppendMessage(const Message& m, std::string& out) {
  const Descriptor* d = m.GetDescriptor();
  const Reflection* r = m.GetReflection();
  out += '{';
  bool first = true;
  for (int i = 0; i < d->field_count(); ++i) {
    const FieldDescriptor* f = d->field(i);
    if (!PrintedUnset(f) && !r->HasField(m, f)) continue;
    if (!first) out += ',';
    first = false;
    AppendString(f->json_name(), out);
    out += ':';
    if (f->is_map()) {
      AppendMap(m, f, out);
    } else if (f->is_repeated()) {
      out += '[';
      const int n = r->FieldSize(m, f);
      for (int j = 0; j < n; ++j) {
        if (j > 0) out += ',';
        AppendValue(m, f, j, out);
      }
      out += ']';
    } else {
      AppendValue(m, f, -1, out);
    }
  }
  out += '}';
}

}  // namespace

void AppendProtoJson(const google::protobuf::Message& message, std::string& out) {
  AppendMessage(message, out);
}

std::string ProtoJson(const google::protobuf::Message& message) {
  std::string out;
  AppendMessage(message, out);
  return out;
}

}  // namespace cub::util
