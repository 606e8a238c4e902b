// Compiles where expressions to parameterized PostgreSQL boolean expressions, for a
// repository to append to its WHERE clause.
//
// Contract: user text never reaches Sql::text. Field names become the Schema's FieldDef::sql
// (trusted, from code); every literal, map key included, becomes a bind parameter, and the
// text holds only its placeholder with a cast: $3::bigint, $4::uuid, $5::timestamptz,
// $6::boolean (strings are left uncast: they take the column's type). An IN list is ONE
// parameter, a PostgreSQL array literal (lib/util/pg_array.h), however many values it has:
// "x IN (...)" compiles to (x = ANY($7::text[])), "NOT IN" to (x <> ALL($7::bigint[])).
//
// The output is fully parenthesized. Its truth agrees with Matches() for every row:
//   - NOT x compiles to ((x) IS NOT TRUE), so a comparison with NULL (a missing map key, a
//     NULL column) counts as false under NOT too, as it does in memory;
//   - string ordering uses COLLATE "C" (byte order, as std::string compares);
//   - LEN of a string is length() (characters), of a list cardinality().
// Known gaps, both rare: ILIKE folds non-ASCII letters per the database locale (in memory only
// ASCII folds), and so do the classes \w, \d and [:alpha:] of '~' (regex.h: PostgreSQL runs
// the pattern in SQL, RE2 in memory; both accept exactly the patterns regex.h allows).

#ifndef CUB_LIB_WHERE_SQL_H_
#define CUB_LIB_WHERE_SQL_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "lib/where/ast.h"
#include "lib/where/schema.h"

namespace cub::where {

struct Sql {
  std::string text;                 // a boolean SQL expression
  std::vector<std::string> params;  // bound as text to $first_param, $first_param+1, ...
};

// Compiles `e` against `schema`, numbering parameters from `first_param` (>= 1) so the result
// can join a statement that already has parameters. Refuses unknown fields, type errors and
// fields without SQL ("where: field 'X' cannot be used here at N"). kTrue gives {"TRUE", {}}.
absl::StatusOr<Sql> CompileToSql(const Expr& e, const Schema& schema, int first_param = 1);

// Parses then compiles `text`; blank text gives {"TRUE", {}}.
absl::StatusOr<Sql> CompileToSql(std::string_view text, const Schema& schema, int first_param = 1);

// Whether `e` uses a field without SQL (derived at read time), so rows must be filtered in
// memory with Matches(). Fails on unknown fields and type errors, as CompileToSql does.
absl::StatusOr<bool> NeedsInMemory(const Expr& e, const Schema& schema);

// SQL for the part of `e` the database can evaluate: the parts using in-memory fields are
// widened to TRUE (a conjunct dropped; an OR or NOT containing one becomes TRUE). It selects a
// superset of the matching rows; when NeedsInMemory(e), run Matches() on what it returns.
// Equals CompileToSql(e, ...) when no in-memory field is used.
absl::StatusOr<Sql> CompilePrefilter(const Expr& e, const Schema& schema, int first_param = 1);

}  // namespace cub::where

#endif  // CUB_LIB_WHERE_SQL_H_
