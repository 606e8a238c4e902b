// The foundation's use cases against a real PostgreSQL: migrations, authorization, revisions
// under concurrent writers, immutability, variants, tags and the where language in queries.
#include <catch2/catch.hpp>
#include <pqxx/pqxx>
#include <thread>

#include "harness/test_db.h"
#include "lib/ops/spaces.h"
#include "lib/ops/units.h"
#include "lib/ops/users.h"
#include "lib/ops/variants.h"
#include "lib/store/migrations.h"

namespace cub {
namespace {

constexpr char kDeployment[] = R"(apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 2
  template:
    spec:
      containers:
        - name: web
          image: ghcr.io/acme/web:v1
)";

struct Fixture {
  std::string url = testing::FreshDatabaseUrl("store");
  std::unique_ptr<store::ConnectionPool> db;
  ops::Principal admin, bob;
  Fixture() {
    auto applied = store::ApplyMigrations(url);
    REQUIRE(applied.ok());
    // Migrated as the owner, served as the runtime role, as cubd serve does.
    db = std::make_unique<store::ConnectionPool>(testing::RuntimeUrl(url), 8);
    admin = MakeUser("admin", true, {});
    bob = MakeUser("bob", false, {"team-b"});
  }
  ops::Principal MakeUser(const std::string& name, bool is_admin, std::vector<std::string> g) {
    store::NewUser nu{name, g, is_admin, false};
    auto created = ops::CreateUser(*db, nu);
    REQUIRE(created.ok());
    auto p = ops::Authenticate(*db, created->token);
    REQUIRE(p.ok());
    return *p;
  }
  v1::Space Space(const std::string& slug, const ops::Principal& p) {
    v1::CreateSpaceRequest req;
    req.set_slug(slug);
    auto s = ops::CreateSpace(*db, p, req);
    REQUIRE(s.ok());
    return *s;
  }
  v1::UnitWithData Unit(const std::string& space, const std::string& slug, const std::string& data,
                        const ops::Principal& p) {
    v1::CreateUnitRequest req;
    req.set_space(space);
    req.set_slug(slug);
    req.set_data(data);
    auto u = ops::CreateUnit(*db, p, req);
    REQUIRE(u.ok());
    return *u;
  }
  int64_t Count(const std::string& table) {
    pqxx::connection c(url);
    pqxx::work w(c);
    return w.exec1("SELECT count(*) FROM " + table)[0].as<int64_t>();
  }
};

TEST_CASE("migrations are recorded, idempotent and checksummed") {
  std::string url = testing::FreshDatabaseUrl("migr");
  std::vector<store::EmbeddedMigration> ms = {{"0001_a.sql", "CREATE TABLE a (x int);"}};
  auto first = store::ApplyMigrations(url, ms);
  REQUIRE(first.ok());
  CHECK(first->size() == 1);
  auto again = store::ApplyMigrations(url, ms);
  REQUIRE(again.ok());
  CHECK(again->empty());
  std::vector<store::EmbeddedMigration> edited = {{"0001_a.sql", "CREATE TABLE a (y int);"}};
  auto refused = store::ApplyMigrations(url, edited);
  REQUIRE(refused.status().code() == absl::StatusCode::kFailedPrecondition);
  CHECK_THAT(std::string(refused.status().message()), Catch::Contains("0001_a.sql"));
}

TEST_CASE("tokens authenticate and are stored only as hashes") {
  Fixture f;
  CHECK(ops::Authenticate(*f.db, "").status().code() == absl::StatusCode::kUnauthenticated);
  CHECK(ops::Authenticate(*f.db, "cub_wrong").status().code() ==
        absl::StatusCode::kUnauthenticated);
  pqxx::connection c(f.url);
  pqxx::work w(c);
  CHECK(w.exec1("SELECT count(*) FROM tokens WHERE octet_length(token_hash) = 32")[0].as<int>() ==
        2);
}

TEST_CASE("a space is invisible without a role and read-only for a viewer") {
  Fixture f;
  f.Space("acme-base", f.admin);
  f.Unit("acme-base", "web", kDeployment, f.admin);

  v1::GetSpaceRequest get;
  get.set_space("acme-base");
  CHECK(ops::GetSpace(*f.db, f.bob, get).status().code() == absl::StatusCode::kNotFound);
  v1::ListSpacesRequest list;
  CHECK(ops::ListSpaces(*f.db, f.bob, list)->spaces_size() == 0);

  v1::GrantRequest grant;
  grant.set_space("acme-base");
  grant.set_role("viewer");
  grant.set_group("team-b");
  REQUIRE(ops::Grant(*f.db, f.admin, grant).ok());
  CHECK(ops::GetSpace(*f.db, f.bob, get).ok());

  v1::UpdateUnitRequest upd;
  upd.set_space("acme-base");
  upd.set_unit("web");
  upd.set_data("kind: ConfigMap\n");
  auto refused = ops::UpdateUnit(*f.db, f.bob, upd);
  CHECK(refused.status().code() == absl::StatusCode::kPermissionDenied);
  CHECK(f.Count("revisions") == 1);
  // A viewer cannot grant either.
  grant.set_role("admin");
  grant.set_group("");
  grant.set_username("bob");
  CHECK(ops::Grant(*f.db, f.bob, grant).status().code() == absl::StatusCode::kPermissionDenied);
}

TEST_CASE("bad YAML is refused and writes nothing") {
  Fixture f;
  f.Space("s", f.admin);
  v1::CreateUnitRequest req;
  req.set_space("s");
  req.set_slug("bad");
  req.set_data("a: b: c\n");
  auto r = ops::CreateUnit(*f.db, f.admin, req);
  CHECK(r.status().code() == absl::StatusCode::kInvalidArgument);
  CHECK(f.Count("units") == 0);
}

TEST_CASE("concurrent updates of one unit all land, numbered in sequence") {
  Fixture f;
  f.Space("s", f.admin);
  f.Unit("s", "web", kDeployment, f.admin);
  constexpr int kWriters = 8;
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int i = 0; i < kWriters; ++i) {
    threads.emplace_back([&, i] {
      v1::UpdateUnitRequest upd;
      upd.set_space("s");
      upd.set_unit("web");
      upd.set_data("kind: ConfigMap\ndata:\n  writer: \"" + std::to_string(i) + "\"\n");
      if (!ops::UpdateUnit(*f.db, f.admin, upd).ok()) ++failures;
    });
  }
  for (auto& t : threads) t.join();
  CHECK(failures == 0);
  v1::ListRevisionsRequest lr;
  lr.set_space("s");
  lr.set_unit("web");
  auto revs = ops::ListRevisions(*f.db, f.admin, lr);
  REQUIRE(revs.ok());
  REQUIRE(revs->revisions_size() == kWriters + 1);
  for (int i = 0; i < revs->revisions_size(); ++i) {
    CHECK(revs->revisions(i).revision_num() == i + 1);
  }
}

TEST_CASE("revisions are immutable in the database") {
  Fixture f;
  f.Space("s", f.admin);
  f.Unit("s", "web", kDeployment, f.admin);
  pqxx::connection c(f.url);
  pqxx::work w(c);
  CHECK_THROWS(w.exec0("UPDATE revisions SET data = 'x'"));
}

TEST_CASE("equal but re-formatted data has the same hash and writes no revision") {
  Fixture f;
  f.Space("s", f.admin);
  auto u = f.Unit("s", "cm", "kind: ConfigMap\ndata: {a: '1', b: '2'}\n", f.admin);
  v1::UpdateUnitRequest upd;
  upd.set_space("s");
  upd.set_unit("cm");
  upd.set_data("# reordered\ndata:\n  b: \"2\"\n  a: \"1\"\nkind: ConfigMap\n");
  auto r = ops::UpdateUnit(*f.db, f.admin, upd);
  REQUIRE(r.ok());
  CHECK(r->unchanged());
  CHECK(r->unit().head_revision_num() == 1);
}

TEST_CASE("restore, tags and revision selectors") {
  Fixture f;
  f.Space("s", f.admin);
  f.Unit("s", "cm", "v: 1\n", f.admin);
  v1::UpdateUnitRequest upd;
  upd.set_space("s");
  upd.set_unit("cm");
  upd.set_data("v: 2\n");
  REQUIRE(ops::UpdateUnit(*f.db, f.admin, upd).ok());

  v1::CreateTagRequest tag;
  tag.set_space("s");
  tag.set_slug("release");
  REQUIRE(ops::CreateTag(*f.db, f.admin, tag).ok());
  v1::TagUnitRequest mark;
  mark.set_space("s");
  mark.set_unit("cm");
  mark.set_tag("release");
  mark.set_revision("2");
  REQUIRE(ops::TagUnit(*f.db, f.admin, mark).ok());
  mark.set_revision("1");
  CHECK(ops::TagUnit(*f.db, f.admin, mark).status().code() ==
        absl::StatusCode::kFailedPrecondition);
  mark.set_move(true);
  REQUIRE(ops::TagUnit(*f.db, f.admin, mark).ok());
  mark.set_move(false);
  mark.set_revision("2");
  mark.set_move(true);
  REQUIRE(ops::TagUnit(*f.db, f.admin, mark).ok());

  upd.set_data("v: 3\n");
  REQUIRE(ops::UpdateUnit(*f.db, f.admin, upd).ok());
  upd.clear_data();
  upd.set_restore("Before:Tag:release");
  auto restored = ops::UpdateUnit(*f.db, f.admin, upd);
  REQUIRE(restored.ok());
  CHECK(restored->revision().revision_num() == 4);
  CHECK(restored->revision().restored_from_num() == 1);
  CHECK(restored->revision().data() == "v: 1\n");
  upd.set_restore("-1");
  CHECK(ops::UpdateUnit(*f.db, f.admin, upd)->revision().data() == "v: 3\n");
  upd.set_restore("Tag:nope");
  CHECK(ops::UpdateUnit(*f.db, f.admin, upd).status().code() == absl::StatusCode::kNotFound);
}

TEST_CASE("variants clone units with links, and chain") {
  Fixture f;
  f.Space("acme-base", f.admin);
  f.Unit("acme-base", "web", kDeployment, f.admin);
  f.Unit("acme-base", "cm", "kind: ConfigMap\n", f.admin);
  v1::CreateVariantRequest req;
  req.set_slug("acme-dev");
  req.set_upstream_space("acme-base");
  req.set_stage("Development");
  auto dev = ops::CreateVariant(*f.db, f.admin, req);
  REQUIRE(dev.ok());
  CHECK(dev->units_size() == 2);
  CHECK(dev->link_count() == 2);
  CHECK(dev->space().labels().at("Stage") == "Development");
  req.set_slug("acme-staging");
  req.set_upstream_space("acme-dev");
  req.set_stage("Staging");
  REQUIRE(ops::CreateVariant(*f.db, f.admin, req).ok());

  v1::ListLinksRequest links;
  links.set_space("acme-staging");
  auto l = ops::ListLinks(*f.db, f.admin, links);
  REQUIRE(l.ok());
  REQUIRE(l->links_size() == 2);
  CHECK(l->links(0).to_space_slug() == "acme-dev");
  CHECK(l->links(0).upstream_revision_num() == 1);

  v1::ListUnitsRequest lu;
  lu.set_space("*");
  lu.mutable_options()->set_where(
      "Slug = 'web' AND Space.Labels.Stage IN ('Staging', 'Development')");
  auto units = ops::ListUnits(*f.db, f.admin, lu);
  REQUIRE(units.ok());
  CHECK(units->units_size() == 2);

  v1::DeleteSpaceRequest del;
  del.set_space("acme-dev");
  auto refused = ops::DeleteSpace(*f.db, f.admin, del);
  CHECK(refused.code() == absl::StatusCode::kFailedPrecondition);
  CHECK_THAT(std::string(refused.message()), Catch::Contains("acme-staging"));
}

TEST_CASE("where injection attempts match nothing or are refused") {
  Fixture f;
  f.Space("s", f.admin);
  f.Unit("s", "web", kDeployment, f.admin);
  v1::ListUnitsRequest lu;
  lu.set_space("*");
  lu.mutable_options()->set_where("Slug = 'x'' OR 1=1 --'");
  auto r = ops::ListUnits(*f.db, f.admin, lu);
  REQUIRE(r.ok());
  CHECK(r->units_size() == 0);
  lu.mutable_options()->set_where("Slug; DROP TABLE units = 'a'");
  CHECK(ops::ListUnits(*f.db, f.admin, lu).status().code() == absl::StatusCode::kInvalidArgument);
  lu.mutable_options()->set_where("Lables.tier = 'x'");
  auto bad = ops::ListUnits(*f.db, f.admin, lu);
  CHECK(std::string(bad.status().message()) == "where: unknown field 'Lables' at 1");
  CHECK(f.Count("units") == 1);
}

TEST_CASE("saved filters apply to lists") {
  Fixture f;
  f.Space("platform", f.admin);
  v1::CreateSpaceRequest cs;
  cs.set_slug("acme-prod");
  (*cs.mutable_labels())["Stage"] = "Production";
  REQUIRE(ops::CreateSpace(*f.db, f.admin, cs).ok());
  v1::CreateFilterRequest cf;
  cf.set_space("platform");
  cf.set_slug("prod");
  cf.set_from("Space");
  cf.set_where_field("Labels.Stage = 'Production'");
  REQUIRE(ops::CreateFilter(*f.db, f.admin, cf).ok());
  cf.set_slug("broken");
  cf.set_where_field("Labels.Stage = ");
  CHECK(ops::CreateFilter(*f.db, f.admin, cf).status().code() ==
        absl::StatusCode::kInvalidArgument);
  v1::ListSpacesRequest ls;
  ls.mutable_options()->set_filter("platform/prod");
  auto r = ops::ListSpaces(*f.db, f.admin, ls);
  REQUIRE(r.ok());
  REQUIRE(r->spaces_size() == 1);
  CHECK(r->spaces(0).slug() == "acme-prod");
}

}  // namespace
}  // namespace cub
