#include "lib/cel/checker.h"

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "lib/cel/overloads.h"

namespace cub::cel::internal {

namespace {

using Bindings = std::map<std::string, Type>;

// The most specific type both `a` and `b` belong to, or nullopt when they are incompatible.
// null joins with anything (it is the absent value of JSON-like data).
std::optional<Type> Join(const Type& a, const Type& b) {
  if (a.is_dyn() || b.is_dyn()) return Type::Dyn();
  if (a.kind() == Type::Kind::kNull) return b;
  if (b.kind() == Type::Kind::kNull) return a;
  if (a.kind() != b.kind()) return std::nullopt;
  if (a.kind() == Type::Kind::kList) {
    std::optional<Type> e = Join(a.elem(), b.elem());
    if (!e) return std::nullopt;
    return Type::List(*e);
  }
  if (a.kind() == Type::Kind::kMap) {
    std::optional<Type> k = Join(a.key(), b.key());
    std::optional<Type> v = Join(a.value(), b.value());
    if (!k || !v) return std::nullopt;
    return Type::Map(*k, *v);
  }
  return a;
}

// Whether an argument of type `arg` fits parameter `param`, binding type parameters.
bool Unify(const Type& param, const Type& arg, Bindings* b) {
  if (param.kind() == Type::Kind::kParam) {
    auto it = b->find(param.param_name());
    if (it == b->end()) {
      b->emplace(param.param_name(), arg);
      return true;
    }
    std::optional<Type> j = Join(it->second, arg);
    if (!j) return false;
    it->second = *j;
    return true;
  }
  if (param.is_dyn() || arg.is_dyn()) return true;
  if (param.kind() != arg.kind()) return false;
  if (param.kind() == Type::Kind::kList) return Unify(param.elem(), arg.elem(), b);
  if (param.kind() == Type::Kind::kMap) {
    return Unify(param.key(), arg.key(), b) && Unify(param.value(), arg.value(), b);
  }
  return true;
}

Type Substitute(const Type& t, const Bindings& b) {
  switch (t.kind()) {
    case Type::Kind::kParam: {
      auto it = b.find(t.param_name());
      return it == b.end() ? Type::Dyn() : it->second;
    }
    case Type::Kind::kList:
      return Type::List(Substitute(t.elem(), b));
    case Type::Kind::kMap:
      return Type::Map(Substitute(t.key(), b), Substitute(t.value(), b));
    default:
      return t;
  }
}

bool IsBoolish(const Type& t) { return t.is_dyn() || t.kind() == Type::Kind::kBool; }

Type LiteralType(const Value& v) {
  switch (v.kind()) {
    case Value::Kind::kNull:
      return Type::Null();
    case Value::Kind::kBool:
      return Type::Bool();
    case Value::Kind::kInt:
      return Type::Int();
    case Value::Kind::kUint:
      return Type::Uint();
    case Value::Kind::kDouble:
      return Type::Double();
    case Value::Kind::kString:
      return Type::String();
    case Value::Kind::kBytes:
      return Type::Bytes();
    default:
      return Type::Dyn();
  }
}

class Checker {
 public:
  explicit Checker(const Source& source) : source_(source) {}

  absl::Status Check(Expr& e) {
    absl::Status st;
    for (size_t i = 0; i < e.args.size() && st.ok(); ++i) {
      if (e.kind == Expr::Kind::kComprehension && i == 1) break;  // needs the scope first
      st = Check(*e.args[i]);
    }
    if (!st.ok()) return st;
    switch (e.kind) {
      case Expr::Kind::kLiteral:
        e.type = LiteralType(e.literal);
        return absl::OkStatus();
      case Expr::Kind::kIdent:
        return Ident(e);
      case Expr::Kind::kSelect:
        return Select(e);
      case Expr::Kind::kList:
        return List(e);
      case Expr::Kind::kMap:
        return Map(e);
      case Expr::Kind::kComprehension:
        return Comprehension(e);
      case Expr::Kind::kCall:
        return Call(e);
    }
    return absl::OkStatus();
  }

 private:
  absl::Status Error(const Expr& e, std::string_view msg) { return source_.Error(e.offset, msg); }

  absl::Status Ident(Expr& e) {
    switch (e.ref) {
      case Expr::Ref::kLocal:
        for (auto it = locals_.rbegin(); it != locals_.rend(); ++it) {
          if (it->first == e.name) {
            e.type = it->second;
            return absl::OkStatus();
          }
        }
        e.type = Type::Dyn();
        return absl::OkStatus();
      case Expr::Ref::kVariable:
        e.type = e.declared_type;
        return absl::OkStatus();
      case Expr::Ref::kTypeName:
        e.type = Type::TypeType();
        return absl::OkStatus();
      case Expr::Ref::kUnresolved:
        break;
    }
    return Error(e, absl::StrCat("undeclared reference to '", e.name, "'"));
  }

  absl::Status Select(Expr& e) {
    const Type& t = e.args[0]->type;
    bool map_like = t.is_dyn() || (t.kind() == Type::Kind::kMap &&
                                   (t.key().is_dyn() || t.key().kind() == Type::Kind::kString));
    if (!map_like) {
      return Error(e, absl::StrCat(e.test_only ? "has() does not apply to" : "field selection on",
                                   " type '", t.DebugString(), "'"));
    }
    e.type = e.test_only ? Type::Bool() : t.value();
    return absl::OkStatus();
  }

  absl::Status List(Expr& e) {
    std::optional<Type> elem;
    for (const auto& a : e.args) {
      if (!elem) {
        elem = a->type;
      } else {
        elem = Join(*elem, a->type);
        if (!elem) elem = Type::Dyn();
      }
    }
    e.type = Type::List(elem && elem->kind() != Type::Kind::kNull ? *elem : Type::Dyn());
    return absl::OkStatus();
  }

  absl::Status Map(Expr& e) {
    std::optional<Type> key, value;
    auto join = [](std::optional<Type>& acc, const Type& t) {
      acc = acc ? Join(*acc, t) : std::optional<Type>(t);
      if (!acc) acc = Type::Dyn();
    };
    for (size_t i = 0; i < e.args.size(); i += 2) {
      const Expr& k = *e.args[i];
      switch (k.type.kind()) {
        case Type::Kind::kDyn:
        case Type::Kind::kInt:
        case Type::Kind::kUint:
        case Type::Kind::kBool:
        case Type::Kind::kString:
          break;
        default:
          return Error(k, absl::StrCat("unsupported map key type '", k.type.DebugString(),
                                       "' (want int, uint, bool or string)"));
      }
      join(key, k.type);
      join(value, e.args[i + 1]->type);
    }
    auto known = [](const std::optional<Type>& t) {
      return t && t->kind() != Type::Kind::kNull ? *t : Type::Dyn();
    };
    e.type = Type::Map(known(key), known(value));
    return absl::OkStatus();
  }

  absl::Status Comprehension(Expr& e) {
    static const char* const kNames[] = {"all", "exists", "exists_one", "map", "filter"};
    const char* name = kNames[static_cast<int>(e.macro)];
    const Type& range = e.args[0]->type;
    Type var;
    switch (range.kind()) {
      case Type::Kind::kList:
        var = range.elem();
        break;
      case Type::Kind::kMap:
        var = range.key();
        break;
      case Type::Kind::kDyn:
        break;
      default:
        return Error(e,
                     absl::StrCat(name, "() needs a list or map, got '", range.DebugString(), "'"));
    }
    locals_.emplace_back(e.iter_var, var);
    absl::Status st;
    for (size_t i = 1; i < e.args.size() && st.ok(); ++i) st = Check(*e.args[i]);
    locals_.pop_back();
    if (!st.ok()) return st;
    bool predicate = e.macro != Expr::Macro::kMap;
    if (predicate && !IsBoolish(e.args[1]->type)) {
      return Error(*e.args[1], absl::StrCat("the condition of ", name, "() must be bool, got '",
                                            e.args[1]->type.DebugString(), "'"));
    }
    if (e.args.size() == 3 && !IsBoolish(e.args[2]->type)) {
      return Error(*e.args[2], absl::StrCat("the filter of map() must be bool, got '",
                                            e.args[2]->type.DebugString(), "'"));
    }
    switch (e.macro) {
      case Expr::Macro::kMap:
        e.type = Type::List(e.args[1]->type);
        break;
      case Expr::Macro::kFilter:
        e.type = Type::List(var);
        break;
      default:
        e.type = Type::Bool();
    }
    return absl::OkStatus();
  }

  absl::Status Call(Expr& e) {
    const std::vector<Signature>& sigs = SignaturesOf(e.name);
    bool any_style = false;
    std::optional<Type> result;
    for (const Signature& sig : sigs) {
      if (sig.receiver != e.receiver) continue;
      any_style = true;
      if (sig.params.size() != e.args.size()) continue;
      Bindings b;
      bool ok = true;
      for (size_t i = 0; i < e.args.size() && ok; ++i)
        ok = Unify(sig.params[i], e.args[i]->type, &b);
      if (!ok) continue;
      Type r = Substitute(sig.result, b);
      result = !result ? r : (*result == r ? r : Type::Dyn());
    }
    if (!any_style) {
      return Error(e, absl::StrCat("undeclared reference to '", e.name, "'"));
    }
    if (!result) {
      std::vector<std::string> types;
      for (size_t i = e.receiver ? 1 : 0; i < e.args.size(); ++i) {
        types.push_back(e.args[i]->type.DebugString());
      }
      std::string recv = e.receiver ? absl::StrCat(e.args[0]->type.DebugString(), ".") : "";
      return Error(e, absl::StrCat("no matching overload for '", e.name, "' applied to ", recv, "(",
                                   absl::StrJoin(types, ", "), ")"));
    }
    e.type = *result;
    return absl::OkStatus();
  }

  const Source& source_;
  std::vector<std::pair<std::string, Type>> locals_;
};

}  // namespace

absl::StatusOr<Type> Check(Expr& root, const Source& source) {
  absl::Status st = Checker(source).Check(root);
  if (!st.ok()) return st;
  return root.type;
}

}  // namespace cub::cel::internal
