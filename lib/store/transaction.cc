#include "lib/store/transaction.h"

#include "lib/store/errors.h"
#include "lib/store/pq.h"
#include "lib/util/status_macros.h"

namespace cub::store {
namespace {

absl::Status RunOnce(ConnectionPool& pool, bool read_only,
                     const std::function<absl::Status(Tx&)>& fn) {
  CUB_ASSIGN_OR_RETURN(auto lease, pool.Acquire());
  try {
    pqxx::work work(lease.conn().pq);
    internal::PqTx impl(work, &lease.conn());
    Tx tx(impl);
    if (read_only) work.exec0("SET TRANSACTION READ ONLY");
    absl::Status s = fn(tx);
    if (!s.ok()) {
      work.abort();
      return s;
    }
    work.commit();
    return absl::OkStatus();
  } catch (const std::exception& e) {
    return StatusFromException(e);
  }
}

absl::Status Run(ConnectionPool& pool, bool read_only, const std::function<absl::Status(Tx&)>& fn) {
  absl::Status s;
  for (int attempt = 0; attempt < 4; ++attempt) {
    s = RunOnce(pool, read_only, fn);
    if (!IsRetryable(s)) return s;
  }
  return s;
}

}  // namespace

absl::Status Tx::Savepoint(bool keep, const std::function<absl::Status()>& fn) {
  // Savepoints of one name nest: ROLLBACK TO and RELEASE act on the innermost.
  pqxx::transaction_base& t = Pq(*this);
  try {
    t.exec0("SAVEPOINT cub_savepoint");
  } catch (const std::exception& e) {
    return StatusFromException(e);
  }
  absl::Status s;
  try {
    s = fn();
  } catch (const std::exception& e) {
    s = StatusFromException(e);
  }
  try {
    if (!s.ok() || !keep) t.exec0("ROLLBACK TO SAVEPOINT cub_savepoint");
    t.exec0("RELEASE SAVEPOINT cub_savepoint");
  } catch (const std::exception& e) {
    if (s.ok()) s = StatusFromException(e);
  }
  return s;
}

absl::Status WithTransaction(ConnectionPool& pool, const std::function<absl::Status(Tx&)>& fn) {
  return Run(pool, false, fn);
}

absl::Status WithReadTransaction(ConnectionPool& pool, const std::function<absl::Status(Tx&)>& fn) {
  return Run(pool, true, fn);
}

}  // namespace cub::store
