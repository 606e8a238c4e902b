// lib/store's own view of libpqxx: the connection behind a Lease and the transaction behind a
// Tx. Included only by lib/store's .cc files (and the store's tests); nothing above lib/store
// sees a libpqxx type or exception (tests/harness/check_layout.sh checks the includes).
#ifndef CUB_LIB_STORE_PQ_H_
#define CUB_LIB_STORE_PQ_H_

#include <exception>
#include <pqxx/pqxx>
#include <string>

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

  // Turns PostgreSQL's JIT compilation off for the session. cubd's statements are set-based
  // over arrays (unnest) whose row counts the planner cannot see, or over tables just filled in
  // bulk whose statistics lag, so their estimated cost often passes jit_above_cost while they
  // run in milliseconds; compiling each then cost 0.3 to 0.6 s (9.8 s of JIT in one promote of
  // 5,000 Spaces, tests/bench/promote_bench.sh). Throws as libpqxx does.
  static void SetUpSession(pqxx::connection& c) { pqxx::nontransaction(c).exec0("SET jit = off"); }
};

namespace internal {

// The libpqxx transaction (a pqxx::work) a Tx stands for.
class PqTx {
 public:
  explicit PqTx(pqxx::transaction_base& t) : t(t) {}
  pqxx::transaction_base& t;
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

}  // namespace cub::store

#endif  // CUB_LIB_STORE_PQ_H_
