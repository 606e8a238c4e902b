// Runtime values of the CEL subset: what variables are bound to and what evaluation returns.
// JSON-like data from the API enters through Value::FromJson (value_json.cc, which reads it
// with lib/util/json.h).
//
// A Value is a small handle: strings, lists and maps are shared, immutable, and cheap to copy.
// Values are immutable once built, so they may be read from any number of threads at once.
//
// Kinds and their C++ forms:
//   null; bool; int (int64_t); uint (uint64_t); double; string (UTF-8); bytes; list; map
//   (keys of kind int, uint, bool or string; a numeric key matches any number of equal value,
//   so {1: 'a'}[1u] and {1: 'a'}[1.0] both find 'a'); timestamp (absl::Time); duration
//   (absl::Duration); type (a type value such as `int`, named by its CEL name); error (the
//   result of a failed evaluation step; see program.h for how errors reach the caller).

#ifndef CUB_LIB_CEL_VALUE_H_
#define CUB_LIB_CEL_VALUE_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <variant>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace cub::cel {

class MapValue;

class Value {
 public:
  enum class Kind {
    kNull,
    kBool,
    kInt,
    kUint,
    kDouble,
    kString,
    kBytes,
    kList,
    kMap,
    kTimestamp,
    kDuration,
    kType,
    kError,
  };

  Value() = default;  // null
  explicit Value(bool b) : kind_(Kind::kBool), rep_(b) {}
  explicit Value(int64_t i) : kind_(Kind::kInt), rep_(i) {}
  explicit Value(uint64_t u) : kind_(Kind::kUint), rep_(u) {}
  explicit Value(double d) : kind_(Kind::kDouble), rep_(d) {}
  // A string value; `s` should be valid UTF-8 (size() counts code points).
  explicit Value(std::string s) : Value(Kind::kString, std::move(s)) {}
  explicit Value(const char* s) : Value(std::string(s)) {}
  // Avoid accidental conversions from other integer types: name the kind.
  Value(int) = delete;

  static Value Null() { return Value(); }
  static Value Bool(bool b) { return Value(b); }
  static Value Int(int64_t i) { return Value(i); }
  static Value Uint(uint64_t u) { return Value(u); }
  static Value Double(double d) { return Value(d); }
  static Value String(std::string s) { return Value(Kind::kString, std::move(s)); }
  static Value Bytes(std::string b) { return Value(Kind::kBytes, std::move(b)); }
  static Value List(std::vector<Value> elems);
  // A map from `entries` in their order. Fails (InvalidArgument) when a key is not of kind
  // int, uint, bool or string, or two keys are equal (1 and 1u count as equal).
  static absl::StatusOr<Value> Map(std::vector<std::pair<Value, Value>> entries);
  // A map with string keys; cannot fail.
  static Value StringMap(const std::map<std::string, Value>& entries);
  static Value Timestamp(absl::Time t);
  static Value Duration(absl::Duration d);
  // A type value, named as CEL names types: "int", "list", "map", "null_type", "type",
  // "google.protobuf.Timestamp" ...
  static Value Type(std::string name) { return Value(Kind::kType, std::move(name)); }
  // An error value carrying `message`.
  static Value Error(std::string message) { return Value(Kind::kError, std::move(message)); }

  // JSON text (RFC 8259) as a Value: objects -> maps with string keys, arrays -> lists,
  // strings -> strings, true/false -> bool, null -> null, numbers without fraction or
  // exponent that fit int64 -> int, other numbers -> double. Fails (InvalidArgument) on
  // malformed JSON, invalid UTF-8, duplicate object keys, or nesting deeper than 100.
  static absl::StatusOr<Value> FromJson(std::string_view json);

  Kind kind() const { return kind_; }
  bool is_null() const { return kind_ == Kind::kNull; }
  bool is_error() const { return kind_ == Kind::kError; }

  // Accessors; each requires the matching kind.
  bool bool_value() const { return std::get<bool>(rep_); }
  int64_t int_value() const { return std::get<int64_t>(rep_); }
  uint64_t uint_value() const { return std::get<uint64_t>(rep_); }
  double double_value() const { return std::get<double>(rep_); }
  // kString, kBytes, kType (the name) and kError (the message).
  const std::string& str() const { return *std::get<std::shared_ptr<const std::string>>(rep_); }
  const std::vector<Value>& list() const {
    return *std::get<std::shared_ptr<const std::vector<Value>>>(rep_);
  }
  const MapValue& map() const { return *std::get<std::shared_ptr<const MapValue>>(rep_); }
  absl::Time timestamp_value() const { return std::get<absl::Time>(rep_); }
  absl::Duration duration_value() const { return std::get<absl::Duration>(rep_); }

  // Bytes of heap storage that this handle alone refers to: a string, bytes, list or map
  // (its top level) that no other Value shares. So, right after a function returns it, what
  // building it allocated: 0 when the result is (part of) an argument, or a scalar. The
  // evaluator charges this to the evaluation's memory budget.
  size_t UnsharedBytes() const;

  // CEL text for the value, for messages and tests: 1, 2u, 3.5, 'a', b'\x00', [1, 'a'],
  // {'k': 1}, timestamp('2026-12-24T00:00:00Z'), duration('3600s'), int, error('...').
  std::string DebugString() const;

 private:
  Value(Kind kind, std::string s)
      : kind_(kind), rep_(std::make_shared<const std::string>(std::move(s))) {}

  Kind kind_ = Kind::kNull;
  std::variant<std::monostate, bool, int64_t, uint64_t, double, absl::Time, absl::Duration,
               std::shared_ptr<const std::string>, std::shared_ptr<const std::vector<Value>>,
               std::shared_ptr<const MapValue>>
      rep_;
};

// The CEL name of a kind's type: "int", "list", "google.protobuf.Timestamp", "error" ...
const char* KindName(Value::Kind kind);

// CEL equality (`==`): numbers compare by mathematical value across int, uint and double
// (NaN equals nothing); values of different non-numeric kinds are unequal; lists and maps
// compare element by element. Errors compare unequal to everything; callers propagate
// errors before asking.
bool Equal(const Value& a, const Value& b);

class MapValue {
 public:
  size_t size() const { return entries_.size(); }
  // In the order the map was built (JSON order, literal order).
  const std::vector<std::pair<Value, Value>>& entries() const { return entries_; }
  // The value under `key`, or nullptr when absent. Numeric keys match by value: an int,
  // uint or integral double finds an int or uint key equal to it.
  const Value* Find(const Value& key) const;
  const Value* Find(std::string_view key) const;

 private:
  friend class Value;
  // Canonical form of a key: numbers by value, so that 1, 1u and 1.0 collide.
  struct KeyRep {
    int tag = 0;  // 0 bool, 1 negative int, 2 non-negative number, 3 string
    uint64_t num = 0;
    std::string str;
    bool operator==(const KeyRep& o) const { return tag == o.tag && num == o.num && str == o.str; }
  };
  struct KeyHash {
    size_t operator()(const KeyRep& k) const;
  };
  // False when `key` cannot be a map key (or is a double without an integral value).
  static bool ToKeyRep(const Value& key, KeyRep* rep);

  std::vector<std::pair<Value, Value>> entries_;
  std::unordered_map<KeyRep, size_t, KeyHash> index_;
};

}  // namespace cub::cel

#endif  // CUB_LIB_CEL_VALUE_H_
