// Operators: arithmetic, comparison, equality, indexing, `in`, and size().

#include <cmath>
#include <limits>

#include "absl/strings/str_cat.h"
#include "lib/cel/functions.h"
#include "lib/cel/numbers.h"
#include "lib/cel/time_util.h"
#include "lib/util/utf8.h"

namespace cub::cel::internal {

namespace {

using K = Value::Kind;

Value Overflow() { return Value::Error("integer overflow"); }

Value TooBig() {
  return Value::Error(absl::StrCat("result too large (limit ", kMaxConcatBytes, " bytes, ",
                                   kMaxListSize, " list elements)"));
}

Value CheckedTimestamp(absl::Time t) {
  if (!TimestampInRange(t)) {
    return Value::Error("range error: timestamp outside 0001-01-01..9999-12-31");
  }
  return Value::Timestamp(t);
}

Value CheckedDuration(absl::Duration d) {
  if (!DurationInRange(d)) return Value::Error("range error: duration outside +-292 years");
  return Value::Duration(d);
}

Value Add(const CallArgs& c, const Value& a, const Value& b) {
  if (a.kind() == K::kTimestamp && b.kind() == K::kDuration) {
    return CheckedTimestamp(a.timestamp_value() + b.duration_value());
  }
  if (a.kind() == K::kDuration && b.kind() == K::kTimestamp) {
    return CheckedTimestamp(b.timestamp_value() + a.duration_value());
  }
  if (a.kind() != b.kind()) return NoOverload(c);
  switch (a.kind()) {
    case K::kInt: {
      int64_t r;
      if (__builtin_add_overflow(a.int_value(), b.int_value(), &r)) return Overflow();
      return Value::Int(r);
    }
    case K::kUint: {
      uint64_t r;
      if (__builtin_add_overflow(a.uint_value(), b.uint_value(), &r)) return Overflow();
      return Value::Uint(r);
    }
    case K::kDouble:
      return Value::Double(a.double_value() + b.double_value());
    case K::kString:
    case K::kBytes: {
      if (a.str().size() + b.str().size() > kMaxConcatBytes) return TooBig();
      std::string s = absl::StrCat(a.str(), b.str());
      return a.kind() == K::kString ? Value::String(std::move(s)) : Value::Bytes(std::move(s));
    }
    case K::kList: {
      if (a.list().size() + b.list().size() > kMaxListSize) return TooBig();
      std::vector<Value> out = a.list();
      out.insert(out.end(), b.list().begin(), b.list().end());
      return Value::List(std::move(out));
    }
    case K::kDuration:
      return CheckedDuration(a.duration_value() + b.duration_value());
    default:
      return NoOverload(c);
  }
}

Value Sub(const CallArgs& c, const Value& a, const Value& b) {
  if (a.kind() == K::kTimestamp && b.kind() == K::kDuration) {
    return CheckedTimestamp(a.timestamp_value() - b.duration_value());
  }
  if (a.kind() != b.kind()) return NoOverload(c);
  switch (a.kind()) {
    case K::kInt: {
      int64_t r;
      if (__builtin_sub_overflow(a.int_value(), b.int_value(), &r)) return Overflow();
      return Value::Int(r);
    }
    case K::kUint: {
      uint64_t r;
      if (__builtin_sub_overflow(a.uint_value(), b.uint_value(), &r)) return Overflow();
      return Value::Uint(r);
    }
    case K::kDouble:
      return Value::Double(a.double_value() - b.double_value());
    case K::kTimestamp:
      return CheckedDuration(a.timestamp_value() - b.timestamp_value());
    case K::kDuration:
      return CheckedDuration(a.duration_value() - b.duration_value());
    default:
      return NoOverload(c);
  }
}

Value MulDivMod(const CallArgs& c, char op, const Value& a, const Value& b) {
  if (a.kind() != b.kind()) return NoOverload(c);
  switch (a.kind()) {
    case K::kInt: {
      int64_t x = a.int_value(), y = b.int_value(), r;
      if (op == '*') {
        if (__builtin_mul_overflow(x, y, &r)) return Overflow();
        return Value::Int(r);
      }
      if (y == 0) return Value::Error(op == '/' ? "division by zero" : "modulus by zero");
      if (x == std::numeric_limits<int64_t>::min() && y == -1) return Overflow();
      return Value::Int(op == '/' ? x / y : x % y);
    }
    case K::kUint: {
      uint64_t x = a.uint_value(), y = b.uint_value(), r;
      if (op == '*') {
        if (__builtin_mul_overflow(x, y, &r)) return Overflow();
        return Value::Uint(r);
      }
      if (y == 0) return Value::Error(op == '/' ? "division by zero" : "modulus by zero");
      return Value::Uint(op == '/' ? x / y : x % y);
    }
    case K::kDouble:
      if (op == '*') return Value::Double(a.double_value() * b.double_value());
      if (op == '/') return Value::Double(a.double_value() / b.double_value());
      return NoOverload(c);
    default:
      return NoOverload(c);
  }
}

bool IsNumber(K k) { return k == K::kInt || k == K::kUint || k == K::kDouble; }

// -1, 0, 1, kUnordered, or nullopt when the kinds cannot be ordered.
std::optional<int> Order(const Value& a, const Value& b) {
  if (IsNumber(a.kind()) && IsNumber(b.kind())) return CompareNumbers(a, b);
  if (a.kind() != b.kind()) return std::nullopt;
  auto cmp = [](auto x, auto y) { return x < y ? -1 : (y < x ? 1 : 0); };
  switch (a.kind()) {
    case K::kBool:
      return cmp(a.bool_value(), b.bool_value());
    case K::kString:
    case K::kBytes: {
      int r = a.str().compare(b.str());  // bytewise unsigned: code point order for UTF-8
      return r < 0 ? -1 : (r > 0 ? 1 : 0);
    }
    case K::kTimestamp:
      return cmp(a.timestamp_value(), b.timestamp_value());
    case K::kDuration:
      return cmp(a.duration_value(), b.duration_value());
    default:
      return std::nullopt;
  }
}

Value Index(const CallArgs& c, const Value& a, const Value& i) {
  if (a.kind() == K::kList) {
    int64_t idx;
    switch (i.kind()) {
      case K::kInt:
        idx = i.int_value();
        break;
      case K::kUint:
        if (i.uint_value() > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
          idx = -1;
        } else {
          idx = static_cast<int64_t>(i.uint_value());
        }
        break;
      case K::kDouble: {
        double d = i.double_value();
        if (!(std::trunc(d) == d && std::fabs(d) < 9.2e18)) {
          return Value::Error(absl::StrCat("invalid list index ", i.DebugString()));
        }
        idx = static_cast<int64_t>(d);
        break;
      }
      default:
        return NoOverload(c);
    }
    if (idx < 0 || static_cast<uint64_t>(idx) >= a.list().size()) {
      return Value::Error(absl::StrCat("index out of range: ", i.DebugString(), " (list size ",
                                       a.list().size(), ")"));
    }
    return a.list()[idx];
  }
  if (a.kind() == K::kMap) {
    const Value* v = a.map().Find(i);
    if (v == nullptr) return Value::Error(absl::StrCat("no such key: ", i.DebugString()));
    return *v;
  }
  return NoOverload(c);
}

Value In(const CallArgs& c, const Value& x, const Value& container) {
  if (container.kind() == K::kList) {
    for (const Value& e : container.list()) {
      if (Equal(x, e)) return Value::Bool(true);
    }
    return Value::Bool(false);
  }
  if (container.kind() == K::kMap) return Value::Bool(container.map().Find(x) != nullptr);
  return NoOverload(c);
}

Value Size(const CallArgs& c, const Value& a) {
  switch (a.kind()) {
    case K::kString:
      return Value::Int(static_cast<int64_t>(cub::CodePointCount(a.str())));
    case K::kBytes:
      return Value::Int(static_cast<int64_t>(a.str().size()));
    case K::kList:
      return Value::Int(static_cast<int64_t>(a.list().size()));
    case K::kMap:
      return Value::Int(static_cast<int64_t>(a.map().size()));
    default:
      return NoOverload(c);
  }
}

}  // namespace

Value CallOperator(const CallArgs& c, bool* handled) {
  *handled = true;
  const std::string& f = c.function;
  const std::vector<Value>& v = c.values;
  if (f == "size" && v.size() == 1) return Size(c, v[0]);
  if (c.receiver) {
    *handled = false;
    return Value();
  }
  if (v.size() == 1) {
    if (f == "!_") return v[0].kind() == K::kBool ? Value::Bool(!v[0].bool_value()) : NoOverload(c);
    if (f == "-_") {
      if (v[0].kind() == K::kInt) {
        if (v[0].int_value() == std::numeric_limits<int64_t>::min()) return Overflow();
        return Value::Int(-v[0].int_value());
      }
      if (v[0].kind() == K::kDouble) return Value::Double(-v[0].double_value());
      return NoOverload(c);
    }
  }
  if (v.size() == 2) {
    const Value& a = v[0];
    const Value& b = v[1];
    if (f == "_+_") return Add(c, a, b);
    if (f == "_-_") return Sub(c, a, b);
    if (f == "_*_") return MulDivMod(c, '*', a, b);
    if (f == "_/_") return MulDivMod(c, '/', a, b);
    if (f == "_%_") return MulDivMod(c, '%', a, b);
    if (f == "_==_") return Value::Bool(Equal(a, b));
    if (f == "_!=_") return Value::Bool(!Equal(a, b));
    if (f == "_[_]") return Index(c, a, b);
    if (f == "@in") return In(c, a, b);
    if (f == "_<_" || f == "_<=_" || f == "_>_" || f == "_>=_") {
      std::optional<int> o = Order(a, b);
      if (!o) return NoOverload(c);
      int r = *o;
      if (r == kUnordered) return Value::Bool(false);
      if (f == "_<_") return Value::Bool(r < 0);
      if (f == "_<=_") return Value::Bool(r <= 0);
      if (f == "_>_") return Value::Bool(r > 0);
      return Value::Bool(r >= 0);
    }
  }
  static const char* const kOps[] = {"!_",   "-_",   "_+_", "_-_", "_*_",  "_/_", "_%_",  "_==_",
                                     "_!=_", "_[_]", "@in", "_<_", "_<=_", "_>_", "_>=_", "size"};
  for (const char* op : kOps) {
    if (f == op) return NoOverload(c);
  }
  *handled = false;
  return Value();
}

}  // namespace cub::cel::internal
