#include "lib/store/errors.h"

#include <new>
#include <pqxx/pqxx>
#include <string>

#include "absl/strings/str_cat.h"

namespace cub::store {
namespace {

constexpr char kRetryPayload[] = "cub/retryable";
constexpr char kDatabasePayload[] = "cub/database";

// The first line of a server error; libpqxx appends the statement, which may hold data.
std::string FirstLine(const char* what) {
  std::string s(what);
  auto nl = s.find('\n');
  if (nl != std::string::npos) s.resize(nl);
  if (s.rfind("ERROR:  ", 0) == 0) s = s.substr(8);
  return s;
}

absl::Status StatusFromPqxx(const std::exception& e) {
  if (dynamic_cast<const pqxx::unique_violation*>(&e)) {
    return absl::AlreadyExistsError(FirstLine(e.what()));
  }
  if (dynamic_cast<const pqxx::foreign_key_violation*>(&e) ||
      dynamic_cast<const pqxx::restrict_violation*>(&e) ||
      dynamic_cast<const pqxx::check_violation*>(&e) ||
      dynamic_cast<const pqxx::not_null_violation*>(&e)) {
    return absl::FailedPreconditionError(FirstLine(e.what()));
  }
  if (dynamic_cast<const pqxx::serialization_failure*>(&e) ||
      dynamic_cast<const pqxx::deadlock_detected*>(&e)) {
    absl::Status s = absl::AbortedError(FirstLine(e.what()));
    s.SetPayload(kRetryPayload, absl::Cord("1"));
    return s;
  }
  if (dynamic_cast<const pqxx::broken_connection*>(&e) ||
      dynamic_cast<const pqxx::in_doubt_error*>(&e)) {
    return absl::UnavailableError(absl::StrCat("database unavailable: ", FirstLine(e.what())));
  }
  if (dynamic_cast<const pqxx::data_exception*>(&e)) {
    return absl::InvalidArgumentError(FirstLine(e.what()));
  }
  if (auto* sql = dynamic_cast<const pqxx::sql_error*>(&e)) {
    // 2201B: invalid regular expression, raised as a generic data error on some paths.
    if (sql->sqlstate() == "2201B") return absl::InvalidArgumentError(FirstLine(e.what()));
    if (sql->sqlstate() == "57014") return absl::DeadlineExceededError(FirstLine(e.what()));
  }
  return absl::InternalError(absl::StrCat("database error: ", FirstLine(e.what())));
}

}  // namespace

absl::Status StatusFromException(const std::exception& e) {
  // Not the database's doing: exceptions from the work a transaction runs, which must not be
  // reported as database errors.
  if (dynamic_cast<const std::bad_alloc*>(&e)) {
    return absl::ResourceExhaustedError(
        "out of memory: the server could not allocate the memory this request needs");
  }
  if (!dynamic_cast<const pqxx::pqxx_exception*>(&e)) {
    return absl::InternalError(absl::StrCat("internal error: ", FirstLine(e.what())));
  }
  absl::Status s = StatusFromPqxx(e);
  // The statement failed in the database, which has aborted the transaction (or the savepoint).
  s.SetPayload(kDatabasePayload, absl::Cord("1"));
  return s;
}

bool IsRetryable(const absl::Status& s) { return s.GetPayload(kRetryPayload).has_value(); }

bool FailedInDatabase(const absl::Status& s) { return s.GetPayload(kDatabasePayload).has_value(); }

}  // namespace cub::store
