#include "lib/where/bind.h"

#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "lib/where/error.h"
#include "lib/where/like.h"
#include "lib/where/regex.h"

namespace cub::where::internal {
namespace {

bool IsPattern(Op op) {
  return op == Op::kLike || op == Op::kNotLike || op == Op::kILike || op == Op::kNotILike;
}

bool IsRegex(Op op) {
  return op == Op::kRegex || op == Op::kIRegex || op == Op::kNotRegex || op == Op::kNotIRegex;
}

bool OpApplies(Op op, FieldType t) {
  const bool scalar = t != FieldType::kStringList && t != FieldType::kStringMap;
  switch (op) {
    case Op::kIsNull:
    case Op::kIsNotNull:
      return true;
    case Op::kEq:
    case Op::kNe:
    case Op::kIn:
    case Op::kNotIn:
      return scalar;
    case Op::kLt:
    case Op::kLe:
    case Op::kGt:
    case Op::kGe:
      return t == FieldType::kString || t == FieldType::kInt || t == FieldType::kTime;
    case Op::kContains:
      return t == FieldType::kStringList;
    case Op::kLike:
    case Op::kNotLike:
    case Op::kILike:
    case Op::kNotILike:
    case Op::kRegex:
    case Op::kIRegex:
    case Op::kNotRegex:
    case Op::kNotIRegex:
      return t == FieldType::kString;
  }
  return false;
}

std::string_view LiteralKind(const Literal& lit) {
  if (std::holds_alternative<std::string>(lit.value)) return "a string";
  if (std::holds_alternative<int64_t>(lit.value)) return "a number";
  return "a boolean";
}

bool IsWellFormedUuid(std::string_view s) {
  if (s.size() != 36) return false;
  for (size_t i = 0; i < s.size(); ++i) {
    const bool dash = i == 8 || i == 13 || i == 18 || i == 23;
    if (dash ? s[i] != '-' : !absl::ascii_isxdigit(static_cast<unsigned char>(s[i]))) return false;
  }
  return true;
}

// "field 'Slug'" or "'LEN(Tags)'": what the operator is applied to.
std::string Subject(const BoundPredicate& b) {
  return b.len ? absl::StrCat("'LEN(", b.written, ")'") : absl::StrCat("field '", b.written, "'");
}

absl::StatusOr<BoundValue> BindLiteral(const BoundPredicate& b, const Literal& lit) {
  // A list field's literal is an element: a string.
  const FieldType want = b.type == FieldType::kStringList ? FieldType::kString : b.type;
  const std::string* str = std::get_if<std::string>(&lit.value);
  const bool ok = (want == FieldType::kInt && std::holds_alternative<int64_t>(lit.value)) ||
                  (want == FieldType::kBool && std::holds_alternative<bool>(lit.value)) ||
                  (want != FieldType::kInt && want != FieldType::kBool && str != nullptr);
  if (!ok) {
    return ErrorAt(lit.pos, "%s is %s; got %s", Subject(b), TypeName(b.type), LiteralKind(lit));
  }
  BoundValue v;
  switch (want) {
    case FieldType::kInt:
      v.number = std::get<int64_t>(lit.value);
      v.param = absl::StrCat(v.number);
      break;
    case FieldType::kBool:
      v.boolean = std::get<bool>(lit.value);
      v.param = v.boolean ? "true" : "false";
      break;
    case FieldType::kTime:
      if (!ParseRfc3339(*str, &v.time)) {
        return ErrorAt(lit.pos, "%s is a time; expected RFC 3339 such as '2024-05-01T12:00:00Z'",
                       Subject(b));
      }
      if ((v.time - absl::UnixEpoch()) % absl::Microseconds(1) != absl::ZeroDuration()) {
        return ErrorAt(lit.pos, "time is more precise than a microsecond");
      }
      v.param = absl::FormatTime("%Y-%m-%d%ET%H:%M:%E*SZ", v.time, absl::UTCTimeZone());
      break;
    case FieldType::kUuid:
      if (!IsWellFormedUuid(*str)) {
        return ErrorAt(lit.pos, "%s is a UUID; got a malformed one", Subject(b));
      }
      v.text = absl::AsciiStrToLower(*str);
      v.param = v.text;
      break;
    default:
      v.text = *str;
      v.param = *str;
      break;
  }
  return v;
}

absl::StatusOr<BoundPredicate> BindPredicate(const Predicate& p, const Schema& schema) {
  std::optional<FieldRef> ref = schema.Resolve(p.operand.field);
  if (!ref) {
    // Name the first segment no field starts with ("Lables" in "Lables.tier"): that is the typo.
    std::string unknown = p.operand.field;
    for (size_t dot = unknown.find('.'); dot != std::string::npos;
         dot = unknown.find('.', dot + 1)) {
      std::string prefix = unknown.substr(0, dot);
      bool known = false;
      for (const auto& f : schema.fields()) {
        if (f.name == prefix || f.name.rfind(prefix + ".", 0) == 0) known = true;
      }
      if (!known) {
        unknown = prefix;
        break;
      }
    }
    return ErrorAt(p.operand.pos, "unknown field '%s'", unknown);
  }
  BoundPredicate b;
  b.field = *ref->field;
  b.written = p.operand.field;
  b.key = ref->key;
  b.len = p.operand.len;
  b.op = p.op;
  b.pos = p.operand.pos;
  b.type = b.key ? FieldType::kString : b.field.type;
  if (b.type == FieldType::kStringMap && p.op != Op::kIsNull && p.op != Op::kIsNotNull) {
    return ErrorAt(p.operand.pos, "field '%s' is a map; name a key, as in '%s.key'", b.written,
                   b.written);
  }
  if (b.len) {
    if (b.type != FieldType::kString && b.type != FieldType::kStringList) {
      return ErrorAt(p.operand.pos, "LEN does not apply to field '%s' (%s)", b.written,
                     TypeName(b.type));
    }
    b.type = FieldType::kInt;
  }
  if (!OpApplies(p.op, b.type)) {
    return ErrorAt(p.op_pos, "operator '%s' does not apply to %s (%s)", OpText(p.op), Subject(b),
                   TypeName(b.type));
  }
  for (const Literal& lit : p.values) {
    absl::StatusOr<BoundValue> v = BindLiteral(b, lit);
    if (!v.ok()) return v.status();
    b.values.push_back(*std::move(v));
  }
  if (IsPattern(p.op) && !LikePatternValid(b.values[0].text)) {
    return ErrorAt(p.values[0].pos, "LIKE pattern must not end with an escape character '\\'");
  }
  if (IsRegex(p.op)) {
    absl::StatusOr<std::shared_ptr<const re2::RE2>> re =
        CompileRegex(b.values[0].text, p.op == Op::kIRegex || p.op == Op::kNotIRegex);
    if (!re.ok()) return ErrorAt(p.values[0].pos, "%s", std::string(re.status().message()));
    b.regex = *std::move(re);
  }
  return b;
}

}  // namespace

bool ParseRfc3339(std::string_view text, absl::Time* out) {
  std::string err;
  return absl::ParseTime(absl::RFC3339_full, std::string(text), out, &err);
}

absl::StatusOr<BoundExpr> Bind(const Expr& e, const Schema& schema) {
  BoundExpr b;
  b.kind = e.kind;
  if (e.kind == Expr::Kind::kPredicate) {
    absl::StatusOr<BoundPredicate> p = BindPredicate(e.predicate, schema);
    if (!p.ok()) return p.status();
    b.predicate = *std::move(p);
    b.has_sql = !b.predicate.field.sql.empty();
    return b;
  }
  for (const Expr& c : e.children) {
    absl::StatusOr<BoundExpr> child = Bind(c, schema);
    if (!child.ok()) return child.status();
    b.has_sql = b.has_sql && child->has_sql;
    b.children.push_back(*std::move(child));
  }
  return b;
}

}  // namespace cub::where::internal
