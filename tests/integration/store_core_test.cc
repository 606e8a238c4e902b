// The store's error contract for Spaces, Units, Tags and Links against a real PostgreSQL: a
// statement that fails (a taken slug, a missing row a foreign key names, a value the column's
// type refuses) comes back from the store function as the mapped Status, and the caller's code
// after the call runs; nothing is thrown past lib/store. Rows are read by column name, so a
// round trip returns every field as it was written.
#include <catch2/catch.hpp>
#include <cctype>
#include <functional>
#include <memory>
#include <optional>
#include <pqxx/pqxx>
#include <string>

#include "harness/test_db.h"
#include "lib/store/links.h"
#include "lib/store/migrations.h"
#include "lib/store/spaces.h"
#include "lib/store/sql.h"
#include "lib/store/tags.h"
#include "lib/store/units.h"

namespace cub {
namespace {

constexpr char kNoSuchId[] = "00000000-0000-0000-0000-0000000000ff";

struct Fixture {
  std::string url = testing::FreshDatabaseUrl("store_core");
  std::unique_ptr<store::ConnectionPool> db;
  v1::Space space;
  v1::Unit unit;

  Fixture() {
    REQUIRE(store::ApplyMigrations(url).ok());
    db = std::make_unique<store::ConnectionPool>(testing::RuntimeUrl(url), 2);
    REQUIRE(store::WithTransaction(*db, [&](store::Tx& tx) -> absl::Status {
              store::NewSpace ns{"home", "Home", {{"Stage", "dev"}}, {{"note", "x"}}};
              auto component = store::EnsureComponent(tx, "web");
              if (!component.ok()) return component.status();
              ns.component_id = *component;
              auto s = store::InsertSpace(tx, ns);
              if (!s.ok()) return s.status();
              space = *s;
              auto u = store::InsertUnit(tx, {space.space_id(), "app", "Kubernetes/YAML", {}, {}});
              if (!u.ok()) return u.status();
              unit = *u;
              return absl::OkStatus();
            }).ok());
  }

  // Runs `call` (one store function) in a transaction of its own and returns its status.
  // `returned` tells that the call came back instead of throwing through the transaction.
  absl::Status Call(const std::function<absl::Status(store::Tx&)>& call, bool* returned) {
    absl::Status got = absl::UnknownError("not run");
    *returned = false;
    absl::Status tx_status = store::WithTransaction(*db, [&](store::Tx& tx) -> absl::Status {
      got = call(tx);
      *returned = true;
      return got;
    });
    if (got.ok()) REQUIRE(tx_status.ok());
    return got;
  }
};

TEST_CASE("a taken slug is ALREADY_EXISTS from the store function itself") {
  Fixture f;
  bool returned = false;
  absl::Status s = f.Call(
      [&](store::Tx& tx) {
        return store::InsertSpace(tx, {"home", "", {}, {}, "", ""}).status();
      },
      &returned);
  CHECK(returned);
  CHECK(s.code() == absl::StatusCode::kAlreadyExists);

  s = f.Call(
      [&](store::Tx& tx) {
        return store::InsertUnit(tx, {f.space.space_id(), "app", "Kubernetes/YAML", {}, {}})
            .status();
      },
      &returned);
  CHECK(returned);
  CHECK(s.code() == absl::StatusCode::kAlreadyExists);

  REQUIRE(f.Call(
               [&](store::Tx& tx) {
                 return store::InsertTag(tx, {f.space.space_id(), "v1", "", {}}).status();
               },
               &returned)
              .ok());
  s = f.Call(
      [&](store::Tx& tx) {
        return store::InsertTag(tx, {f.space.space_id(), "v1", "", {}}).status();
      },
      &returned);
  CHECK(returned);
  CHECK(s.code() == absl::StatusCode::kAlreadyExists);
}

TEST_CASE("a row a foreign key or check names that is missing is FAILED_PRECONDITION") {
  Fixture f;
  bool returned = false;
  absl::Status s =
      f.Call([&](store::Tx& tx) { return store::GrantRole(tx, kNoSuchId, "viewer", "", "team-a"); },
             &returned);
  CHECK(returned);
  CHECK(s.code() == absl::StatusCode::kFailedPrecondition);

  s = f.Call(
      [&](store::Tx& tx) {
        return store::GrantRole(tx, f.space.space_id(), "owner", "", "team-a");
      },
      &returned);
  CHECK(returned);
  CHECK(s.code() == absl::StatusCode::kFailedPrecondition);

  s = f.Call(
      [&](store::Tx& tx) {
        return store::InsertUnit(tx, {kNoSuchId, "app", "Kubernetes/YAML", {}, {}}).status();
      },
      &returned);
  CHECK(returned);
  CHECK(s.code() == absl::StatusCode::kFailedPrecondition);

  s = f.Call(
      [&](store::Tx& tx) {
        store::NewLink nl;
        nl.space_id = f.space.space_id();
        nl.slug = "dangling";
        nl.from_unit_id = f.unit.unit_id();
        nl.to_unit_id = kNoSuchId;
        nl.update_type = "MergeUnits";
        return store::InsertLink(tx, nl).status();
      },
      &returned);
  CHECK(returned);
  CHECK(s.code() == absl::StatusCode::kFailedPrecondition);
}

TEST_CASE("a value the column's type refuses is INVALID_ARGUMENT, also from a lookup") {
  Fixture f;
  bool returned = false;
  absl::Status s = f.Call(
      [&](store::Tx& tx) { return store::FindUnit(tx, "not-a-uuid", "app").status(); }, &returned);
  CHECK(returned);
  CHECK(s.code() == absl::StatusCode::kInvalidArgument);

  s = f.Call([&](store::Tx& tx) { return store::SetLinkCursor(tx, "not-a-uuid", 3); }, &returned);
  CHECK(returned);
  CHECK(s.code() == absl::StatusCode::kInvalidArgument);

  s = f.Call([&](store::Tx& tx) { return store::FindMark(tx, "not-a-uuid", kNoSuchId).status(); },
             &returned);
  CHECK(returned);
  CHECK(s.code() == absl::StatusCode::kInvalidArgument);
}

TEST_CASE("Query::Run returns the rows, or the failing statement's status") {
  Fixture f;
  bool returned = false;
  absl::Status s = f.Call(
      [&](store::Tx& tx) {
        store::Query q("SELECT ");
        q.Append(q.Param("not-a-uuid") + "::uuid AS id");
        return q.Run(tx).status();
      },
      &returned);
  CHECK(returned);
  CHECK(s.code() == absl::StatusCode::kInvalidArgument);

  int one = 0;
  REQUIRE(f.Call(
               [&](store::Tx& tx) -> absl::Status {
                 auto r = store::Query("SELECT 1 AS one").Run(tx);
                 if (!r.ok()) return r.status();
                 one = (*r)[0]["one"].as<int>();
                 return absl::OkStatus();
               },
               &returned)
              .ok());
  CHECK(one == 1);
}

TEST_CASE("a prepared Query answers as an unprepared one, and is prepared on its connection") {
  Fixture f;
  bool returned = false;
  const auto slug_of = [](store::Tx& tx, const std::string& ref,
                          bool prepared) -> absl::StatusOr<std::string> {
    store::Query q("SELECT s.slug FROM spaces s WHERE ");
    q.Append(store::SlugOrId(q, "s.slug", "s.id", ref));
    if (prepared) q.Prepared();
    auto r = q.Run(tx);
    if (!r.ok()) return r.status();
    return r->empty() ? std::string("(none)") : (*r)[0][0].as<std::string>();
  };
  // Past the sixth run, where PostgreSQL may switch to a generic plan, with values that vary.
  for (int run = 0; run < 8; ++run) {
    const std::string ref = run % 3 == 0 ? f.space.space_id() : run % 3 == 1 ? "home" : "nope";
    std::string plain, prepared;
    int64_t named = 0;
    REQUIRE(f.Call(
                 [&](store::Tx& tx) -> absl::Status {
                   auto a = slug_of(tx, ref, false);
                   auto b = slug_of(tx, ref, true);
                   if (!a.ok()) return a.status();
                   if (!b.ok()) return b.status();
                   plain = *a;
                   prepared = *b;
                   auto n = store::Query(
                                "SELECT count(*) FROM pg_prepared_statements"
                                " WHERE name LIKE 'cub\\_%'")
                                .Run(tx);
                   if (!n.ok()) return n.status();
                   named = (*n)[0][0].as<int64_t>();
                   return absl::OkStatus();
                 },
                 &returned)
                .ok());
    CHECK(prepared == plain);
    CHECK(prepared == (ref == "nope" ? "(none)" : "home"));
    CHECK(named >= 1);
  }

  // A value the statement refuses is the same error as unprepared; the connection goes on.
  absl::Status bad = f.Call(
      [&](store::Tx& tx) {
        store::Query q("SELECT ");
        q.Append(q.Param("not-a-uuid") + "::uuid AS id").Prepared();
        return q.Run(tx).status();
      },
      &returned);
  CHECK(returned);
  CHECK(bad.code() == absl::StatusCode::kInvalidArgument);

  // A schema change (as the owner, as migrations run) invalidates the plans PostgreSQL cached
  // on cubd's connections; the statement is planned again.
  {
    pqxx::connection owner(f.url);
    pqxx::work w(owner);
    w.exec("ALTER TABLE spaces ADD COLUMN prepared_test int");
    w.commit();
  }
  for (int run = 0; run < 3; ++run) {
    std::string got;
    REQUIRE(f.Call(
                 [&](store::Tx& tx) -> absl::Status {
                   auto b = slug_of(tx, "home", true);
                   if (!b.ok()) return b.status();
                   got = *b;
                   return absl::OkStatus();
                 },
                 &returned)
                .ok());
    CHECK(got == "home");
  }

  // A column it returns changing type is worse: PostgreSQL then refuses the prepared statement
  // on that connection for good ("cached plan must not change result type"). The call that
  // meets it fails, and its connection is closed rather than pooled again, so that the calls
  // after it run on a new one. (The pool holds two connections, either may have prepared it.)
  const auto name_of = [&](absl::Status* status) {
    std::string got;
    *status = f.Call(
        [&](store::Tx& tx) -> absl::Status {
          store::Query q("SELECT s.display_name FROM spaces s WHERE ");
          q.Append(store::SlugOrId(q, "s.slug", "s.id", "home")).Prepared();
          auto r = q.Run(tx);
          if (!r.ok()) return r.status();
          got = (*r)[0][0].as<std::string>();
          return absl::OkStatus();
        },
        &returned);
    return got;
  };
  absl::Status st;
  for (int run = 0; run < 6; ++run) CHECK(name_of(&st) == "Home");  // prepared on both
  {
    pqxx::connection owner(f.url);
    pqxx::work w(owner);
    w.exec("ALTER TABLE spaces ALTER COLUMN display_name TYPE varchar(300)");
    w.commit();
  }
  int refused = 0;
  for (int run = 0; run < 6; ++run) {
    const std::string got = name_of(&st);
    if (!st.ok()) {
      ++refused;
      CHECK_THAT(std::string(st.message()), Catch::Contains("result type"));
      continue;
    }
    CHECK(got == "Home");
  }
  CHECK(refused >= 1);
  CHECK(refused <= 2);  // once on each connection that had prepared it, never again
  CHECK(name_of(&st) == "Home");
  CHECK(st.ok());
}

TEST_CASE("ReadTextArray reads plain and quoted elements alike") {
  Fixture f;
  bool returned = false;
  std::vector<std::vector<std::string>> got;
  REQUIRE(f.Call(
               [&](store::Tx& tx) -> absl::Status {
                 // Plain elements take the fast path, quoted ones (blanks, commas, quotes,
                 // the word NULL, the empty string) pqxx's parser; a NULL element is skipped.
                 auto r = store::Query(
                              "SELECT ARRAY['a', 'b1', NULL, '7']::text[] AS plain,"
                              " ARRAY['x y', 'p,q', 'NULL', '', 'say \"hi\"', 'back\\slash',"
                              " '{b}']::text[] AS quoted,"
                              " ARRAY['0c8af1bd-5bee-4970-bc27-9b2562a9d8c4']::uuid[] AS ids,"
                              " '{}'::text[] AS none")
                              .Run(tx);
                 if (!r.ok()) return r.status();
                 for (const char* column : {"plain", "quoted", "ids", "none"}) {
                   got.push_back(store::ReadTextArray((*r)[0][column]));
                 }
                 return absl::OkStatus();
               },
               &returned)
              .ok());
  REQUIRE(got.size() == 4);
  CHECK(got[0] == std::vector<std::string>{"a", "b1", "7"});
  CHECK(got[1] ==
        std::vector<std::string>{"x y", "p,q", "NULL", "", "say \"hi\"", "back\\slash", "{b}"});
  CHECK(got[2] == std::vector<std::string>{"0c8af1bd-5bee-4970-bc27-9b2562a9d8c4"});
  CHECK(got[3].empty());
}

TEST_CASE("a Space is found by its slug or by its ID as printed, nothing else") {
  Fixture f;
  bool returned = false;
  auto find = [&](const std::string& ref) {
    std::optional<v1::Space> found;
    REQUIRE(f.Call(
                 [&](store::Tx& tx) -> absl::Status {
                   auto s = store::FindSpace(tx, ref);
                   if (!s.ok()) return s.status();
                   found = *s;
                   return absl::OkStatus();
                 },
                 &returned)
                .ok());
    return found ? found->space_id() : std::string("none");
  };
  CHECK(find("home") == f.space.space_id());
  CHECK(find(f.space.space_id()) == f.space.space_id());
  // The ID is compared as PostgreSQL prints it, as when it was compared as text: upper case or
  // anything that only looks like an ID names no Space, and is no error either.
  std::string upper = f.space.space_id();
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  CHECK(find(upper) == "none");
  CHECK(find(kNoSuchId) == "none");
  CHECK(find("not-a-uuid") == "none");
  CHECK(find("") == "none");
}

TEST_CASE("the names of a Space list are by slug, compared bytewise") {
  Fixture f;
  bool returned = false;
  std::vector<std::string> ids = {f.space.space_id()};
  REQUIRE(f.Call(
               [&](store::Tx& tx) -> absl::Status {
                 for (const char* slug : {"b-2", "b10", "B1", "a-z", "b1"}) {
                   auto s = store::InsertSpace(tx, {slug, "", {{"Stage", "prod"}}, {}});
                   if (!s.ok()) return s.status();
                   ids.push_back(s->space_id());
                 }
                 return absl::OkStatus();
               },
               &returned)
              .ok());
  std::vector<std::vector<store::SpaceName>> names;
  REQUIRE(f.Call(
               [&](store::Tx& tx) -> absl::Status {
                 auto got = store::SpaceNamesAmongEach(
                     tx, ids, {"Labels.Stage = 'prod'", "Labels.Stage = 'dev'", ""});
                 if (!got.ok()) return got.status();
                 names = *got;
                 return absl::OkStatus();
               },
               &returned)
              .ok());
  auto slugs = [](const std::vector<store::SpaceName>& list) {
    std::vector<std::string> out;
    for (const auto& n : list) out.push_back(n.slug);
    return out;
  };
  REQUIRE(names.size() == 3);
  CHECK(slugs(names[0]) == std::vector<std::string>{"B1", "a-z", "b-2", "b1", "b10"});
  CHECK(slugs(names[1]) == std::vector<std::string>{"home"});
  CHECK(slugs(names[2]) == std::vector<std::string>{"B1", "a-z", "b-2", "b1", "b10", "home"});
}

TEST_CASE("what the store wrote reads back field by field") {
  Fixture f;
  CHECK(f.space.slug() == "home");
  CHECK(f.space.display_name() == "Home");
  CHECK(f.space.labels().at("Stage") == "dev");
  CHECK(f.space.annotations().at("note") == "x");
  CHECK(f.space.component_slug() == "web");
  CHECK(!f.space.component_id().empty());
  CHECK(f.space.version() == 1);
  CHECK(!f.space.created_at().empty());

  absl::StatusOr<v1::Revision> rev;
  absl::StatusOr<std::optional<v1::Unit>> unit;
  absl::StatusOr<std::optional<int64_t>> mark;
  absl::StatusOr<std::vector<v1::Link>> links;
  REQUIRE(
      store::WithTransaction(*f.db, [&](store::Tx& tx) -> absl::Status {
        store::NewRevision nr;
        nr.data = "a: 1\n";
        nr.data_hash = "sha256:abc";
        nr.description = "first";
        nr.validation_errors = {"v: bad"};
        rev = store::AppendRevision(tx, f.unit.unit_id(), nr);
        if (!rev.ok()) return rev.status();
        unit = store::FindUnit(tx, f.space.space_id(), "app");
        auto tag = store::InsertTag(tx, {f.space.space_id(), "v1", "", {}});
        if (!tag.ok()) return tag.status();
        auto marked = store::MarkRevision(tx, *tag, f.unit, 1, false);
        if (!marked.ok()) return marked.status();
        mark = store::FindMark(tx, tag->tag_id(), f.unit.unit_id());
        auto other = store::InsertUnit(tx, {f.space.space_id(), "db", "Kubernetes/YAML", {}, {}});
        if (!other.ok()) return other.status();
        store::NewLink nl;
        nl.space_id = f.space.space_id();
        nl.slug = "app-to-db";
        nl.from_unit_id = f.unit.unit_id();
        nl.to_unit_id = other->unit_id();
        nl.update_type = "MergeUnits";
        nl.upstream_revision_num = 4;
        auto link = store::InsertLink(tx, nl);
        if (!link.ok()) return link.status();
        links = store::LinksFrom(tx, f.unit.unit_id(), "MergeUnits");
        return absl::OkStatus();
      }).ok());
  REQUIRE(rev.ok());
  CHECK(rev->revision_num() == 1);
  CHECK(rev->data() == "a: 1\n");
  CHECK(rev->data_hash() == "sha256:abc");
  CHECK(rev->description() == "first");
  CHECK(rev->space_id() == f.space.space_id());
  REQUIRE(rev->validation_errors_size() == 1);
  CHECK(rev->validation_errors(0) == "v: bad");

  REQUIRE(unit.ok());
  REQUIRE(unit->has_value());
  CHECK((*unit)->head_revision_num() == 1);
  CHECK((*unit)->space_slug() == "home");
  CHECK((*unit)->data_hash() == "sha256:abc");

  REQUIRE(mark.ok());
  CHECK(*mark == std::optional<int64_t>(1));

  REQUIRE(links.ok());
  REQUIRE(links->size() == 1);
  const v1::Link& l = links->front();
  CHECK(l.slug() == "app-to-db");
  CHECK(l.from_unit_slug() == "app");
  CHECK(l.to_unit_slug() == "db");
  CHECK(l.to_space_slug() == "home");
  CHECK(l.upstream_revision_num() == 4);
  CHECK(!l.auto_update());
}

}  // namespace
}  // namespace cub
