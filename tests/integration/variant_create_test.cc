// Variants in bulk against a real PostgreSQL: CreateVariants writes each variant as
// CreateVariant writes one, in order and all or nothing, and the store's set-based pieces
// (lib/store/variants.h) do what their contracts say.
#include <algorithm>
#include <catch2/catch.hpp>
#include <pqxx/pqxx>

#include "harness/test_db.h"
#include "lib/ops/spaces.h"
#include "lib/ops/units.h"
#include "lib/ops/users.h"
#include "lib/ops/variants.h"
#include "lib/store/migrations.h"
#include "lib/store/spaces.h"
#include "lib/store/variants.h"

namespace cub {
namespace {

struct Fixture {
  std::string url = testing::FreshDatabaseUrl("variant_create");
  std::unique_ptr<store::ConnectionPool> db;
  ops::Principal admin, bob;
  Fixture() {
    REQUIRE(store::ApplyMigrations(url).ok());
    db = std::make_unique<store::ConnectionPool>(testing::RuntimeUrl(url), 4);
    admin = MakeUser("admin", true, {});
    bob = MakeUser("bob", false, {"team-b"});
    v1::CreateSpaceRequest space;
    space.set_slug("base");
    REQUIRE(ops::CreateSpace(*db, admin, space).ok());
    for (const char* slug : {"web", "cm"}) {
      v1::CreateUnitRequest unit;
      unit.set_space("base");
      unit.set_slug(slug);
      unit.set_data(std::string("kind: ConfigMap\nmetadata:\n  name: ") + slug + "\n");
      REQUIRE(ops::CreateUnit(*db, admin, unit).ok());
    }
  }
  ops::Principal MakeUser(const std::string& name, bool is_admin, std::vector<std::string> g) {
    auto created = ops::CreateUser(*db, store::NewUser{name, g, is_admin, false});
    REQUIRE(created.ok());
    auto p = ops::Authenticate(*db, created->token);
    REQUIRE(p.ok());
    return *p;
  }
  std::string Query(const std::string& sql) {
    pqxx::connection c(url);
    pqxx::work w(c);
    return w.exec1(sql)[0].as<std::string>();
  }
};

v1::CreateVariantsRequest Batch(std::initializer_list<const char*> slugs) {
  v1::CreateVariantsRequest req;
  for (const char* s : slugs) req.add_slugs(s);
  req.set_upstream_space("base");
  req.set_stage("Production");
  return req;
}

TEST_CASE("CreateVariants creates each variant as CreateVariant does") {
  Fixture f;
  v1::CreateVariantRequest one;
  one.set_slug("single");
  one.set_upstream_space("base");
  one.set_stage("Production");
  auto single = ops::CreateVariant(*f.db, f.admin, one);
  REQUIRE(single.ok());
  CHECK(single->units_size() == 2);
  CHECK(single->link_count() == 2);

  auto bulk = ops::CreateVariants(*f.db, f.admin, Batch({"v-c", "v-a", "v-b"}));
  REQUIRE(bulk.ok());
  REQUIRE(bulk->spaces_size() == 3);
  CHECK(bulk->spaces(0).slug() == "v-a");  // by slug
  CHECK(bulk->spaces(2).slug() == "v-c");
  CHECK(bulk->spaces(1).labels().at("Stage") == "Production");
  CHECK(bulk->spaces(1).upstream_space_id() == single->space().upstream_space_id());
  CHECK(bulk->unit_count() == 2);
  CHECK(bulk->link_count() == 6);
  // Units, first revisions and Links alike, field for field but for their own IDs.
  const std::string digest =
      "SELECT count(DISTINCT d) || '/' || count(*) FROM (SELECT s.slug, string_agg(concat_ws(',',"
      " u.slug, u.head_revision_num, u.upstream_unit_id, r.data_hash, r.description, r.author_id,"
      " r.upstream_revision_num, l.slug, l.to_unit_id, l.update_type, l.upstream_revision_num),"
      " ';' ORDER BY u.slug) AS d FROM spaces s JOIN units u ON u.space_id = s.id"
      " JOIN revisions r ON r.unit_id = u.id JOIN links l ON l.from_unit_id = u.id"
      " WHERE s.slug IN ('single', 'v-a', 'v-b', 'v-c') GROUP BY s.slug) x";
  CHECK(f.Query(digest) == "1/4");
  CHECK(f.Query("SELECT count(*) FROM space_permissions p JOIN spaces s ON s.id = p.space_id"
                " WHERE s.slug LIKE 'v-%' AND p.role = 'admin'") == "3");
}

TEST_CASE("CreateVariants refuses a batch whole, naming the slugs at fault") {
  Fixture f;
  REQUIRE(ops::CreateVariants(*f.db, f.admin, Batch({"taken"})).ok());
  const std::string before = f.Query("SELECT count(*) FROM spaces");
  auto invalid = ops::CreateVariants(*f.db, f.admin, Batch({"ok", "no way", "", "fine"}));
  CHECK(invalid.status().code() == absl::StatusCode::kInvalidArgument);
  CHECK_THAT(std::string(invalid.status().message()),
             Catch::StartsWith("space names not valid: 'no way', ''"));
  auto twice = ops::CreateVariants(*f.db, f.admin, Batch({"a", "b", "a", "b", "a"}));
  CHECK(std::string(twice.status().message()) == "space names given more than once: 'a', 'b'");
  auto taken = ops::CreateVariants(*f.db, f.admin, Batch({"new", "taken"}));
  CHECK(taken.status().code() == absl::StatusCode::kAlreadyExists);
  CHECK(std::string(taken.status().message()) == "space 'taken' already exists");
  // A slug that reads as an existing Space's ID is taken too, as for a single create.
  const std::string base_id = f.Query("SELECT id::text FROM spaces WHERE slug = 'base'");
  auto by_id = ops::CreateVariants(*f.db, f.admin, Batch({"new", "taken", base_id.c_str()}));
  CHECK(std::string(by_id.status().message()) ==
        "2 spaces already exist: '" + std::min(base_id, std::string("taken")) + "', '" +
            std::max(base_id, std::string("taken")) + "'");
  v1::CreateVariantsRequest none = Batch({});
  CHECK(ops::CreateVariants(*f.db, f.admin, none).status().code() ==
        absl::StatusCode::kInvalidArgument);
  v1::CreateVariantsRequest many = Batch({});
  for (int i = 0; i <= ops::kMaxVariantsPerCall; ++i) many.add_slugs("m" + std::to_string(i));
  CHECK_THAT(std::string(ops::CreateVariants(*f.db, f.admin, many).status().message()),
             Catch::Contains("the limit is 10000"));
  v1::CreateVariantsRequest missing = Batch({"x", "y"});
  missing.set_upstream_space("nope");
  CHECK(ops::CreateVariants(*f.db, f.admin, missing).status().code() ==
        absl::StatusCode::kNotFound);
  CHECK_FALSE(ops::CreateVariants(*f.db, f.bob, Batch({"x", "y"})).ok());
  CHECK(f.Query("SELECT count(*) FROM spaces") == before);
  CHECK(f.Query("SELECT count(*) FROM units") == "4");  // base's 2 and taken's 2
}

TEST_CASE("the store's variant pieces keep order and find taken refs") {
  Fixture f;
  const std::string base_id = f.Query("SELECT id::text FROM spaces WHERE slug = 'base'");
  REQUIRE(store::WithTransaction(*f.db, [&](store::Tx& tx) -> absl::Status {
            auto taken = store::TakenSpaceRefs(tx, {"zz", base_id, "base", "BASE", "nope"});
            REQUIRE(taken.ok());
            std::vector<std::string> want = {base_id, "base"};  // sorted bytewise
            std::sort(want.begin(), want.end());
            CHECK(*taken == want);
            store::NewVariants nv;
            nv.slugs = {"c", "a", "b"};
            nv.upstream_space_id = base_id;
            auto ids = store::InsertVariantSpaces(tx, nv);
            REQUIRE(ids.ok());
            REQUIRE(ids->size() == 3);
            for (size_t i = 0; i < ids->size(); ++i) {
              auto s = store::FindSpace(tx, (*ids)[i]);
              REQUIRE(s.ok());
              REQUIRE(s->has_value());
              CHECK((*s)->slug() == nv.slugs[i]);  // IDs in the order of the slugs
            }
            auto cloned = store::CloneUnits(tx, base_id, *ids, "", "test");
            REQUIRE(cloned.ok());
            CHECK(*cloned == 6);
            return absl::CancelledError("roll back");
          }).code() == absl::StatusCode::kCancelled);
  CHECK(f.Query("SELECT count(*) FROM spaces") == "1");
}

}  // namespace
}  // namespace cub
