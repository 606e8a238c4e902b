// Binding: checks a parsed Expr against a Schema and resolves it into the form both back ends
// (the SQL compiler and the in-memory matcher) work from. All user-facing checks live here,
// so the two back ends accept exactly the same expressions:
//   - every field resolves (exact name, else a map field's key),
//   - the operator applies to the operand's type (no '<' on a boolean, no LIKE on a number,
//     '?' only on a list, a map only with a key or IS [NOT] NULL),
//   - every literal has the operand's type; times parse as RFC 3339 with an offset and at
//     most microsecond precision (PostgreSQL's), UUIDs are well formed, LIKE patterns do not
//     end in a lone escape, regular expressions pass CompileRegex (regex.h).
// A bound literal carries the parameter text handed to PostgreSQL: the SQL text never holds it.
//
// Internal to lib/where. A BoundExpr is immutable once built and safe to share across threads.

#ifndef CUB_LIB_WHERE_BIND_H_
#define CUB_LIB_WHERE_BIND_H_

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "lib/where/ast.h"
#include "lib/where/schema.h"

namespace re2 {
class RE2;
}  // namespace re2

namespace cub::where::internal {

struct BoundValue {
  std::string param;  // bind parameter text: string as is, integer in decimal, "true"/"false",
                      // time as RFC 3339 UTC, UUID in lower case
  std::string text;   // string, UUID (lower case) or list element
  int64_t number = 0;
  bool boolean = false;
  absl::Time time;
};

struct BoundPredicate {
  FieldDef field;                  // a copy: a BoundExpr does not depend on its Schema's lifetime
  std::string written;             // the field as the user wrote it, for messages
  std::optional<std::string> key;  // map key, for a kStringMap field named with one
  bool len = false;                // LEN(field)
  // The type the operator sees: kString for a map key, kInt under LEN, else field.type.
  FieldType type = FieldType::kString;
  Op op = Op::kEq;
  std::vector<BoundValue> values;
  std::shared_ptr<const re2::RE2> regex;  // for Op::kRegex
  int pos = 0;                            // of the field name
};

struct BoundExpr {
  Expr::Kind kind = Expr::Kind::kTrue;
  std::vector<BoundExpr> children;
  BoundPredicate predicate;  // kPredicate only
  bool has_sql = true;       // every field used has a SQL expression
};

// Binds `e` against `schema`. Errors are InvalidArgument "where: ... at N".
absl::StatusOr<BoundExpr> Bind(const Expr& e, const Schema& schema);

// Parses an RFC 3339 time with an offset ("2024-05-01T12:00:00Z", "...+02:00").
bool ParseRfc3339(std::string_view text, absl::Time* out);

}  // namespace cub::where::internal

#endif  // CUB_LIB_WHERE_BIND_H_
