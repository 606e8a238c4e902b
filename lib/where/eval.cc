#include "lib/where/eval.h"

#include <algorithm>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/str_format.h"
#include "lib/util/utf8.h"
#include "lib/where/bind.h"
#include "lib/where/like.h"
#include "lib/where/regex.h"

namespace cub::where {
namespace {

using internal::BoundExpr;
using internal::BoundPredicate;
using internal::BoundValue;

absl::Status WrongValue(const BoundPredicate& p) {
  return absl::InternalError(absl::StrFormat("where: record value for field '%s' is not %s",
                                             p.field.name, TypeName(p.field.type)));
}

// The operand's value: the record's field, then its map key, then LEN of it.
absl::StatusOr<Value> OperandValue(const BoundPredicate& p, const Record& r) {
  Value v = r.Get(p.field);
  if (std::holds_alternative<std::monostate>(v)) return v;
  if (p.key) {
    const auto* m = std::get_if<std::map<std::string, std::string>>(&v);
    if (m == nullptr) return WrongValue(p);
    auto it = m->find(*p.key);
    if (it == m->end()) return Value();
    v = it->second;
  }
  if (p.len) {
    if (const auto* s = std::get_if<std::string>(&v)) {
      return Value(static_cast<int64_t>(cub::CodePointCount(*s)));
    }
    if (const auto* l = std::get_if<std::vector<std::string>>(&v)) {
      return Value(static_cast<int64_t>(l->size()));
    }
    return WrongValue(p);
  }
  return v;
}

// =, !=, <, <=, >, >=, IN, NOT IN over values projected by `get`.
template <typename T, typename Get>
bool Compare(const BoundPredicate& p, const T& a, Get get) {
  auto in = [&] {
    return std::any_of(p.values.begin(), p.values.end(),
                       [&](const BoundValue& v) { return a == get(v); });
  };
  switch (p.op) {
    case Op::kEq:
      return a == get(p.values[0]);
    case Op::kNe:
      return a != get(p.values[0]);
    case Op::kLt:
      return a < get(p.values[0]);
    case Op::kLe:
      return a <= get(p.values[0]);
    case Op::kGt:
      return a > get(p.values[0]);
    case Op::kGe:
      return a >= get(p.values[0]);
    case Op::kIn:
      return in();
    case Op::kNotIn:
      return !in();
    default:
      return false;
  }
}

absl::StatusOr<bool> MatchString(const BoundPredicate& p, const std::string& s) {
  switch (p.op) {
    case Op::kLike:
    case Op::kNotLike:
      return internal::LikeMatch(s, p.values[0].text, false) == (p.op == Op::kLike);
    case Op::kILike:
    case Op::kNotILike:
      return internal::LikeMatch(s, p.values[0].text, true) == (p.op == Op::kILike);
    case Op::kRegex:
    case Op::kIRegex:
    case Op::kNotRegex:
    case Op::kNotIRegex:
      // RE2 runs in time linear in the text and within the pattern's memory budget; the
      // case-insensitive forms were compiled so.
      return RE2::PartialMatch(s, *p.regex) == (p.op == Op::kRegex || p.op == Op::kIRegex);
    default:
      return Compare(p, s, [](const BoundValue& v) -> const std::string& { return v.text; });
  }
}

absl::StatusOr<bool> MatchPredicate(const BoundPredicate& p, const Record& r) {
  absl::StatusOr<Value> v = OperandValue(p, r);
  if (!v.ok()) return v.status();
  const bool null = std::holds_alternative<std::monostate>(*v);
  if (p.op == Op::kIsNull) return null;
  if (p.op == Op::kIsNotNull) return !null;
  if (null) return false;  // as SQL: a comparison with NULL is not true
  switch (p.type) {
    case FieldType::kString:
      if (const auto* s = std::get_if<std::string>(&*v)) return MatchString(p, *s);
      break;
    case FieldType::kInt:
      if (const auto* i = std::get_if<int64_t>(&*v)) {
        return Compare(p, *i, [](const BoundValue& b) { return b.number; });
      }
      break;
    case FieldType::kBool:
      if (const auto* b = std::get_if<bool>(&*v)) {
        return Compare(p, *b, [](const BoundValue& x) { return x.boolean; });
      }
      break;
    case FieldType::kTime:
      if (const auto* s = std::get_if<std::string>(&*v)) {
        absl::Time t;
        if (!internal::ParseRfc3339(*s, &t)) {
          return absl::InternalError(absl::StrFormat(
              "where: record value for field '%s' is not an RFC 3339 time", p.field.name));
        }
        return Compare(p, t, [](const BoundValue& b) { return b.time; });
      }
      break;
    case FieldType::kUuid:
      if (const auto* s = std::get_if<std::string>(&*v)) {
        return Compare(p, absl::AsciiStrToLower(*s),
                       [](const BoundValue& b) -> const std::string& { return b.text; });
      }
      break;
    case FieldType::kStringList:
      if (const auto* l = std::get_if<std::vector<std::string>>(&*v)) {
        return std::find(l->begin(), l->end(), p.values[0].text) != l->end();
      }
      break;
    case FieldType::kStringMap:
      break;  // only IS [NOT] NULL applies, handled above
  }
  return WrongValue(p);
}

absl::StatusOr<bool> Eval(const BoundExpr& e, const Record& r) {
  switch (e.kind) {
    case Expr::Kind::kTrue:
      return true;
    case Expr::Kind::kPredicate:
      return MatchPredicate(e.predicate, r);
    case Expr::Kind::kNot: {
      absl::StatusOr<bool> inner = Eval(e.children[0], r);
      if (!inner.ok()) return inner;
      return !*inner;
    }
    case Expr::Kind::kAnd:
    case Expr::Kind::kOr: {
      const bool is_and = e.kind == Expr::Kind::kAnd;
      for (const BoundExpr& c : e.children) {
        absl::StatusOr<bool> v = Eval(c, r);
        if (!v.ok()) return v;
        if (*v != is_and) return *v;  // false decides an AND, true an OR
      }
      return is_and;
    }
  }
  return false;
}

}  // namespace

absl::StatusOr<Matcher> Matcher::Create(const Expr& e, const Schema& schema) {
  absl::StatusOr<BoundExpr> b = internal::Bind(e, schema);
  if (!b.ok()) return b.status();
  return Matcher(std::make_shared<const BoundExpr>(*std::move(b)));
}

absl::StatusOr<bool> Matcher::Matches(const Record& record) const { return Eval(*bound_, record); }

absl::StatusOr<bool> Matches(const Expr& e, const Schema& schema, const Record& record) {
  absl::StatusOr<Matcher> m = Matcher::Create(e, schema);
  if (!m.ok()) return m.status();
  return m->Matches(record);
}

}  // namespace cub::where
