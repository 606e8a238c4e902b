// Maps libpqxx exceptions to absl::Status, so nothing above lib/store/ sees a pqxx exception.
//
// unique_violation -> ALREADY_EXISTS, foreign_key/restrict/check violations ->
// FAILED_PRECONDITION, serialization failures and deadlocks -> ABORTED (retried by
// WithTransaction), broken connections -> UNAVAILABLE, invalid input (bad regex, bad cast)
// -> INVALID_ARGUMENT, any other pqxx exception -> INTERNAL "database error: ...".
// Exceptions that are not libpqxx's, thrown by the code a transaction runs, are never called
// database errors: std::bad_alloc -> RESOURCE_EXHAUSTED "out of memory: ...", anything else
// -> INTERNAL "internal error: ...". A StatusError (below) -> the Status it carries.
#ifndef CUB_LIB_STORE_ERRORS_H_
#define CUB_LIB_STORE_ERRORS_H_

#include <exception>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace cub::store {

// Must be called from inside a catch block or with the caught exception.
absl::Status StatusFromException(const std::exception& e);

// True for the statuses WithTransaction retries: serialization failure and deadlock.
bool IsRetryable(const absl::Status& s);

// A store function's non-OK Status carried as an exception, for the few callers that cannot
// return a Status (the promotion planners return their plans). StatusFromException gives the
// Status back unchanged, so the transaction or savepoint that runs such a caller fails (or is
// retried) with the very Status the store function returned.
class StatusError : public std::exception {
 public:
  explicit StatusError(absl::Status status)
      : status_(std::move(status)), what_(status_.ToString()) {}
  const absl::Status& status() const { return status_; }
  const char* what() const noexcept override { return what_.c_str(); }

 private:
  absl::Status status_;
  std::string what_;
};

// The value of `s`, or its Status thrown as a StatusError. Only for code that cannot return a
// Status; everywhere else use CUB_ASSIGN_OR_RETURN.
template <typename T>
T ValueOrThrow(absl::StatusOr<T> s) {
  if (!s.ok()) throw StatusError(std::move(s).status());
  return *std::move(s);
}

}  // namespace cub::store

#endif  // CUB_LIB_STORE_ERRORS_H_
