// The where language: the filter behind every `cub ... list --where EXPR` and saved Filters.
// Include this header; it brings in the pieces:
//   parser.h  Parse(text) -> Expr (ast.h), the grammar, ToString, FieldsUsed
//   schema.h  Schema: the fields an entity exposes and the SQL behind each
//   sql.h     CompileToSql: parameterized PostgreSQL; NeedsInMemory; CompilePrefilter
//   eval.h    Matcher / Matches: in-memory evaluation over a Record, same semantics
//
// Typical use by a repository: CompileToSql(text, UnitSchema(), next_param) and append the
// text to the WHERE clause. For an entity with derived fields (FieldDef::sql empty): Parse
// once; if NeedsInMemory, query with CompilePrefilter and keep the rows a Matcher accepts.
//
// Errors from every entry point are InvalidArgument with a message for the user,
// "where: <what> at <1-based character position>", e.g. "where: unknown field 'Lables' at 1".

#ifndef CUB_LIB_WHERE_WHERE_H_
#define CUB_LIB_WHERE_WHERE_H_

#include "lib/where/ast.h"     // IWYU pragma: export
#include "lib/where/eval.h"    // IWYU pragma: export
#include "lib/where/parser.h"  // IWYU pragma: export
#include "lib/where/schema.h"  // IWYU pragma: export
#include "lib/where/sql.h"     // IWYU pragma: export

#endif  // CUB_LIB_WHERE_WHERE_H_
