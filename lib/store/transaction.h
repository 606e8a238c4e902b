// Runs a unit of work in one database transaction, with retries for transient conflicts.
#ifndef CUB_LIB_STORE_TRANSACTION_H_
#define CUB_LIB_STORE_TRANSACTION_H_

#include <functional>
#include <pqxx/transaction>

#include "absl/status/status.h"
#include "lib/store/pool.h"

namespace cub::store {

using Tx = pqxx::work;

// Leases a connection, runs `fn` in a READ COMMITTED transaction and commits when it returns
// OK; rolls back otherwise. A serialization failure or deadlock (from `fn` or the commit) is
// retried up to 3 times, so `fn` must be safe to run again (it only touches the database and
// its own outputs). pqxx exceptions are converted with StatusFromException.
absl::Status WithTransaction(ConnectionPool& pool, const std::function<absl::Status(Tx&)>& fn);

// Runs `fn` inside `tx` under a savepoint. When `fn` fails (a status, or a pqxx exception,
// converted), or when `keep` is false (a dry run), everything it did is rolled back to the
// savepoint and the rest of `tx` carries on. Returns what `fn` returned.
absl::Status WithSavepoint(Tx& tx, bool keep, const std::function<absl::Status()>& fn);

// The same, for work that only reads.
absl::Status WithReadTransaction(ConnectionPool& pool, const std::function<absl::Status(Tx&)>& fn);

}  // namespace cub::store

#endif  // CUB_LIB_STORE_TRANSACTION_H_
