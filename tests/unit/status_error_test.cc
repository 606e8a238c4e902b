// Tests for store::StatusError and ValueOrThrow (lib/store/errors.h): the Status a store
// function returned, thrown through code that cannot return it, comes back from
// StatusFromException unchanged, payload (and so retryability) included.

#include <catch2/catch.hpp>
#include <pqxx/pqxx>
#include <string>

#include "lib/store/errors.h"

namespace cub::store {
namespace {

TEST_CASE("StatusError: StatusFromException returns the carried Status unchanged", "[store]") {
  absl::Status retryable = StatusFromException(pqxx::serialization_failure("could not serialize"));
  REQUIRE(IsRetryable(retryable));
  absl::Status back = StatusFromException(StatusError(retryable));
  CHECK(back == retryable);
  CHECK(IsRetryable(back));

  absl::Status missing = absl::NotFoundError("change order 'x' not found");
  CHECK(StatusFromException(StatusError(missing)) == missing);
}

TEST_CASE("ValueOrThrow: the value when OK, a StatusError otherwise", "[store]") {
  CHECK(ValueOrThrow(absl::StatusOr<std::string>("kept")) == "kept");
  absl::Status refused = absl::InvalidArgumentError("bad uuid");
  try {
    ValueOrThrow(absl::StatusOr<int>(refused));
    FAIL("ValueOrThrow returned for a non-OK Status");
  } catch (const StatusError& e) {
    CHECK(e.status() == refused);
    CHECK_THAT(std::string(e.what()), Catch::Contains("bad uuid"));
  }
}

}  // namespace
}  // namespace cub::store
