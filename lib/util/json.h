// The one JSON library of cub: nlohmann::json (Debian's nlohmann-json3-dev), for every JSON
// document that is not the canonical form DataHash digests (lib/config/json.h) and not a proto
// message in its protobuf JSON mapping (google/protobuf/util/json_util.h, the API's wire form).
//
// Json keeps object members in insertion order, so a document built member by member is
// written in that order: signed statements, jsonb parameters and files have a fixed layout.
// nlohmann reports errors by exceptions; the functions here never throw.
//
// Pure functions; thread-safe.
#ifndef CUB_LIB_UTIL_JSON_H_
#define CUB_LIB_UTIL_JSON_H_

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace cub {

using Json = nlohmann::ordered_json;

// `json` as compact text: no whitespace, members in their order, strings as their UTF-8 bytes
// with '"', '\\' and control characters escaped (\b \f \n \r \t, others as \u00xx). A byte
// that starts no valid UTF-8 sequence is written as U+FFFD.
std::string JsonText(const Json& json);

// As JsonText, indented by two spaces with ": " after keys; empty arrays and objects stay
// "[]" and "{}". No trailing newline.
std::string PrettyJsonText(const Json& json);

// `s` as a JSON string literal, quotes included: JsonText(Json(s)). For naming a value in a
// message unambiguously.
std::string JsonQuote(std::string_view s);

// Appends JsonQuote(s): the same bytes, without building a Json for the text of printable
// ASCII (ids, slugs, digests, base64), which needs no escaping; anything else goes through
// JsonText. For writers that assemble a document JsonText would write, member by member.
void AppendJsonQuote(std::string& out, std::string_view s);

// Appends a JSON array of `n` values, as JsonText writes one: `each(out, i)` appends the i-th
// value (compact JSON) to `out`.
template <typename Fn>
void AppendJsonArray(std::string& out, size_t n, const Fn& each) {
  out += '[';
  for (size_t i = 0; i < n; ++i) {
    if (i > 0) out += ',';
    each(out, i);
  }
  out += ']';
}

// Writes one JSON object into `out`, member by member, as JsonText writes an ordered Json of
// the same members: no whitespace, members in the order written, strings by AppendJsonQuote.
// For documents of a fixed layout written many times (signed statements), where building a
// Json of each costs more than the text. Close() ends the object (the destructor does not);
// a member's value may be an object of its own, written by a writer over Key()'s text.
class JsonObjectWriter {
 public:
  explicit JsonObjectWriter(std::string& out) : out_(out) { out_ += '{'; }

  JsonObjectWriter& String(std::string_view key, std::string_view value) {
    AppendJsonQuote(Key(key), value);
    return *this;
  }
  JsonObjectWriter& Int(std::string_view key, int64_t value);
  JsonObjectWriter& Bool(std::string_view key, bool value) {
    Key(key) += value ? "true" : "false";
    return *this;
  }
  JsonObjectWriter& Strings(std::string_view key, const std::vector<std::string>& values);
  // The member `key`, an array of `n` values written by `each` (AppendJsonArray).
  template <typename Fn>
  JsonObjectWriter& Array(std::string_view key, size_t n, const Fn& each) {
    AppendJsonArray(Key(key), n, each);
    return *this;
  }
  // `json`, one compact JSON value, placed as it is.
  JsonObjectWriter& Raw(std::string_view key, std::string_view json) {
    Key(key).append(json.data(), json.size());
    return *this;
  }
  // Starts the member `key`; its value is to be appended to the text returned.
  std::string& Key(std::string_view key);
  void Close() { out_ += '}'; }

 private:
  std::string& out_;
  bool first_ = true;
};

// Appends `s` as a JSON string literal, quotes included, without building a Json: '"' and '\\'
// escaped, \n \r \t, other control characters as \u00xx, every other byte as it is (so `s`
// must be UTF-8 for the result to be). For writers that stream JSON of their own: the JSON log
// lines, util::ProtoJson.
void AppendJsonString(std::string& out, std::string_view s);

// Reads one RFC 8259 JSON text (surrounding whitespace allowed). An object that names a key
// twice is refused, not read as its last value.
// Errors: InvalidArgument "<nlohmann's description>", which names the byte offset.
absl::StatusOr<Json> ParseJson(std::string_view text);

// "null", "bool", "int", "float", "string", "sequence" or "mapping": the kind names that
// config::KindName gives the same values read as YAML.
const char* JsonKindName(const Json& json);

}  // namespace cub

#endif  // CUB_LIB_UTIL_JSON_H_
