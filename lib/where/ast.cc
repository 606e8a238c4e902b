#include "lib/where/ast.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"

namespace cub::where {
namespace {

void CollectFields(const Expr& e, std::vector<std::string>* out) {
  if (e.kind == Expr::Kind::kPredicate) {
    const std::string& f = e.predicate.operand.field;
    if (std::find(out->begin(), out->end(), f) == out->end()) out->push_back(f);
  }
  for (const Expr& c : e.children) CollectFields(c, out);
}

std::string LiteralText(const Literal& lit) {
  if (const auto* s = std::get_if<std::string>(&lit.value)) {
    return absl::StrCat("'", absl::StrReplaceAll(*s, {{"'", "''"}}), "'");
  }
  if (const auto* i = std::get_if<int64_t>(&lit.value)) return absl::StrCat(*i);
  return std::get<bool>(lit.value) ? "true" : "false";
}

std::string PredicateText(const Predicate& p) {
  std::string out = p.operand.len ? absl::StrCat("LEN(", p.operand.field, ")") : p.operand.field;
  absl::StrAppend(&out, " ", OpText(p.op));
  if (p.op == Op::kIn || p.op == Op::kNotIn) {
    std::vector<std::string> items;
    for (const Literal& v : p.values) items.push_back(LiteralText(v));
    absl::StrAppend(&out, " (", absl::StrJoin(items, ", "), ")");
  } else if (!p.values.empty()) {
    absl::StrAppend(&out, " ", LiteralText(p.values[0]));
  }
  return out;
}

}  // namespace

const char* OpText(Op op) {
  switch (op) {
    case Op::kEq:
      return "=";
    case Op::kNe:
      return "!=";
    case Op::kLt:
      return "<";
    case Op::kLe:
      return "<=";
    case Op::kGt:
      return ">";
    case Op::kGe:
      return ">=";
    case Op::kIn:
      return "IN";
    case Op::kNotIn:
      return "NOT IN";
    case Op::kIsNull:
      return "IS NULL";
    case Op::kIsNotNull:
      return "IS NOT NULL";
    case Op::kContains:
      return "?";
    case Op::kLike:
      return "LIKE";
    case Op::kNotLike:
      return "NOT LIKE";
    case Op::kILike:
      return "ILIKE";
    case Op::kNotILike:
      return "NOT ILIKE";
    case Op::kRegex:
      return "~";
    case Op::kIRegex:
      return "~*";
    case Op::kNotRegex:
      return "!~";
    case Op::kNotIRegex:
      return "!~*";
  }
  return "?";
}

std::vector<std::string> FieldsUsed(const Expr& e) {
  std::vector<std::string> out;
  CollectFields(e, &out);
  return out;
}

std::string ToString(const Expr& e) {
  switch (e.kind) {
    case Expr::Kind::kTrue:
      return "";
    case Expr::Kind::kPredicate:
      return PredicateText(e.predicate);
    case Expr::Kind::kNot:
      return absl::StrCat("(NOT ", ToString(e.children[0]), ")");
    case Expr::Kind::kAnd:
    case Expr::Kind::kOr: {
      std::vector<std::string> parts;
      for (const Expr& c : e.children) parts.push_back(ToString(c));
      return absl::StrCat("(", absl::StrJoin(parts, e.kind == Expr::Kind::kAnd ? " AND " : " OR "),
                          ")");
    }
  }
  return "";
}

}  // namespace cub::where
