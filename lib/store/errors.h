// Maps libpqxx exceptions to absl::Status, so nothing above lib/store/ sees a pqxx exception.
//
// unique_violation -> ALREADY_EXISTS, foreign_key/restrict/check violations ->
// FAILED_PRECONDITION, serialization failures and deadlocks -> ABORTED (retried by
// WithTransaction), broken connections -> UNAVAILABLE, invalid input (bad regex, bad cast)
// -> INVALID_ARGUMENT, any other pqxx exception -> INTERNAL "database error: ...".
// Exceptions that are not libpqxx's, thrown by the code a transaction runs, are never called
// database errors: std::bad_alloc -> RESOURCE_EXHAUSTED "out of memory: ...", anything else
// -> INTERNAL "internal error: ...". Code above lib/store/ never throws a Status: it returns it.
#ifndef CUB_LIB_STORE_ERRORS_H_
#define CUB_LIB_STORE_ERRORS_H_

#include <exception>

#include "absl/status/status.h"

namespace cub::store {

// Must be called from inside a catch block or with the caught exception.
absl::Status StatusFromException(const std::exception& e);

// True for the statuses WithTransaction retries: serialization failure and deadlock.
bool IsRetryable(const absl::Status& s);

// True for a status made from a libpqxx exception: the statement failed in the database, which
// leaves the transaction (or the innermost savepoint) unusable. A use case that reports some
// failures per item and carries on must pass such a status up instead (or have run the item
// under Tx::Savepoint).
bool FailedInDatabase(const absl::Status& s);

}  // namespace cub::store

#endif  // CUB_LIB_STORE_ERRORS_H_
