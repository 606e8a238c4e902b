#include "lib/util/proto_text.h"

#include <string_view>
#include <vector>

#include "absl/strings/str_cat.h"
#include "google/protobuf/descriptor.h"
#include "lib/util/utf8.h"

namespace cub {
namespace {

namespace pb = google::protobuf;

absl::Status CheckText(std::string_view value, const std::string& path,
                       const TextFieldLimits& limits) {
  if (value.size() > limits.max_field_bytes) {
    return absl::ResourceExhaustedError(
        absl::StrCat(path, " holds ", value.size(), " bytes, more than the limit of ",
                     limits.max_field_bytes, " bytes (", limits.limit_name, ")"));
  }
  if (size_t nul = value.find('\0'); nul != std::string_view::npos) {
    return absl::InvalidArgumentError(absl::StrCat(path, " holds a NUL byte at offset ", nul,
                                                   "; text fields cannot contain NUL bytes"));
  }
  if (size_t bad = FindInvalidUtf8(value); bad != std::string_view::npos) {
    return absl::InvalidArgumentError(absl::StrCat(path, " is not valid UTF-8 at byte offset ", bad,
                                                   "; text fields must be UTF-8"));
  }
  return absl::OkStatus();
}

// A map key short and printable enough to name the entry by; otherwise the entry's index.
std::string EntryName(const pb::Message& entry, int index) {
  const pb::FieldDescriptor* key = entry.GetDescriptor()->map_key();
  if (key->cpp_type() == pb::FieldDescriptor::CPPTYPE_STRING) {
    std::string k = entry.GetReflection()->GetString(entry, key);
    bool plain = k.size() <= 64;
    for (unsigned char c : k) plain = plain && c >= 0x20 && c < 0x7f && c != '"' && c != '\\';
    if (plain) return absl::StrCat("[\"", k, "\"]");
  }
  return absl::StrCat("[", index, "]");
}

absl::Status Walk(const pb::Message& m, const std::string& prefix, const TextFieldLimits& limits);

absl::Status CheckField(const pb::Message& m, const pb::FieldDescriptor* f, const std::string& path,
                        const TextFieldLimits& limits) {
  const pb::Reflection* r = m.GetReflection();
  const bool is_string =
      f->type() == pb::FieldDescriptor::TYPE_STRING;  // not TYPE_BYTES: any bytes go there
  const bool is_message = f->cpp_type() == pb::FieldDescriptor::CPPTYPE_MESSAGE;
  if (!is_string && !is_message) return absl::OkStatus();
  if (!f->is_repeated()) {
    if (is_string) {
      std::string scratch;
      return CheckText(r->GetStringReference(m, f, &scratch), path, limits);
    }
    return Walk(r->GetMessage(m, f), path, limits);
  }
  const int n = r->FieldSize(m, f);
  for (int i = 0; i < n; ++i) {
    if (is_string) {
      std::string scratch;
      if (auto s = CheckText(r->GetRepeatedStringReference(m, f, i, &scratch),
                             absl::StrCat(path, "[", i, "]"), limits);
          !s.ok()) {
        return s;
      }
      continue;
    }
    const pb::Message& item = r->GetRepeatedMessage(m, f, i);
    if (f->is_map()) {
      const pb::FieldDescriptor* key = item.GetDescriptor()->map_key();
      const pb::FieldDescriptor* value = item.GetDescriptor()->map_value();
      const std::string entry = path + EntryName(item, i);
      if (auto s = CheckField(item, key, absl::StrCat(path, " key ", EntryName(item, i)), limits);
          !s.ok()) {
        return s;
      }
      if (auto s = CheckField(item, value, entry, limits); !s.ok()) return s;
      continue;
    }
    if (auto s = Walk(item, absl::StrCat(path, "[", i, "]"), limits); !s.ok()) return s;
  }
  return absl::OkStatus();
}

absl::Status Walk(const pb::Message& m, const std::string& prefix, const TextFieldLimits& limits) {
  std::vector<const pb::FieldDescriptor*> fields;
  m.GetReflection()->ListFields(m, &fields);  // only the set ones
  for (const pb::FieldDescriptor* f : fields) {
    const std::string path = prefix.empty() ? f->json_name() : prefix + "." + f->json_name();
    if (auto s = CheckField(m, f, path, limits); !s.ok()) return s;
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status CheckTextFields(const pb::Message& message, const TextFieldLimits& limits) {
  return Walk(message, "", limits);
}

}  // namespace cub
