// Type conversions: int(), uint(), double(), string(), bool(), bytes(), timestamp(),
// duration(), dyn() and type().

#include <cmath>

#include "absl/strings/str_cat.h"
#include "lib/cel/functions.h"
#include "lib/cel/numbers.h"
#include "lib/cel/time_util.h"
#include "lib/util/utf8.h"

namespace cub::cel::internal {

namespace {

using K = Value::Kind;

Value RangeError(const Value& v, const char* to) {
  return Value::Error(absl::StrCat("range error: ", v.DebugString(), " does not fit ", to));
}

Value BadText(const Value& v, const char* to) {
  return Value::Error(absl::StrCat("type conversion error: ", v.DebugString(), " is not ", to));
}

Value ToInt(const CallArgs& c, const Value& v) {
  switch (v.kind()) {
    case K::kInt:
      return v;
    case K::kUint:
      if (v.uint_value() > static_cast<uint64_t>(INT64_MAX)) return RangeError(v, "int");
      return Value::Int(static_cast<int64_t>(v.uint_value()));
    case K::kDouble: {
      double d = v.double_value();
      // Exclusive bounds: -2^63 itself is refused too, as cel-go does.
      if (!(d > -9223372036854775808.0 && d < 9223372036854775808.0)) return RangeError(v, "int");
      return Value::Int(static_cast<int64_t>(d));
    }
    case K::kString: {
      std::optional<int64_t> i = ParseInt64(v.str());
      if (!i) return BadText(v, "an int");
      return Value::Int(*i);
    }
    case K::kTimestamp:
      return Value::Int(absl::ToUnixSeconds(v.timestamp_value()));
    case K::kDuration:
      return Value::Int(absl::ToInt64Nanoseconds(v.duration_value()));
    default:
      return NoOverload(c);
  }
}

Value ToUint(const CallArgs& c, const Value& v) {
  switch (v.kind()) {
    case K::kUint:
      return v;
    case K::kInt:
      if (v.int_value() < 0) return RangeError(v, "uint");
      return Value::Uint(static_cast<uint64_t>(v.int_value()));
    case K::kDouble: {
      double d = v.double_value();
      if (!(d > -1.0 && d < 18446744073709551616.0)) return RangeError(v, "uint");
      return Value::Uint(static_cast<uint64_t>(d));
    }
    case K::kString: {
      std::optional<uint64_t> u = ParseUint64(v.str());
      if (!u) return BadText(v, "a uint");
      return Value::Uint(*u);
    }
    default:
      return NoOverload(c);
  }
}

Value ToDouble(const CallArgs& c, const Value& v) {
  switch (v.kind()) {
    case K::kDouble:
      return v;
    case K::kInt:
      return Value::Double(static_cast<double>(v.int_value()));
    case K::kUint:
      return Value::Double(static_cast<double>(v.uint_value()));
    case K::kString: {
      std::optional<double> d = ParseDouble(v.str());
      if (!d) return BadText(v, "a double");
      return Value::Double(*d);
    }
    default:
      return NoOverload(c);
  }
}

Value ToString(const CallArgs& c, const Value& v) {
  switch (v.kind()) {
    case K::kString:
      return v;
    case K::kInt:
      return Value::String(absl::StrCat(v.int_value()));
    case K::kUint:
      return Value::String(absl::StrCat(v.uint_value()));
    case K::kDouble:
      return Value::String(FormatDouble(v.double_value()));
    case K::kBool:
      return Value::String(v.bool_value() ? "true" : "false");
    case K::kBytes:
      if (!IsValidUtf8(v.str())) {
        return Value::Error("type conversion error: bytes are not valid UTF-8");
      }
      return Value::String(v.str());
    case K::kTimestamp:
      return Value::String(TimestampToString(v.timestamp_value()));
    case K::kDuration:
      return Value::String(DurationToString(v.duration_value()));
    default:
      return NoOverload(c);
  }
}

Value ToBool(const CallArgs& c, const Value& v) {
  if (v.kind() == K::kBool) return v;
  if (v.kind() != K::kString) return NoOverload(c);
  const std::string& s = v.str();
  if (s == "1" || s == "t" || s == "T" || s == "true" || s == "TRUE" || s == "True") {
    return Value::Bool(true);
  }
  if (s == "0" || s == "f" || s == "F" || s == "false" || s == "FALSE" || s == "False") {
    return Value::Bool(false);
  }
  return BadText(v, "a bool");
}

Value FromStatus(const absl::StatusOr<absl::Time>& t) {
  if (!t.ok()) return Value::Error(std::string(t.status().message()));
  return Value::Timestamp(*t);
}

}  // namespace

Value CallConversion(const CallArgs& c, bool* handled) {
  *handled = !c.receiver;
  if (c.receiver) return Value();
  const std::string& f = c.function;
  bool known = f == "int" || f == "uint" || f == "double" || f == "string" || f == "bool" ||
               f == "bytes" || f == "timestamp" || f == "duration" || f == "dyn" || f == "type";
  if (!known) {
    *handled = false;
    return Value();
  }
  if (c.values.size() != 1) return NoOverload(c);
  const Value& v = c.values[0];
  if (f == "int") return ToInt(c, v);
  if (f == "uint") return ToUint(c, v);
  if (f == "double") return ToDouble(c, v);
  if (f == "string") return ToString(c, v);
  if (f == "bool") return ToBool(c, v);
  if (f == "dyn") return v;
  if (f == "type") return Value::Type(KindName(v.kind()));
  if (f == "bytes") {
    if (v.kind() == K::kBytes) return v;
    if (v.kind() == K::kString) return Value::Bytes(v.str());
    return NoOverload(c);
  }
  if (f == "timestamp") {
    if (v.kind() == K::kTimestamp) return v;
    if (v.kind() == K::kString) return FromStatus(ParseTimestamp(v.str()));
    if (v.kind() == K::kInt) return FromStatus(TimestampFromUnixSeconds(v.int_value()));
    return NoOverload(c);
  }
  // duration
  if (v.kind() == K::kDuration) return v;
  if (v.kind() != K::kString) return NoOverload(c);
  absl::StatusOr<absl::Duration> d = ParseDuration(v.str());
  if (!d.ok()) return Value::Error(std::string(d.status().message()));
  return Value::Duration(*d);
}

}  // namespace cub::cel::internal
