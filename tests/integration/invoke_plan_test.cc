// PlanInvoke (lib/ops/invoke_plan.h) against a real PostgreSQL: a store read that fails comes
// back as its Status (not as an exception), and a validator that cannot be run fails the Unit
// and its Space instead of being dropped.
#include "lib/ops/invoke_plan.h"

#include <catch2/catch.hpp>
#include <string>

#include "harness/test_db.h"
#include "lib/ops/spaces.h"
#include "lib/ops/units.h"
#include "lib/ops/users.h"
#include "lib/store/errors.h"
#include "lib/store/migrations.h"
#include "lib/store/transaction.h"

namespace cub {
namespace {

constexpr char kNoSuchId[] = "00000000-0000-0000-0000-0000000000ff";

constexpr char kDeployment[] = R"(apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  template:
    spec:
      containers:
        - name: web
          image: ghcr.io/acme/web:v1
)";

struct Fixture {
  std::string url = testing::FreshDatabaseUrl("invoke_plan");
  std::unique_ptr<store::ConnectionPool> db;
  ops::Principal admin;
  v1::Space space;
  ops::ResolvedChangeOrder rco;
  Fixture() {
    REQUIRE(store::ApplyMigrations(url).ok());
    db = std::make_unique<store::ConnectionPool>(testing::RuntimeUrl(url), 4);
    auto created = ops::CreateUser(*db, store::NewUser{"admin", {}, true, false});
    REQUIRE(created.ok());
    auto p = ops::Authenticate(*db, created->token);
    REQUIRE(p.ok());
    admin = *p;
    v1::CreateSpaceRequest sreq;
    sreq.set_slug("app");
    auto s = ops::CreateSpace(*db, admin, sreq);
    REQUIRE(s.ok());
    space = *s;
    v1::CreateUnitRequest ureq;
    ureq.set_space("app");
    ureq.set_slug("web");
    ureq.set_toolchain_type("Kubernetes/YAML");
    ureq.set_data(kDeployment);
    REQUIRE(ops::CreateUnit(*db, admin, ureq).ok());
    rco.base = space;
    rco.update_type = domain::UpdateType::kInvoke;
    rco.co.id = kNoSuchId;
    rco.co.slug = "web-v2";
    rco.co.update_type = "Invoke";
    rco.co.invocation = "app/set-web";
    rco.co.function_name = "set-container-image";
    rco.co.function_args = {"web", "ghcr.io/acme/web:v2"};
    rco.co.start_tag_id = rco.co.end_tag_id = rco.co.publish_tag_id = kNoSuchId;
  }
  // PlanInvoke over `targets` in a transaction that is then abandoned.
  absl::StatusOr<std::vector<ops::SpacePlan>> Plan(const std::vector<v1::Space>& targets) {
    ops::PlanOptions opts;
    opts.rco = &rco;
    opts.principal = &admin;
    opts.lock = false;
    absl::StatusOr<std::vector<ops::SpacePlan>> plans;
    (void)store::WithTransaction(*db, [&](store::Tx& tx) {
      plans = ops::PlanInvoke(tx, opts, targets);
      return absl::FailedPreconditionError("roll back");
    });
    return plans;
  }
};

TEST_CASE("PlanInvoke runs the Invocation on the Unit and plans its next revision") {
  Fixture f;
  auto plans = f.Plan({f.space});
  REQUIRE(plans.ok());
  REQUIRE(plans->size() == 1);
  const ops::SpacePlan& plan = (*plans)[0];
  CHECK(plan.report.status() == "Promoted");
  REQUIRE(plan.report.units_size() == 1);
  CHECK(plan.report.units(0).action() == "Invoked");
  REQUIRE(plan.writes.revisions.size() == 1);
  CHECK_THAT(plan.writes.revisions[0].data, Catch::Contains("ghcr.io/acme/web:v2"));
}

TEST_CASE("PlanInvoke returns a Units read PostgreSQL refuses as its Status") {
  Fixture f;
  // The Tag IDs are cast to uuid by the Units read, which PostgreSQL refuses.
  f.rco.co.start_tag_id = f.rco.co.end_tag_id = f.rco.co.publish_tag_id = "not-a-uuid";
  auto plans = f.Plan({f.space});
  CHECK(plans.status().code() == absl::StatusCode::kInvalidArgument);
}

TEST_CASE("PlanInvoke returns a validator lookup PostgreSQL refuses, not a failed Unit") {
  // The refusal aborts the transaction, so no per-Unit report could be written after it: the
  // planner passes it up (store::FailedInDatabase), and the promotion fails as a whole.
  Fixture f;
  v1::Space target = f.space;
  // Not UTF-8: PostgreSQL refuses to look the validator's Space up.
  target.add_validating_invocations("\xff\xfe/vet");
  auto plans = f.Plan({target});
  REQUIRE_FALSE(plans.ok());
  CHECK(store::FailedInDatabase(plans.status()));
}

}  // namespace
}  // namespace cub
