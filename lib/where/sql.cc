#include "lib/where/sql.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "lib/util/pg_array.h"
#include "lib/where/bind.h"
#include "lib/where/error.h"
#include "lib/where/parser.h"

namespace cub::where {
namespace {

using internal::BoundExpr;
using internal::BoundPredicate;
using internal::ErrorAt;

const char* Cast(FieldType t) {
  switch (t) {
    case FieldType::kInt:
      return "::bigint";
    case FieldType::kBool:
      return "::boolean";
    case FieldType::kTime:
      return "::timestamptz";
    case FieldType::kUuid:
      return "::uuid";
    default:
      return "";
  }
}

// The array type an IN list of `t` is bound as.
const char* ArrayCast(FieldType t) {
  switch (t) {
    case FieldType::kInt:
      return "::bigint[]";
    case FieldType::kBool:
      return "::boolean[]";
    case FieldType::kTime:
      return "::timestamptz[]";
    case FieldType::kUuid:
      return "::uuid[]";
    default:
      return "::text[]";
  }
}

// A plain (qualified) column is used as is; anything else is parenthesized so that the
// operators around it bind as intended.
std::string Column(const std::string& sql) {
  for (char c : sql) {
    const bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                       c == '_' || c == '.';
    if (!plain) return absl::StrCat("(", sql, ")");
  }
  return sql;
}

// SQL spells != as <>; every other operator as the where language does.
const char* SqlOp(Op op) { return op == Op::kNe ? "<>" : OpText(op); }

class Emitter {
 public:
  explicit Emitter(int first_param) : next_(first_param) {}

  absl::StatusOr<std::string> Emit(const BoundExpr& e) {
    switch (e.kind) {
      case Expr::Kind::kTrue:
        return std::string("TRUE");
      case Expr::Kind::kPredicate:
        return EmitPredicate(e.predicate);
      case Expr::Kind::kNot: {
        absl::StatusOr<std::string> inner = Emit(e.children[0]);
        if (!inner.ok()) return inner;
        return absl::StrCat("(", *inner, " IS NOT TRUE)");
      }
      case Expr::Kind::kAnd:
      case Expr::Kind::kOr: {
        std::vector<std::string> parts;
        for (const BoundExpr& c : e.children) {
          absl::StatusOr<std::string> part = Emit(c);
          if (!part.ok()) return part;
          parts.push_back(*std::move(part));
        }
        return absl::StrCat(
            "(", absl::StrJoin(parts, e.kind == Expr::Kind::kAnd ? " AND " : " OR "), ")");
      }
    }
    return std::string("FALSE");
  }

  std::vector<std::string> TakeParams() { return std::move(params_); }

 private:
  std::string Param(const std::string& value, const char* cast) {
    params_.push_back(value);
    return absl::StrCat("$", next_++, cast);
  }

  absl::StatusOr<std::string> EmitPredicate(const BoundPredicate& p) {
    if (p.field.sql.empty()) return ErrorAt(p.pos, "field '%s' cannot be used here", p.written);
    // Built in textual order, so parameters are numbered left to right.
    if (p.op == Op::kContains) {
      std::string value = Param(p.values[0].param, "");
      return absl::StrCat("(", value, " = ANY(", Column(p.field.sql), "))");
    }
    std::string col = Column(p.field.sql);
    if (p.key) col = absl::StrCat("(", col, " ->> ", Param(*p.key, ""), ")");
    if (p.len) {
      col = absl::StrCat(p.field.type == FieldType::kStringList ? "cardinality(" : "length(", col,
                         ")");
    }
    const char* cast = Cast(p.type);
    switch (p.op) {
      case Op::kIsNull:
      case Op::kIsNotNull:
        return absl::StrCat("(", col, " ", OpText(p.op), ")");
      case Op::kIn:
      case Op::kNotIn: {
        // One array parameter however long the list: a statement takes at most 65,535
        // parameters. = ANY and <> ALL treat NULLs exactly as IN and NOT IN do.
        std::vector<std::string> items;
        items.reserve(p.values.size());
        for (const auto& v : p.values) items.push_back(v.param);
        return absl::StrCat("(", col, p.op == Op::kIn ? " = ANY(" : " <> ALL(",
                            Param(PgArrayLiteral(items), ArrayCast(p.type)), "))");
      }
      case Op::kLt:
      case Op::kLe:
      case Op::kGt:
      case Op::kGe:
        if (p.type == FieldType::kString) {
          // Byte order, as the in-memory evaluator compares, whatever the database collation.
          return absl::StrCat("(", col, " ", OpText(p.op), " ", Param(p.values[0].param, cast),
                              " COLLATE \"C\")");
        }
        [[fallthrough]];
      default:
        return absl::StrCat("(", col, " ", SqlOp(p.op), " ", Param(p.values[0].param, cast), ")");
    }
  }

  int next_;
  std::vector<std::string> params_;
};

// `e` with each part that needs in-memory evaluation widened to TRUE.
BoundExpr Relax(const BoundExpr& e) {
  if (e.has_sql) return e;
  BoundExpr out;  // kTrue
  if (e.kind != Expr::Kind::kAnd && e.kind != Expr::Kind::kOr) return out;
  std::vector<BoundExpr> kept;
  for (const BoundExpr& c : e.children) {
    BoundExpr r = Relax(c);
    if (r.kind == Expr::Kind::kTrue) {
      if (e.kind == Expr::Kind::kOr) return out;
      continue;
    }
    kept.push_back(std::move(r));
  }
  if (kept.empty()) return out;
  if (kept.size() == 1) return std::move(kept[0]);
  out.kind = e.kind;
  out.children = std::move(kept);
  return out;
}

absl::StatusOr<Sql> EmitAll(const BoundExpr& b, int first_param) {
  if (first_param < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("where: first_param must be >= 1, got ", first_param));
  }
  Emitter emitter(first_param);
  absl::StatusOr<std::string> text = emitter.Emit(b);
  if (!text.ok()) return text.status();
  return Sql{*std::move(text), emitter.TakeParams()};
}

}  // namespace

absl::StatusOr<Sql> CompileToSql(const Expr& e, const Schema& schema, int first_param) {
  absl::StatusOr<BoundExpr> b = internal::Bind(e, schema);
  if (!b.ok()) return b.status();
  return EmitAll(*b, first_param);
}

absl::StatusOr<Sql> CompileToSql(std::string_view text, const Schema& schema, int first_param) {
  absl::StatusOr<std::shared_ptr<const Expr>> e = Parse(text);
  if (!e.ok()) return e.status();
  return CompileToSql(**e, schema, first_param);
}

absl::StatusOr<bool> NeedsInMemory(const Expr& e, const Schema& schema) {
  absl::StatusOr<BoundExpr> b = internal::Bind(e, schema);
  if (!b.ok()) return b.status();
  return !b->has_sql;
}

absl::StatusOr<Sql> CompilePrefilter(const Expr& e, const Schema& schema, int first_param) {
  absl::StatusOr<BoundExpr> b = internal::Bind(e, schema);
  if (!b.ok()) return b.status();
  return EmitAll(Relax(*b), first_param);
}

}  // namespace cub::where
