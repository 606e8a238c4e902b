// Value::FromJson: JSON text, read by cub's JSON library (lib/util/json.h), as CEL values.

#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "lib/cel/absl_compat.h"
#include "lib/cel/value.h"
#include "lib/util/json.h"
#include "lib/util/utf8.h"

namespace cub::cel {

namespace {

constexpr int kMaxJsonDepth = 100;

// Not named Error: inside Value::FromJson that name is Value::Error, an error *value*.
absl::Status JsonError(std::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat("json: ", internal::Sv(what)));
}

absl::Status Convert(const Json& json, int depth, Value* out) {
  if (depth >= kMaxJsonDepth) return JsonError("nesting too deep");
  switch (json.type()) {
    case Json::value_t::null:
      *out = Value::Null();
      return absl::OkStatus();
    case Json::value_t::boolean:
      *out = Value::Bool(json.get<bool>());
      return absl::OkStatus();
    case Json::value_t::number_integer:
      *out = Value::Int(json.get<int64_t>());
      return absl::OkStatus();
    case Json::value_t::number_unsigned: {
      // nlohmann reads every non-negative integer as unsigned; past int64 it is a double.
      const uint64_t u = json.get<uint64_t>();
      *out = u <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max())
                 ? Value::Int(static_cast<int64_t>(u))
                 : Value::Double(static_cast<double>(u));
      return absl::OkStatus();
    }
    case Json::value_t::number_float:
      *out = Value::Double(json.get<double>());
      return absl::OkStatus();
    case Json::value_t::string:
      *out = Value::String(json.get<std::string>());
      return absl::OkStatus();
    case Json::value_t::array: {
      std::vector<Value> elems(json.size());
      for (size_t i = 0; i < json.size(); ++i) {
        absl::Status st = Convert(json[i], depth + 1, &elems[i]);
        if (!st.ok()) return st;
      }
      *out = Value::List(std::move(elems));
      return absl::OkStatus();
    }
    case Json::value_t::object: {
      std::vector<std::pair<Value, Value>> entries;
      entries.reserve(json.size());
      for (const auto& [key, member] : json.items()) {
        Value v;
        absl::Status st = Convert(member, depth + 1, &v);
        if (!st.ok()) return st;
        entries.emplace_back(Value::String(key), std::move(v));
      }
      absl::StatusOr<Value> m = Value::Map(std::move(entries));
      if (!m.ok()) return JsonError(std::string(m.status().message()));
      *out = *std::move(m);
      return absl::OkStatus();
    }
    default:
      return JsonError("unexpected binary value");
  }
}

}  // namespace

absl::StatusOr<Value> Value::FromJson(std::string_view json) {
  if (!IsValidUtf8(json)) return JsonError("invalid UTF-8");
  absl::StatusOr<Json> parsed = ParseJson(json);
  if (!parsed.ok()) return JsonError(std::string(parsed.status().message()));
  Value v;
  absl::Status st = Convert(*parsed, 0, &v);
  if (!st.ok()) return st;
  return v;
}

}  // namespace cub::cel
