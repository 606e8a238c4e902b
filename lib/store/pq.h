// lib/store's own view of libpqxx: the connection behind a Lease and the transaction behind a
// Tx. Included only by lib/store's .cc files (and the store's tests); nothing above lib/store
// sees a libpqxx type or exception (tests/harness/check_layout.sh checks the includes).
#ifndef CUB_LIB_STORE_PQ_H_
#define CUB_LIB_STORE_PQ_H_

#include <exception>
#include <pqxx/pqxx>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "lib/store/errors.h"
#include "lib/store/pool.h"
#include "lib/store/transaction.h"

namespace cub::store {

// One open database connection, owned by the pool.
class Connection {
 public:
  // Connects and sets the session up for cubd's statements (SetUpSession).
  explicit Connection(const std::string& url) : pq(url) { SetUpSession(pq); }
  pqxx::connection pq;
  // Set when the session holds state that can no longer be used (a prepared statement whose
  // result type a schema change altered): the pool closes the connection rather than keep it.
  bool discard = false;

  // Turns PostgreSQL's JIT compilation off for the session. cubd's statements are set-based
  // over arrays (unnest) whose row counts the planner cannot see, or over tables just filled in
  // bulk whose statistics lag, so their estimated cost often passes jit_above_cost while they
  // run in milliseconds; compiling each then cost 0.3 to 0.6 s (9.8 s of JIT in one promote of
  // 5,000 Spaces, tests/bench/promote_bench.sh). Throws as libpqxx does.
  static void SetUpSession(pqxx::connection& c) { pqxx::nontransaction(c).exec0("SET jit = off"); }
};

namespace internal {

// The libpqxx transaction (a pqxx::work) a Tx stands for, and the pooled connection it runs
// on (null for a transaction on a connection of its own).
class PqTx {
 public:
  explicit PqTx(pqxx::transaction_base& t, Connection* conn = nullptr) : t(t), conn(conn) {}
  pqxx::transaction_base& t;
  Connection* conn;
};

}  // namespace internal

// The transaction to run statements in: Pq(tx).exec_params(...).
inline pqxx::transaction_base& Pq(Tx& tx) { return tx.impl().t; }

// Runs `fn`, whose statements may throw libpqxx's exceptions, and returns what it returned
// (an absl::Status or absl::StatusOr<T>), or the exception as a Status (StatusFromException).
// This is how a store function keeps its contract: it returns a Status and never throws.
//   absl::StatusOr<Space> FindSpace(Tx& tx, ...) {
//     return Guard([&]() -> absl::StatusOr<Space> { ... Pq(tx).exec_params(...) ... });
//   }
template <typename Fn>
auto Guard(Fn&& fn) -> decltype(fn()) {
  try {
    return fn();
  } catch (const std::exception& e) {
    return StatusFromException(e);
  }
}

// Defines `sql` as a prepared statement on the transaction's connection, named "cub_" and the
// hash of its text (a no-op once defined: libpqxx sends it at its first run there), and returns
// that name; empty when another text already holds the name, which is then run unprepared.
// Throws nothing.
std::string PreparedName(Tx& tx, const std::string& sql);

// Marks the transaction's pooled connection to be closed when `e` is PostgreSQL refusing a
// prepared statement whose result type changed under it (SQLSTATE 0A000, "cached plan must not
// change result type", after a migration altered a column it returns): the statement would fail
// the same way on every later run there, so the next transaction gets a new connection.
void DiscardIfPlanChanged(Tx& tx, const std::exception& e);

// Runs `sql` with `args` as a prepared statement (see Query::Prepared for which statements may
// be); throws libpqxx's exceptions, so it is called inside a store function's Guard.
template <typename... Args>
pqxx::result ExecPrepared(Tx& tx, const std::string& sql, Args&&... args) {
  const std::string name = PreparedName(tx, sql);
  pqxx::transaction_base& t = Pq(tx);
  if (name.empty()) return t.exec_params(sql, std::forward<Args>(args)...);
  try {
    return t.exec_prepared(name, std::forward<Args>(args)...);
  } catch (const std::exception& e) {
    DiscardIfPlanChanged(tx, e);
    throw;
  }
}

}  // namespace cub::store

#endif  // CUB_LIB_STORE_PQ_H_
