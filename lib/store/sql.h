// Small helpers shared by the repositories: building a statement with a growing list of
// bind parameters, and reading PostgreSQL arrays and timestamps into API values.
//
// Every value from a request goes through Param(); statement text is assembled only from
// constants of this folder and SQL produced by the where compiler (which is parameterized too).
#ifndef CUB_LIB_STORE_SQL_H_
#define CUB_LIB_STORE_SQL_H_

#include <map>
#include <pqxx/pqxx>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "lib/store/transaction.h"
#include "lib/where/where.h"

namespace cub::store {

class Query {
 public:
  explicit Query(std::string sql = "") : sql_(std::move(sql)) {}
  // Appends a bind parameter and returns its placeholder ("$N").
  std::string Param(std::string value);
  Query& Append(std::string_view sql);
  // Compiles `expr` against `schema` and appends "AND (<sql>)"; no-op for an empty expr.
  absl::Status AndWhere(std::string_view expr, const where::Schema& schema);
  // Runs the statement prepared on the connection (named by its text's hash) rather than sent
  // whole each time: PostgreSQL then parses it once per connection and, from the sixth run on,
  // may keep one generic plan instead of planning each call (about 1 ms for each of the wider
  // reads of a ChangeOrder or a Space). Only for a statement whose best plan does not hinge on
  // its values: a Tag marking twenty Units or a hundred thousand, or an array of one ID or ten
  // thousand, want different plans, and a generic plan would give them one.
  Query& Prepared() {
    prepared_ = true;
    return *this;
  }
  // Runs the statement and returns its rows; throws libpqxx's exceptions, so it is called
  // only inside a store function's Guard (lib/store/pq.h).
  pqxx::result Exec(Tx& tx) const;
  // Runs the statement and returns its rows, or the database's error as a Status
  // (StatusFromException); never throws.
  absl::StatusOr<pqxx::result> Run(Tx& tx) const;
  const std::string& sql() const { return sql_; }

 private:
  std::string sql_;
  std::vector<std::string> params_;
  bool prepared_ = false;
};

// "(<slug_column> = $A OR <id_column> = NULLIF($B, '')::uuid)": the row `ref` names by its slug
// or by its ID. $B is `ref` only when it is written as PostgreSQL prints a UUID (36 characters,
// lower case) and empty otherwise, so the ID is compared as a uuid, through an index: comparing
// `<id_column>::text = ref` instead converted every row's ID (3 ms a call at 10,000 Spaces).
// The rows matched are the same.
std::string SlugOrId(Query& q, std::string_view slug_column, std::string_view id_column,
                     const std::string& ref);

// PostgreSQL text[] literal for `values`, each element quoted and escaped.
std::string TextArrayLiteral(const std::vector<std::string>& values);
// Reads a text[] column.
std::vector<std::string> ReadTextArray(const pqxx::field& f);
// Reads a text[] of alternating keys and values (see kMapAsArray) into a map.
std::map<std::string, std::string> ReadMap(const pqxx::field& f);

// SQL expression turning a jsonb object of strings into text[] of alternating keys and values.
std::string MapAsArray(const std::string& column);
// SQL expression formatting a timestamptz column as RFC 3339 UTC text.
std::string Rfc3339(const std::string& column);

// The transaction's own time (PostgreSQL's now(), its start) as RFC 3339 UTC text to the
// second, rounded down. Rows the transaction stamps with now() (events) are never earlier, so
// "At >= this" finds them all, which a clock read in the server after the transaction began
// does not promise. Errors: the database's.
absl::StatusOr<std::string> TransactionTimeRfc3339(Tx& tx);

// jsonb expression applying `changes` to the jsonb `column`: keys with a value are set, keys
// with an empty value are removed.
std::string MergeMapExpr(Query& q, const std::string& column,
                         const std::map<std::string, std::string>& changes);

// Fills a protobuf map field from `m`.
template <typename ProtoMap>
void FillMap(const std::map<std::string, std::string>& m, ProtoMap* out) {
  for (const auto& [k, v] : m) (*out)[k] = v;
}

}  // namespace cub::store

#endif  // CUB_LIB_STORE_SQL_H_
