// CUB_RETURN_IF_ERROR and CUB_ASSIGN_OR_RETURN: the status passes through unchanged, the
// expression is evaluated once, and the value reaches declarations and existing variables.
#include "lib/util/status_macros.h"

#include <catch2/catch.hpp>
#include <memory>
#include <string>

namespace cub {
namespace {

absl::StatusOr<int> Count(int* calls, absl::StatusOr<int> result) {
  ++*calls;
  return result;
}

absl::Status Check(int* calls, absl::Status result) {
  ++*calls;
  return result;
}

absl::Status ReturnIfError(int* calls, absl::Status result, bool* reached_end) {
  CUB_RETURN_IF_ERROR(Check(calls, result));
  *reached_end = true;
  return absl::OkStatus();
}

absl::StatusOr<std::string> ReturnIfErrorOnStatusOr(absl::StatusOr<int> v) {
  CUB_RETURN_IF_ERROR(v);
  return std::string("after");
}

absl::StatusOr<int> AssignDeclared(int* calls, absl::StatusOr<int> v) {
  CUB_ASSIGN_OR_RETURN(auto x, Count(calls, v));
  CUB_ASSIGN_OR_RETURN(const int& y, Count(calls, x + 1));
  return x + y;
}

absl::Status AssignExisting(absl::StatusOr<std::string> v, std::string* out) {
  std::string s = "before";
  CUB_ASSIGN_OR_RETURN(s, std::move(v));
  *out = s;
  return absl::OkStatus();
}

absl::StatusOr<int> MoveOnly(absl::StatusOr<std::unique_ptr<int>> v) {
  CUB_ASSIGN_OR_RETURN(std::unique_ptr<int> p, std::move(v));
  return *p;
}

absl::Status UnbracedIf(bool check, absl::Status s) {
  if (check)
    CUB_RETURN_IF_ERROR(s);
  else
    return absl::CancelledError("not checked");
  return absl::OkStatus();
}

TEST_CASE("CUB_RETURN_IF_ERROR returns the status unchanged and evaluates once") {
  int calls = 0;
  bool reached = false;
  absl::Status s = ReturnIfError(&calls, absl::NotFoundError("unit 'web' not found"), &reached);
  CHECK(s.code() == absl::StatusCode::kNotFound);
  CHECK(s.message() == "unit 'web' not found");
  CHECK(calls == 1);
  CHECK_FALSE(reached);

  calls = 0;
  CHECK(ReturnIfError(&calls, absl::OkStatus(), &reached).ok());
  CHECK(calls == 1);
  CHECK(reached);
}

TEST_CASE("CUB_RETURN_IF_ERROR takes a StatusOr and returns into a StatusOr") {
  auto bad = ReturnIfErrorOnStatusOr(absl::AbortedError("conflict"));
  CHECK(bad.status().code() == absl::StatusCode::kAborted);
  CHECK(bad.status().message() == "conflict");
  auto good = ReturnIfErrorOnStatusOr(7);
  REQUIRE(good.ok());
  CHECK(*good == "after");
}

TEST_CASE("CUB_RETURN_IF_ERROR is one statement") {
  CHECK(UnbracedIf(true, absl::OkStatus()).ok());
  CHECK(UnbracedIf(true, absl::InternalError("x")).code() == absl::StatusCode::kInternal);
  CHECK(UnbracedIf(false, absl::OkStatus()).code() == absl::StatusCode::kCancelled);
}

TEST_CASE("CUB_ASSIGN_OR_RETURN declares, evaluates once and returns the error unchanged") {
  int calls = 0;
  auto ok = AssignDeclared(&calls, 20);
  REQUIRE(ok.ok());
  CHECK(*ok == 41);
  CHECK(calls == 2);

  calls = 0;
  auto bad = AssignDeclared(&calls, absl::InvalidArgumentError("bad slug 'x y'"));
  CHECK(bad.status().code() == absl::StatusCode::kInvalidArgument);
  CHECK(bad.status().message() == "bad slug 'x y'");
  CHECK(calls == 1);
}

TEST_CASE("CUB_ASSIGN_OR_RETURN assigns an existing variable, only on success") {
  std::string out = "untouched";
  REQUIRE(AssignExisting(std::string("new"), &out).ok());
  CHECK(out == "new");
  out = "untouched";
  CHECK(AssignExisting(absl::PermissionDeniedError("no"), &out).code() ==
        absl::StatusCode::kPermissionDenied);
  CHECK(out == "untouched");
}

TEST_CASE("CUB_ASSIGN_OR_RETURN moves move-only values") {
  auto v = MoveOnly(std::make_unique<int>(5));
  REQUIRE(v.ok());
  CHECK(*v == 5);
  CHECK(MoveOnly(absl::UnavailableError("down")).status().message() == "down");
}

}  // namespace
}  // namespace cub
