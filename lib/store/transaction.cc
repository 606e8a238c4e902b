#include "lib/store/transaction.h"

#include <pqxx/pqxx>

#include "lib/store/errors.h"
#include "lib/util/status_macros.h"

namespace cub::store {
namespace {

absl::Status RunOnce(ConnectionPool& pool, bool read_only,
                     const std::function<absl::Status(Tx&)>& fn) {
  CUB_ASSIGN_OR_RETURN(auto lease, pool.Acquire());
  try {
    Tx tx(lease.conn());
    if (read_only) tx.exec0("SET TRANSACTION READ ONLY");
    absl::Status s = fn(tx);
    if (!s.ok()) {
      tx.abort();
      return s;
    }
    tx.commit();
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

absl::Status WithSavepoint(Tx& tx, bool keep, const std::function<absl::Status()>& fn) {
  tx.exec0("SAVEPOINT cub_savepoint");
  absl::Status s;
  try {
    s = fn();
  } catch (const std::exception& e) {
    s = StatusFromException(e);
  }
  if (!s.ok() || !keep) tx.exec0("ROLLBACK TO SAVEPOINT cub_savepoint");
  tx.exec0("RELEASE SAVEPOINT cub_savepoint");
  return s;
}

absl::Status WithTransaction(ConnectionPool& pool, const std::function<absl::Status(Tx&)>& fn) {
  return Run(pool, false, fn);
}

absl::Status WithReadTransaction(ConnectionPool& pool, const std::function<absl::Status(Tx&)>& fn) {
  return Run(pool, true, fn);
}

}  // namespace cub::store
