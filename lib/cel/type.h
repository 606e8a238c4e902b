// Static types of the CEL subset: what Declarations give variables and what the checker
// infers for every subexpression. Dyn stands for "known only at evaluation" (JSON-like values
// from the API are Dyn); every other type is exact. A type parameter (Param) appears only in
// the checker's overload signatures, never in a checked program.
//
// Plain value type: copyable, immutable, thread-safe.

#ifndef CUB_LIB_CEL_TYPE_H_
#define CUB_LIB_CEL_TYPE_H_

#include <memory>
#include <string>
#include <vector>

namespace cub::cel {

class Type {
 public:
  enum class Kind {
    kDyn,
    kNull,
    kBool,
    kInt,
    kUint,
    kDouble,
    kString,
    kBytes,
    kList,       // one parameter: the element type
    kMap,        // two parameters: key and value types
    kTimestamp,  // google.protobuf.Timestamp
    kDuration,   // google.protobuf.Duration
    kType,       // the type of type values (`int`, `type(x)`)
    kParam,      // overload signatures only
  };

  Type() = default;  // Dyn

  static Type Dyn() { return Type(Kind::kDyn); }
  static Type Null() { return Type(Kind::kNull); }
  static Type Bool() { return Type(Kind::kBool); }
  static Type Int() { return Type(Kind::kInt); }
  static Type Uint() { return Type(Kind::kUint); }
  static Type Double() { return Type(Kind::kDouble); }
  static Type String() { return Type(Kind::kString); }
  static Type Bytes() { return Type(Kind::kBytes); }
  static Type Timestamp() { return Type(Kind::kTimestamp); }
  static Type Duration() { return Type(Kind::kDuration); }
  static Type TypeType() { return Type(Kind::kType); }
  static Type List(Type elem);
  static Type Map(Type key, Type value);
  static Type Param(std::string name);

  Kind kind() const { return kind_; }
  bool is_dyn() const { return kind_ == Kind::kDyn; }
  // Element type of a list; Dyn for other kinds.
  const Type& elem() const;
  // Key and value types of a map; Dyn for other kinds.
  const Type& key() const;
  const Type& value() const;
  // Name of a kParam.
  const std::string& param_name() const { return name_; }

  // "int", "list(string)", "map(string, dyn)", "google.protobuf.Timestamp" ...
  std::string DebugString() const;

  friend bool operator==(const Type& a, const Type& b);
  friend bool operator!=(const Type& a, const Type& b) { return !(a == b); }

 private:
  explicit Type(Kind kind) : kind_(kind) {}

  Kind kind_ = Kind::kDyn;
  std::shared_ptr<const std::vector<Type>> params_;  // kList: 1, kMap: 2
  std::string name_;                                 // kParam
};

}  // namespace cub::cel

#endif  // CUB_LIB_CEL_TYPE_H_
