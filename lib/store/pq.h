// lib/store's own view of libpqxx: the connection behind a Lease and the transaction behind a
// Tx. Included only by lib/store's .cc files (and the store's tests); nothing above lib/store
// sees a libpqxx type or exception (tests/harness/check_layout.sh checks the includes).
#ifndef CUB_LIB_STORE_PQ_H_
#define CUB_LIB_STORE_PQ_H_

#include <pqxx/pqxx>
#include <string>

#include "lib/store/pool.h"
#include "lib/store/transaction.h"

namespace cub::store {

// One open database connection, owned by the pool.
class Connection {
 public:
  explicit Connection(const std::string& url) : pq(url) {}
  pqxx::connection pq;
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

}  // namespace cub::store

#endif  // CUB_LIB_STORE_PQ_H_
