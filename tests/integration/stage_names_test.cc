// SpaceNamesAmongEach, the Stage membership Explain, a refused promotion and the progress counts
// read by name, against a real PostgreSQL: for every where it selects exactly the Spaces, in the
// same order, that SpacesAmongEach (the whole Spaces, which the rest of a promotion reads)
// selects. Including the edges: a Space whose labels make a where NULL (the label is missing) or
// false, a where that selects nothing, a Space outside the IDs given, no IDs at all, and a where
// that does not compile (refused, with its index). SpaceNamesInScopeEach, the same over a
// ChangeOrder's scope as stored, answers alike while the ChangeOrder's version is the one given,
// and not at all (nullopt) once it has changed, whether it probes the Spaces per ID (a scope
// small beside the Spaces) or scans them (a large one: kLargeScope says so); so does
// SpaceNamesInScope, every Space in scope.
#include <algorithm>
#include <catch2/catch.hpp>
#include <memory>
#include <string>
#include <vector>

#include "harness/test_db.h"
#include "lib/store/change_orders.h"
#include "lib/store/migrations.h"
#include "lib/store/spaces.h"
#include "lib/store/tags.h"
#include "lib/store/units.h"

namespace cub {
namespace {

// A scope size that makes SpaceNamesInScopeEach scan every Space rather than probe per ID (any
// scope of 1,000 or more, against the handful of Spaces here). The size passed is the caller's
// count of the scope it holds: it chooses the plan, never the answer.
constexpr size_t kLargeScope = 1000;

struct Fixture {
  std::string url = testing::FreshDatabaseUrl("stage_names");
  std::unique_ptr<store::ConnectionPool> db;
  std::vector<std::string> ids;  // in scope: every Space but "outside"
  store::StoredChangeOrder co;   // of base, its scope `ids`

  Fixture() {
    REQUIRE(store::ApplyMigrations(url).ok());
    db = std::make_unique<store::ConnectionPool>(testing::RuntimeUrl(url), 2);
    REQUIRE(store::WithTransaction(*db, [&](store::Tx& tx) -> absl::Status {
              // Slugs out of label order, so that the order by slug is seen.
              const std::vector<store::NewSpace> spaces = {
                  {"prod-b", "", {{"Stage", "prod"}, {"Region", "eu"}}, {}, "", ""},
                  {"prod-a", "", {{"Stage", "prod"}}, {}, "", ""},  // no Region: NULL
                  {"dev", "", {{"Stage", "dev"}, {"Region", "us"}}, {}, "", ""},
                  {"base", "", {}, {}, "", ""},  // no labels at all
                  {"outside", "", {{"Stage", "prod"}, {"Region", "eu"}}, {}, "", ""},
              };
              auto web = store::EnsureComponent(tx, "web");
              if (!web.ok()) return web.status();
              for (auto ns : spaces) {
                if (ns.slug == "prod-b") ns.component_id = *web;
                auto s = store::InsertSpace(tx, ns);
                if (!s.ok()) return s.status();
                if (ns.slug != "outside") ids.push_back(s->space_id());
                if (ns.slug == "base") co.space_id = s->space_id();
              }
              std::string* tag_ids[] = {&co.start_tag_id, &co.end_tag_id, &co.publish_tag_id};
              const char* tag_slugs[] = {"c-start", "c-end", "c-publish"};
              for (int i = 0; i < 3; ++i) {
                auto t = store::InsertTag(tx, {co.space_id, tag_slugs[i], "", {}});
                if (!t.ok()) return t.status();
                *tag_ids[i] = t->tag_id();
              }
              co.slug = "c";
              co.in_scope_space_ids = ids;
              auto stored = store::InsertChangeOrder(tx, co);
              if (!stored.ok()) return stored.status();
              co = *stored;
              return absl::OkStatus();
            }).ok());
  }
};

// The IDs and slugs of `spaces`, in their order.
std::vector<std::pair<std::string, std::string>> Names(const std::vector<v1::Space>& spaces) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& s : spaces) out.emplace_back(s.space_id(), s.slug());
  return out;
}

std::vector<std::pair<std::string, std::string>> Names(const std::vector<store::SpaceName>& names) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& n : names) out.emplace_back(n.space_id, n.slug);
  return out;
}

std::vector<std::string> Slugs(const std::vector<store::SpaceName>& names) {
  std::vector<std::string> out;
  for (const auto& n : names) out.push_back(n.slug);
  return out;
}

TEST_CASE("SpaceNamesAmongEach names what SpacesAmongEach reads, where by where") {
  Fixture f;
  const std::vector<std::string> wheres = {
      "Labels.Stage = 'prod'",    "Labels.Stage = 'dev'",
      "Labels.Region = 'eu'",      // NULL for prod-a and base: no match
      "Labels.Region != 'eu'",     // NULL for prod-a and base too, false for prod-b
      "Labels.Stage = 'staging'",  // nobody: an empty Stage
      "Slug LIKE 'prod-%'",
      "Component.Slug = 'web'",  // a join of its own: prod-b only
  };
  REQUIRE(store::WithTransaction(*f.db, [&](store::Tx& tx) -> absl::Status {
            auto whole = store::SpacesAmongEach(tx, f.ids, wheres);
            REQUIRE(whole.ok());
            auto names = store::SpaceNamesAmongEach(tx, f.ids, wheres);
            REQUIRE(names.ok());
            REQUIRE(names->size() == wheres.size());
            auto every = store::SpaceNamesInScope(tx, f.co.id, f.co.version);
            REQUIRE(every.ok());
            REQUIRE(every->has_value());
            auto pairs = store::SpaceSlugsAmong(tx, f.ids);
            REQUIRE(pairs.ok());
            CHECK(Names(**every) == *pairs);
            for (size_t scope_size : {f.ids.size(), kLargeScope}) {
              INFO("scope size " << scope_size);
              auto in_scope =
                  store::SpaceNamesInScopeEach(tx, f.co.id, f.co.version, scope_size, wheres);
              REQUIRE(in_scope.ok());
              REQUIRE(in_scope->has_value());
              REQUIRE((*in_scope)->size() == wheres.size());
              for (size_t i = 0; i < wheres.size(); ++i) {
                INFO(wheres[i]);
                CHECK(Names((*names)[i]) == Names((*whole)[i]));
                CHECK(Names((**in_scope)[i]) == Names((*whole)[i]));
              }
            }
            CHECK(Slugs((*names)[0]) == std::vector<std::string>{"prod-a", "prod-b"});
            CHECK(Slugs((*names)[1]) == std::vector<std::string>{"dev"});
            CHECK(Slugs((*names)[2]) == std::vector<std::string>{"prod-b"});
            CHECK(Slugs((*names)[3]) == std::vector<std::string>{"dev"});
            CHECK((*names)[4].empty());
            CHECK(Slugs((*names)[5]) == std::vector<std::string>{"prod-a", "prod-b"});
            CHECK(Slugs((*names)[6]) == std::vector<std::string>{"prod-b"});
            return absl::OkStatus();
          }).ok());
}

TEST_CASE("SpaceNamesAmongEach over no Spaces, or no wheres, selects nothing") {
  Fixture f;
  REQUIRE(store::WithTransaction(*f.db, [&](store::Tx& tx) -> absl::Status {
            auto none = store::SpaceNamesAmongEach(tx, {}, {"Labels.Stage = 'prod'"});
            REQUIRE(none.ok());
            REQUIRE(none->size() == 1);
            CHECK((*none)[0].empty());
            auto no_wheres = store::SpaceNamesAmongEach(tx, f.ids, {});
            REQUIRE(no_wheres.ok());
            CHECK(no_wheres->empty());
            return absl::OkStatus();
          }).ok());
}

TEST_CASE("SpaceNamesAmongEach refuses a where that does not compile, naming its index") {
  Fixture f;
  REQUIRE(store::WithTransaction(*f.db, [&](store::Tx& tx) -> absl::Status {
            size_t bad = 99;
            auto got = store::SpaceNamesAmongEach(
                tx, f.ids, {"Labels.Stage = 'prod'", "NoSuchField = 'x'"}, &bad);
            CHECK_FALSE(got.ok());
            CHECK(bad == 1);
            size_t bad_whole = 99;
            auto whole = store::SpacesAmongEach(
                tx, f.ids, {"Labels.Stage = 'prod'", "NoSuchField = 'x'"}, &bad_whole);
            CHECK_FALSE(whole.ok());
            CHECK(got.status().message() == whole.status().message());
            return absl::OkStatus();
          }).ok());
}

TEST_CASE("SpaceNamesInScopeEach answers for the version given, nullopt once it has changed") {
  Fixture f;
  const std::vector<std::string> wheres = {"Labels.Stage = 'prod'"};
  REQUIRE(store::WithTransaction(*f.db, [&](store::Tx& tx) -> absl::Status {
            // An empty scope still answers (no Space), rather than reading as changed.
            store::ChangeOrderChanges empty;
            empty.in_scope_space_ids = std::vector<std::string>{};
            REQUIRE(store::UpdateChangeOrder(tx, f.co.id, empty).ok());
            auto stale_every = store::SpaceNamesInScope(tx, f.co.id, f.co.version);
            REQUIRE(stale_every.ok());
            CHECK_FALSE(stale_every->has_value());
            auto no_names = store::SpaceNamesInScope(tx, f.co.id, f.co.version + 1);
            REQUIRE(no_names.ok());
            REQUIRE(no_names->has_value());
            CHECK((*no_names)->empty());
            for (size_t scope_size : {size_t{0}, kLargeScope}) {
              INFO("scope size " << scope_size);
              auto stale =
                  store::SpaceNamesInScopeEach(tx, f.co.id, f.co.version, scope_size, wheres);
              REQUIRE(stale.ok());
              CHECK_FALSE(stale->has_value());
              auto none =
                  store::SpaceNamesInScopeEach(tx, f.co.id, f.co.version + 1, scope_size, wheres);
              REQUIRE(none.ok());
              REQUIRE(none->has_value());
              REQUIRE((*none)->size() == 1);
              CHECK((**none)[0].empty());
              auto gone = store::SpaceNamesInScopeEach(tx, "00000000-0000-0000-0000-0000000000ff",
                                                       1, scope_size, wheres);
              REQUIRE(gone.ok());
              CHECK_FALSE(gone->has_value());
            }
            size_t bad = 99;
            auto broken = store::SpaceNamesInScopeEach(tx, f.co.id, f.co.version + 1, kLargeScope,
                                                       {"Labels.Stage = 'prod'", "Nope = 1"}, &bad);
            CHECK_FALSE(broken.ok());
            CHECK(bad == 1);
            return absl::OkStatus();
          }).ok());
}

TEST_CASE("a ChangeOrder read alone resolves the Spaces a list of it resolves") {
  Fixture f;
  // The publish Tag marks a Unit in dev, in prod-a and in outside (not in scope); dev is
  // listed twice in the scope.
  REQUIRE(store::WithTransaction(*f.db, [&](store::Tx& tx) -> absl::Status {
            auto tag = store::FindTag(tx, f.co.space_id, "c-publish");
            if (!tag.ok()) return tag.status();
            for (const char* slug : {"dev", "prod-a", "outside"}) {
              auto space = store::FindSpace(tx, slug);
              if (!space.ok()) return space.status();
              auto unit =
                  store::InsertUnit(tx, {(*space)->space_id(), "app", "Kubernetes/YAML", {}, {}});
              if (!unit.ok()) return unit.status();
              store::NewRevision nr;
              nr.data = "a: 1\n";
              nr.data_hash = "sha256:abc";
              auto rev = store::AppendRevision(tx, unit->unit_id(), nr);
              if (!rev.ok()) return rev.status();
              auto marked = store::MarkRevision(tx, **tag, *unit, 1, false);
              if (!marked.ok()) return marked.status();
            }
            store::ChangeOrderChanges scope;
            std::vector<std::string> ids = f.ids;
            ids.push_back(ids[2]);  // dev again
            scope.in_scope_space_ids = ids;
            return store::UpdateChangeOrder(tx, f.co.id, scope);
          }).ok());
  std::vector<std::string> alone, listed, expected;
  REQUIRE(store::WithTransaction(*f.db, [&](store::Tx& tx) -> absl::Status {
            auto one = store::FindChangeOrder(tx, f.co.space_id, "c");
            if (!one.ok()) return one.status();
            REQUIRE(one->has_value());
            alone = (*one)->resolved_space_ids;
            store::Caller admin;
            admin.admin = true;
            auto all = store::ListChangeOrders(tx, admin, f.co.space_id);
            if (!all.ok()) return all.status();
            REQUIRE(all->size() == 1);
            listed = (*all)[0].resolved_space_ids;
            expected = {f.ids[1], f.ids[2]};  // prod-a and dev
            return absl::OkStatus();
          }).ok());
  std::sort(expected.begin(), expected.end());
  CHECK(alone == expected);
  CHECK(listed == expected);
}

}  // namespace
}  // namespace cub
