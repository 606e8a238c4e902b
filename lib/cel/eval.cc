#include "lib/cel/eval.h"

#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "lib/cel/functions.h"

namespace cub::cel::internal {

namespace {

using K = Value::Kind;

// Whether a value of kind `k` may be bound to a variable declared `t` (shallow check).
bool KindFits(const Type& t, K k) {
  switch (t.kind()) {
    case Type::Kind::kDyn:
    case Type::Kind::kParam:
      return true;
    case Type::Kind::kNull:
      return k == K::kNull;
    case Type::Kind::kBool:
      return k == K::kBool;
    case Type::Kind::kInt:
      return k == K::kInt;
    case Type::Kind::kUint:
      return k == K::kUint;
    case Type::Kind::kDouble:
      return k == K::kDouble;
    case Type::Kind::kString:
      return k == K::kString;
    case Type::Kind::kBytes:
      return k == K::kBytes;
    case Type::Kind::kList:
      return k == K::kList;
    case Type::Kind::kMap:
      return k == K::kMap;
    case Type::Kind::kTimestamp:
      return k == K::kTimestamp;
    case Type::Kind::kDuration:
      return k == K::kDuration;
    case Type::Kind::kType:
      return k == K::kType;
  }
  return false;
}

const char* MacroName(Expr::Macro m) {
  static const char* const kNames[] = {"all", "exists", "exists_one", "map", "filter"};
  return kNames[static_cast<int>(m)];
}

class Evaluator {
 public:
  Evaluator(const Source& source, const Activation& vars) : source_(source), vars_(vars) {}

  Value Eval(const Expr& e) {
    switch (e.kind) {
      case Expr::Kind::kLiteral:
        return e.literal;
      case Expr::Kind::kIdent:
        return Ident(e);
      case Expr::Kind::kSelect:
        return Select(e);
      case Expr::Kind::kList: {
        std::vector<Value> elems;
        elems.reserve(e.args.size());
        for (const auto& a : e.args) {
          Value v = Eval(*a);
          if (v.is_error()) return v;
          elems.push_back(std::move(v));
        }
        return Value::List(std::move(elems));
      }
      case Expr::Kind::kMap: {
        std::vector<std::pair<Value, Value>> entries;
        entries.reserve(e.args.size() / 2);
        for (size_t i = 0; i + 1 < e.args.size(); i += 2) {
          Value k = Eval(*e.args[i]);
          if (k.is_error()) return k;
          Value v = Eval(*e.args[i + 1]);
          if (v.is_error()) return v;
          entries.emplace_back(std::move(k), std::move(v));
        }
        absl::StatusOr<Value> m = Value::Map(std::move(entries));
        if (!m.ok()) return Fail(e, m.status().message());
        return *std::move(m);
      }
      case Expr::Kind::kComprehension:
        return Comprehension(e);
      case Expr::Kind::kCall:
        return Call(e);
    }
    return Fail(e, "unknown expression");
  }

 private:
  template <typename Msg>
  Value Fail(const Expr& e, const Msg& msg) {
    return Value::Error(absl::StrCat(source_.Location(e.offset), ": ", msg));
  }
  Value NotBool(const Expr& e, const char* what, const Value& v) {
    return Fail(e, absl::StrCat(what, " must be bool, got ", KindName(v.kind())));
  }

  Value Ident(const Expr& e) {
    switch (e.ref) {
      case Expr::Ref::kLocal:
        for (auto it = locals_.rbegin(); it != locals_.rend(); ++it) {
          if (*it->first == e.name) return it->second;
        }
        break;
      case Expr::Ref::kVariable: {
        const Value* v = vars_.Find(e.name);
        if (v == nullptr)
          return Fail(e, absl::StrCat("no value bound for variable '", e.name, "'"));
        if (!KindFits(e.declared_type, v->kind())) {
          return Fail(
              e, absl::StrCat("variable '", e.name, "' is declared ", e.declared_type.DebugString(),
                              " but bound to ", KindName(v->kind())));
        }
        return *v;
      }
      case Expr::Ref::kTypeName:
        return Value::Type(e.name);
      case Expr::Ref::kUnresolved:
        break;
    }
    return Fail(e, absl::StrCat("undeclared reference to '", e.name, "'"));
  }

  Value Select(const Expr& e) {
    Value operand = Eval(*e.args[0]);
    if (operand.is_error()) return operand;
    if (operand.kind() != K::kMap) {
      return Fail(e, absl::StrCat(e.test_only ? "has() does not apply to " : "field selection on ",
                                  KindName(operand.kind())));
    }
    const Value* v = operand.map().Find(e.name);
    if (e.test_only) return Value::Bool(v != nullptr);
    if (v == nullptr)
      return Fail(e, absl::StrCat("no such key: ", Value::String(e.name).DebugString()));
    return *v;
  }

  // &&, || and ?:, which do not evaluate (or need) every operand.
  Value Logical(const Expr& e, bool is_and) {
    const char* what = is_and ? "operand of &&" : "operand of ||";
    Value l = Eval(*e.args[0]);
    if (l.kind() == K::kBool && l.bool_value() != is_and) return l;  // false && _, true || _
    Value r = Eval(*e.args[1]);
    if (r.kind() == K::kBool && r.bool_value() != is_and) return r;
    if (l.is_error()) return l;
    if (r.is_error()) return r;
    if (l.kind() != K::kBool) return NotBool(*e.args[0], what, l);
    if (r.kind() != K::kBool) return NotBool(*e.args[1], what, r);
    return Value::Bool(is_and);
  }

  Value Call(const Expr& e) {
    if (e.name == "_&&_" && e.args.size() == 2) return Logical(e, true);
    if (e.name == "_||_" && e.args.size() == 2) return Logical(e, false);
    if (e.name == "_?_:_" && e.args.size() == 3) {
      Value c = Eval(*e.args[0]);
      if (c.is_error()) return c;
      if (c.kind() != K::kBool) return NotBool(*e.args[0], "condition of ?:", c);
      return Eval(*e.args[c.bool_value() ? 1 : 2]);
    }
    std::vector<Value> values;
    values.reserve(e.args.size());
    for (const auto& a : e.args) {
      Value v = Eval(*a);
      if (v.is_error()) return v;
      values.push_back(std::move(v));
    }
    Value r = CallBuiltin(CallArgs{e.name, e.receiver, values, e.regex.get()});
    if (r.is_error()) return Fail(e, r.str());
    return r;
  }

  Value Comprehension(const Expr& e) {
    Value range = Eval(*e.args[0]);
    if (range.is_error()) return range;
    std::vector<Value> keys;
    const std::vector<Value>* elems = nullptr;
    if (range.kind() == K::kList) {
      elems = &range.list();
    } else if (range.kind() == K::kMap) {
      keys.reserve(range.map().size());
      for (const auto& entry : range.map().entries()) keys.push_back(entry.first);
      elems = &keys;
    } else {
      return Fail(e, absl::StrCat(MacroName(e.macro), "() needs a list or map, got ",
                                  KindName(range.kind())));
    }
    locals_.emplace_back(&e.iter_var, Value());
    Value result = Loop(e, *elems);
    locals_.pop_back();
    return result;
  }

  Value Loop(const Expr& e, const std::vector<Value>& elems) {
    const Expr& body = *e.args[1];
    Value error;  // first error seen by all() / exists(), absorbed by a deciding element
    int64_t count = 0;
    std::vector<Value> out;
    for (const Value& elem : elems) {
      if (++iterations_ > kMaxIterations) {
        return Fail(e, absl::StrCat("evaluation exceeded ", kMaxIterations, " iterations"));
      }
      locals_.back().second = elem;
      switch (e.macro) {
        case Expr::Macro::kAll:
        case Expr::Macro::kExists: {
          bool deciding = e.macro == Expr::Macro::kExists;  // exists: true decides
          Value v = Eval(body);
          if (v.kind() == K::kBool) {
            if (v.bool_value() == deciding) return v;
          } else if (!error.is_error()) {
            error = v.is_error() ? v : NotBool(body, "condition", v);
          }
          break;
        }
        case Expr::Macro::kExistsOne: {
          Value v = Eval(body);
          if (v.is_error()) return v;
          if (v.kind() != K::kBool) return NotBool(body, "condition", v);
          if (v.bool_value()) ++count;
          break;
        }
        case Expr::Macro::kFilter: {
          Value v = Eval(body);
          if (v.is_error()) return v;
          if (v.kind() != K::kBool) return NotBool(body, "condition", v);
          if (v.bool_value()) out.push_back(elem);
          break;
        }
        case Expr::Macro::kMap: {
          if (e.args.size() == 3) {
            Value keep = Eval(*e.args[2]);
            if (keep.is_error()) return keep;
            if (keep.kind() != K::kBool) return NotBool(*e.args[2], "filter", keep);
            if (!keep.bool_value()) break;
          }
          Value v = Eval(body);
          if (v.is_error()) return v;
          out.push_back(std::move(v));
          break;
        }
      }
    }
    switch (e.macro) {
      case Expr::Macro::kAll:
        return error.is_error() ? error : Value::Bool(true);
      case Expr::Macro::kExists:
        return error.is_error() ? error : Value::Bool(false);
      case Expr::Macro::kExistsOne:
        return Value::Bool(count == 1);
      default:
        return Value::List(std::move(out));
    }
  }

  const Source& source_;
  const Activation& vars_;
  std::vector<std::pair<const std::string*, Value>> locals_;
  int64_t iterations_ = 0;
};

}  // namespace

Value EvaluateTree(const Expr& root, const Source& source, const Activation& vars) {
  return Evaluator(source, vars).Eval(root);
}

}  // namespace cub::cel::internal
