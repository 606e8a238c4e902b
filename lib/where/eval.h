// In-memory evaluation of where expressions, for fields derived at read time (which have no
// SQL) and for filtering records already loaded. It agrees with the SQL that CompileToSql
// produces (see sql.h for the two known gaps): a comparison with a null value or a missing
// map key is false (so is its negation with != or NOT IN), IS NULL is true for it, and NOT
// inverts the result.

#ifndef CUB_LIB_WHERE_EVAL_H_
#define CUB_LIB_WHERE_EVAL_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "absl/status/statusor.h"
#include "lib/where/ast.h"
#include "lib/where/schema.h"

namespace cub::where {

namespace internal {
struct BoundExpr;
}  // namespace internal

// A field's value in memory: null, string, int64, bool, list of strings or string map.
using Value = std::variant<std::monostate, std::string, int64_t, bool, std::vector<std::string>,
                           std::map<std::string, std::string>>;

// One record (a Space, a Unit ...) as the evaluator sees it. Get must return, for a field of
// type: kString a std::string; kInt an int64_t; kBool a bool; kTime an RFC 3339 std::string;
// kUuid its text as a std::string; kStringList a std::vector<std::string>; kStringMap the whole
// std::map (the evaluator looks keys up itself); or std::monostate for null. Any other
// alternative makes matching fail with an Internal error.
class Record {
 public:
  virtual ~Record() = default;
  virtual Value Get(const FieldDef& field) const = 0;
};

// An expression checked against a Schema once, ready to test many records. Does not refer to
// the Expr or Schema it came from. Thread-safe: Matches may run concurrently.
class Matcher {
 public:
  // Fails, as CompileToSql does, on unknown fields and type errors; in-memory fields are fine.
  static absl::StatusOr<Matcher> Create(const Expr& e, const Schema& schema);

  // Whether `record` matches. Fails only if the record breaks Record's contract.
  absl::StatusOr<bool> Matches(const Record& record) const;

 private:
  explicit Matcher(std::shared_ptr<const internal::BoundExpr> bound) : bound_(std::move(bound)) {}
  std::shared_ptr<const internal::BoundExpr> bound_;
};

// Matcher::Create(e, schema) then Matches(record): for a single record.
absl::StatusOr<bool> Matches(const Expr& e, const Schema& schema, const Record& record);

}  // namespace cub::where

#endif  // CUB_LIB_WHERE_EVAL_H_
