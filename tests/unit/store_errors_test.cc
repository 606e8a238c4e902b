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

}  // namespace
}  // namespace cub::store
