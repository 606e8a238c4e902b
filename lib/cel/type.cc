#include "lib/cel/type.h"

#include <utility>

#include "absl/strings/str_cat.h"

namespace cub::cel {

namespace {
const Type& DynType() {
  static const Type* t = new Type();
  return *t;
}
}  // namespace

Type Type::List(Type elem) {
  Type t(Kind::kList);
  t.params_ = std::make_shared<const std::vector<Type>>(std::vector<Type>{std::move(elem)});
  return t;
}

Type Type::Map(Type key, Type value) {
  Type t(Kind::kMap);
  t.params_ = std::make_shared<const std::vector<Type>>(
      std::vector<Type>{std::move(key), std::move(value)});
  return t;
}

Type Type::Param(std::string name) {
  Type t(Kind::kParam);
  t.name_ = std::move(name);
  return t;
}

const Type& Type::elem() const { return kind_ == Kind::kList ? (*params_)[0] : DynType(); }
const Type& Type::key() const { return kind_ == Kind::kMap ? (*params_)[0] : DynType(); }
const Type& Type::value() const { return kind_ == Kind::kMap ? (*params_)[1] : DynType(); }

std::string Type::DebugString() const {
  switch (kind_) {
    case Kind::kDyn:
      return "dyn";
    case Kind::kNull:
      return "null_type";
    case Kind::kBool:
      return "bool";
    case Kind::kInt:
      return "int";
    case Kind::kUint:
      return "uint";
    case Kind::kDouble:
      return "double";
    case Kind::kString:
      return "string";
    case Kind::kBytes:
      return "bytes";
    case Kind::kList:
      return absl::StrCat("list(", elem().DebugString(), ")");
    case Kind::kMap:
      return absl::StrCat("map(", key().DebugString(), ", ", value().DebugString(), ")");
    case Kind::kTimestamp:
      return "google.protobuf.Timestamp";
    case Kind::kDuration:
      return "google.protobuf.Duration";
    case Kind::kType:
      return "type";
    case Kind::kParam:
      return name_;
  }
  return "?";
}

bool operator==(const Type& a, const Type& b) {
  if (a.kind_ != b.kind_) return false;
  switch (a.kind_) {
    case Type::Kind::kList:
      return a.elem() == b.elem();
    case Type::Kind::kMap:
      return a.key() == b.key() && a.value() == b.value();
    case Type::Kind::kParam:
      return a.name_ == b.name_;
    default:
      return true;
  }
}

}  // namespace cub::cel
