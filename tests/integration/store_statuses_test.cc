// lib/store's users, invocations and change_workflows against a real PostgreSQL: what the
// database refuses comes back as a Status naming it (the functions never throw), and a row that
// is not there is NOT_FOUND or nullopt.
#include <catch2/catch.hpp>

#include "harness/test_db.h"
#include "lib/ops/spaces.h"
#include "lib/ops/users.h"
#include "lib/store/change_workflows.h"
#include "lib/store/invocations.h"
#include "lib/store/migrations.h"
#include "lib/store/tokens.h"
#include "lib/store/users.h"

namespace cub {
namespace {

struct Fixture {
  std::string url = testing::FreshDatabaseUrl("store_status");
  std::unique_ptr<store::ConnectionPool> db;
  v1::Space space;

  Fixture() {
    REQUIRE(store::ApplyMigrations(url).ok());
    db = std::make_unique<store::ConnectionPool>(testing::RuntimeUrl(url), 4);
    auto admin = ops::CreateUser(*db, store::NewUser{"admin", {"ops"}, true, false});
    REQUIRE(admin.ok());
    auto p = ops::Authenticate(*db, admin->token);
    REQUIRE(p.ok());
    v1::CreateSpaceRequest req;
    req.set_slug("dev");
    auto s = ops::CreateSpace(*db, *p, req);
    REQUIRE(s.ok());
    space = *s;
  }

  // Runs `fn` in a transaction of its own, so that a statement the database refuses aborts
  // only that one.
  absl::Status Run(const std::function<absl::Status(store::Tx&)>& fn) {
    return store::WithTransaction(*db, fn);
  }
};

TEST_CASE("store users: refusals are statuses, rows read by name", "[store][db]") {
  Fixture f;
  absl::Status taken = f.Run([&](store::Tx& tx) {
    return store::InsertUser(tx, store::NewUser{"admin", {}, false, false}).status();
  });
  CHECK(taken.code() == absl::StatusCode::kAlreadyExists);
  absl::Status bad_user = f.Run([&](store::Tx& tx) {
    return store::InsertToken(tx, {"not-a-uuid", std::string(32, 'x'), "", absl::Hours(1)})
        .status();
  });
  CHECK(bad_user.code() == absl::StatusCode::kInvalidArgument);
  absl::Status no_user = f.Run([&](store::Tx& tx) {
    return store::InsertToken(tx, {"00000000-0000-0000-0000-000000000001", std::string(32, 'x'), "",
                                   absl::Hours(1)})
        .status();
  });
  CHECK(no_user.code() == absl::StatusCode::kFailedPrecondition);

  auto found = store::InTransaction(
      *f.db, [&](store::Tx& tx) { return store::FindUserByName(tx, "admin"); });
  REQUIRE(found.ok());
  REQUIRE(found->has_value());
  CHECK((*found)->admin());
  CHECK((*found)->groups_size() == 1);
  CHECK((*found)->groups(0) == "ops");
  auto missing = store::InTransaction(
      *f.db, [&](store::Tx& tx) { return store::FindTokenByHash(tx, std::string(32, 'y')); });
  REQUIRE(missing.ok());
  CHECK_FALSE(missing->has_value());
}

TEST_CASE("store invocations: refusals are statuses", "[store][db]") {
  Fixture f;
  v1::Invocation inv;
  inv.set_space_id(f.space.space_id());
  inv.set_slug("images");
  inv.set_toolchain_type("Kubernetes/YAML");
  inv.set_function_name("set-image");
  inv.add_arguments("web");
  v1::InvocationParameter* param = inv.add_parameters();
  param->set_name("tag");
  param->set_type("string");
  param->set_required(true);
  auto saved = store::InTransaction(
      *f.db, [&](store::Tx& tx) { return store::InsertInvocation(tx, inv, ""); });
  REQUIRE(saved.ok());
  CHECK(saved->arguments_size() == 1);
  REQUIRE(saved->parameters_size() == 1);
  CHECK(saved->parameters(0).required());

  absl::Status taken =
      f.Run([&](store::Tx& tx) { return store::InsertInvocation(tx, inv, "").status(); });
  CHECK(taken.code() == absl::StatusCode::kAlreadyExists);
  absl::Status bad_space =
      f.Run([&](store::Tx& tx) { return store::ListInvocations(tx, "not-a-uuid").status(); });
  CHECK(bad_space.code() == absl::StatusCode::kInvalidArgument);
}

TEST_CASE("store change_workflows: refusals are statuses, a missing one NOT_FOUND", "[store][db]") {
  Fixture f;
  auto w = store::InTransaction(*f.db, [&](store::Tx& tx) {
    return store::InsertWorkflow(tx, f.space.space_id(), "flow", "{\"Stages\":[]}");
  });
  REQUIRE(w.ok());
  CHECK(w->version == 1);

  absl::Status taken = f.Run([&](store::Tx& tx) {
    return store::InsertWorkflow(tx, f.space.space_id(), "flow", "{}").status();
  });
  CHECK(taken.code() == absl::StatusCode::kAlreadyExists);
  absl::Status not_json = f.Run([&](store::Tx& tx) {
    return store::InsertWorkflow(tx, f.space.space_id(), "other", "{not json").status();
  });
  CHECK(not_json.code() == absl::StatusCode::kInvalidArgument);
  absl::Status gone = f.Run([&](store::Tx& tx) {
    return store::UpdateWorkflow(tx, "00000000-0000-0000-0000-000000000001", "{}").status();
  });
  CHECK(gone.code() == absl::StatusCode::kNotFound);
  absl::Status bad_id = f.Run([&](store::Tx& tx) { return store::DeleteWorkflow(tx, "nope"); });
  CHECK(bad_id.code() == absl::StatusCode::kInvalidArgument);

  auto updated = store::InTransaction(
      *f.db, [&](store::Tx& tx) { return store::UpdateWorkflow(tx, w->id, "{\"Stages\":[1]}"); });
  REQUIRE(updated.ok());
  CHECK(updated->version == 2);
  CHECK(updated->slug == "flow");
}

}  // namespace
}  // namespace cub
