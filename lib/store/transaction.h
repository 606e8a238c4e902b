// Runs a unit of work in one database transaction, with retries for transient conflicts.
#ifndef CUB_LIB_STORE_TRANSACTION_H_
#define CUB_LIB_STORE_TRANSACTION_H_

#include <functional>
#include <optional>
#include <type_traits>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "lib/store/pool.h"

namespace cub::store {

namespace internal {
class PqTx;
}  // namespace internal

// A database transaction, as lib/store's functions take it. Only lib/store can run statements
// in one (lib/store/pq.h); everyone else passes it along, opens one with WithTransaction /
// InTransaction, and nests savepoints in it with Savepoint. Not thread-safe; lives only
// inside the function WithTransaction runs.
class Tx {
 public:
  explicit Tx(internal::PqTx& impl) : impl_(impl) {}
  Tx(const Tx&) = delete;
  Tx& operator=(const Tx&) = delete;

  // Runs `fn` under a savepoint. When `fn` fails, or when `keep` is false (a dry run),
  // everything it did is rolled back to the savepoint and the rest of the transaction carries
  // on. Returns what `fn` returned (a database error as a Status, never an exception).
  absl::Status Savepoint(bool keep, const std::function<absl::Status()>& fn);

  // For lib/store's own code.
  internal::PqTx& impl() { return impl_; }

 private:
  internal::PqTx& impl_;
};

// Leases a connection, runs `fn` in a READ COMMITTED transaction and commits when it returns
// OK; rolls back otherwise. A serialization failure or deadlock (from `fn` or the commit) is
// retried up to 3 times, so `fn` must be safe to run again (it only touches the database and
// its own outputs). Database errors come back as a Status (lib/store/errors.h).
absl::Status WithTransaction(ConnectionPool& pool, const std::function<absl::Status(Tx&)>& fn);

// The same, for work that only reads.
absl::Status WithReadTransaction(ConnectionPool& pool, const std::function<absl::Status(Tx&)>& fn);

namespace transaction_internal {

// The T of the absl::StatusOr<T> that `Fn` returns when called with a Tx&.
template <typename Fn>
using ResultOf = typename std::invoke_result_t<Fn&, Tx&>::value_type;

template <typename Fn>
absl::StatusOr<ResultOf<Fn>> Run(absl::Status (*with)(ConnectionPool&,
                                                      const std::function<absl::Status(Tx&)>&),
                                 ConnectionPool& pool, Fn& fn) {
  std::optional<ResultOf<Fn>> out;
  absl::Status s = with(pool, [&](Tx& tx) -> absl::Status {
    out.reset();  // nothing from an attempt that was rolled back survives into the next
    absl::StatusOr<ResultOf<Fn>> r = fn(tx);
    if (!r.ok()) return r.status();
    out.emplace(*std::move(r));
    return absl::OkStatus();
  });
  if (!s.ok()) return s;
  return *std::move(out);
}

}  // namespace transaction_internal

// WithTransaction for work that produces a value: `fn(tx)` returns absl::StatusOr<T>, and so
// does InTransaction. The value is that of the attempt that committed; each retry runs `fn`
// from scratch and keeps nothing of a rolled-back attempt, so `fn` should build its result in
// its own locals rather than in variables it captures. A non-OK status from `fn`, or from the
// commit, is returned as WithTransaction returns it. `fn` must never return an OK status
// without a value (absl::StatusOr turns that into INTERNAL).
template <typename Fn>
absl::StatusOr<transaction_internal::ResultOf<Fn>> InTransaction(ConnectionPool& pool, Fn&& fn) {
  return transaction_internal::Run(&WithTransaction, pool, fn);
}

// The same, in a read-only transaction (WithReadTransaction).
template <typename Fn>
absl::StatusOr<transaction_internal::ResultOf<Fn>> InReadTransaction(ConnectionPool& pool,
                                                                     Fn&& fn) {
  return transaction_internal::Run(&WithReadTransaction, pool, fn);
}

}  // namespace cub::store

#endif  // CUB_LIB_STORE_TRANSACTION_H_
