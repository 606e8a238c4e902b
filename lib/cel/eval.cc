#include "lib/cel/eval.h"

#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "lib/cel/functions.h"
#include "lib/util/utf8.h"

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

// Builtins whose work does not grow with their arguments' size: they are charged one step.
bool ConstantCost(const std::string& fn, const std::vector<Value>& args) {
  if (fn == "_[_]" || fn == "type" || fn == "dyn") return true;
  return fn == "@in" && args.size() == 2 && args[1].kind() == K::kMap;
}

// Steps for reading `v`: its elements, or 1 per 64 bytes.
int64_t ReadCost(const Value& v) {
  switch (v.kind()) {
    case K::kString:
    case K::kBytes:
      return static_cast<int64_t>(v.str().size() / 64);
    case K::kList:
      return static_cast<int64_t>(v.list().size());
    case K::kMap:
      return static_cast<int64_t>(v.map().size());
    default:
      return 0;
  }
}

// The bytes `_+_` is about to allocate for `a` + `b`, so that an allocation over the budget is
// refused before it is made.
int64_t ConcatBytes(const Value& a, const Value& b) {
  if (a.kind() != b.kind()) return 0;
  if (a.kind() == K::kString || a.kind() == K::kBytes) {
    return static_cast<int64_t>(a.str().size() + b.str().size());
  }
  if (a.kind() == K::kList) {
    return static_cast<int64_t>((a.list().size() + b.list().size()) * sizeof(Value));
  }
  return 0;
}

std::string FormatBytes(int64_t n) {
  if (n > 0 && n % (int64_t{1} << 20) == 0) return absl::StrCat(n >> 20, " MiB");
  if (n > 0 && n % (int64_t{1} << 10) == 0) return absl::StrCat(n >> 10, " KiB");
  return absl::StrCat(n, " bytes");
}

// Error messages quote values; a message longer than this is cut (its start says what failed).
constexpr size_t kMaxErrorBytes = 1024;

class Evaluator {
 public:
  Evaluator(const Source& source, const Activation& vars, const EvaluateOptions& options)
      : source_(source), vars_(vars), options_(options) {}

  // Why evaluation stopped early, or OK.
  absl::Status budget_status() const {
    switch (exhausted_) {
      case Exhausted::kNo:
        return absl::OkStatus();
      case Exhausted::kCost:
        return absl::ResourceExhaustedError(
            absl::StrCat("exceeded its cost budget of ", options_.max_cost, " steps"));
      case Exhausted::kMemory:
        return absl::ResourceExhaustedError(
            absl::StrCat("exceeded its memory budget of ", FormatBytes(options_.max_memory_bytes)));
    }
    return absl::OkStatus();
  }

  Value Eval(const Expr& e) {
    if (!Spend(1)) return Stopped();
    switch (e.kind) {
      case Expr::Kind::kLiteral:
        return e.literal;
      case Expr::Kind::kIdent:
        return Ident(e);
      case Expr::Kind::kSelect:
        return Select(e);
      case Expr::Kind::kList: {
        if (!Allocate(static_cast<int64_t>(e.args.size() * sizeof(Value)))) return Stopped();
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
        if (!Allocate(static_cast<int64_t>(e.args.size() * (sizeof(Value) + 64)))) {
          return Stopped();
        }
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
  enum class Exhausted { kNo, kCost, kMemory };

  // Counts `steps` against the cost budget; false once any budget is spent.
  bool Spend(int64_t steps) {
    if (exhausted_ != Exhausted::kNo) return false;
    cost_ += steps;
    if (cost_ <= options_.max_cost) return true;
    exhausted_ = Exhausted::kCost;
    return false;
  }
  // Counts `bytes` about to be (or just) allocated against the memory budget.
  bool Allocate(int64_t bytes) {
    if (exhausted_ != Exhausted::kNo) return false;
    memory_ += bytes;
    if (memory_ <= options_.max_memory_bytes) return true;
    exhausted_ = Exhausted::kMemory;
    return false;
  }
  // The value returned once a budget is spent: an error that EvaluateTree replaces by
  // budget_status(), whatever absorbed it on the way up.
  static Value Stopped() { return Value::Error("evaluation budget exceeded"); }

  template <typename Msg>
  Value Fail(const Expr& e, const Msg& msg) {
    std::string text = absl::StrCat(source_.Location(e.offset), ": ", msg);
    if (text.size() > kMaxErrorBytes) {
      text.resize(Utf8CutPoint(text, kMaxErrorBytes));  // on a UTF-8 character boundary
      text += "...";
    }
    if (!Allocate(static_cast<int64_t>(text.size()))) return Stopped();
    return Value::Error(std::move(text));
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
    int64_t steps = 0;
    if (!ConstantCost(e.name, values)) {
      for (const Value& v : values) steps += ReadCost(v);
    }
    if (!Spend(steps)) return Stopped();
    if (e.name == "_+_" && values.size() == 2 && !Allocate(ConcatBytes(values[0], values[1]))) {
      return Stopped();
    }
    Value r = CallBuiltin(CallArgs{e.name, e.receiver, values, e.regex.get()});
    if (r.is_error()) return Fail(e, r.str());
    // What the builtin built (0 when it returned an argument or a part of one); a
    // concatenation was charged above.
    if (e.name != "_+_" && !Allocate(static_cast<int64_t>(r.UnsharedBytes()))) return Stopped();
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
      if (!Allocate(static_cast<int64_t>(range.map().size() * sizeof(Value)))) return Stopped();
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
      if (exhausted_ != Exhausted::kNo) return Stopped();
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
          if (v.bool_value()) {
            if (!Allocate(sizeof(Value))) return Stopped();
            out.push_back(elem);
          }
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
          if (!Allocate(sizeof(Value))) return Stopped();
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
  const EvaluateOptions& options_;
  std::vector<std::pair<const std::string*, Value>> locals_;
  int64_t iterations_ = 0;
  int64_t cost_ = 0;
  int64_t memory_ = 0;
  Exhausted exhausted_ = Exhausted::kNo;
};

}  // namespace

absl::StatusOr<Value> EvaluateTree(const Expr& root, const Source& source, const Activation& vars,
                                   const EvaluateOptions& options) {
  Evaluator evaluator(source, vars, options);
  Value v = evaluator.Eval(root);
  if (absl::Status st = evaluator.budget_status(); !st.ok()) return st;
  return v;
}

}  // namespace cub::cel::internal
