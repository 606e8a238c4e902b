// Tests for lib/store/errors: which status each exception becomes. Out of memory is the
// server's trouble, not the database's: it must never read "database error".

#include <catch2/catch.hpp>
#include <new>
#include <pqxx/pqxx>
#include <stdexcept>
#include <string>

#include "lib/store/errors.h"

namespace cub::store {
namespace {

TEST_CASE("store errors: bad_alloc is RESOURCE_EXHAUSTED, not a database error", "[store]") {
  absl::Status s = StatusFromException(std::bad_alloc());
  CHECK(s.code() == absl::StatusCode::kResourceExhausted);
  CHECK(s.message() ==
        "out of memory: the server could not allocate the memory this request needs");
  s = StatusFromException(std::bad_array_new_length());  // a bad_alloc too
  CHECK(s.code() == absl::StatusCode::kResourceExhausted);
}

TEST_CASE("store errors: other exceptions are internal, named as such", "[store]") {
  absl::Status s = StatusFromException(std::length_error("basic_string::_M_create"));
  CHECK(s.code() == absl::StatusCode::kInternal);
  CHECK(s.message() == "internal error: basic_string::_M_create");
}

TEST_CASE("store errors: libpqxx exceptions keep their mapping", "[store]") {
  absl::Status s = StatusFromException(pqxx::unique_violation("ERROR:  duplicate key\nDETAIL: x"));
  CHECK(s.code() == absl::StatusCode::kAlreadyExists);
  CHECK(s.message() == "duplicate key");
  s = StatusFromException(pqxx::sql_error("ERROR:  something odd", "SELECT 1", "XX000"));
  CHECK(s.code() == absl::StatusCode::kInternal);
  CHECK(s.message() == "database error: something odd");
  s = StatusFromException(pqxx::broken_connection("server closed the connection"));
  CHECK(s.code() == absl::StatusCode::kUnavailable);
  s = StatusFromException(pqxx::sql_error("ERROR:  invalid regular expression", "q", "2201B"));
  CHECK(s.code() == absl::StatusCode::kInvalidArgument);
}

TEST_CASE("store errors: a status from the database says so, others do not", "[store]") {
  // A use case that reports failures per item must pass these up: the transaction is aborted.
  CHECK(FailedInDatabase(StatusFromException(pqxx::unique_violation("ERROR:  duplicate key"))));
  CHECK(FailedInDatabase(
      StatusFromException(pqxx::sql_error("ERROR:  invalid regular expression", "q", "2201B"))));
  CHECK(FailedInDatabase(StatusFromException(pqxx::serialization_failure("could not serialize"))));
  CHECK_FALSE(FailedInDatabase(StatusFromException(std::runtime_error("boom"))));
  CHECK_FALSE(FailedInDatabase(StatusFromException(std::bad_alloc())));
  CHECK_FALSE(FailedInDatabase(absl::InvalidArgumentError("where: unknown field")));
  CHECK_FALSE(FailedInDatabase(absl::OkStatus()));
}

}  // namespace
}  // namespace cub::store
