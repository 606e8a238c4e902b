// Server-side paging of the List use cases against a real PostgreSQL: pages cover every row
// exactly once even when rows are inserted between pages, tokens are bound to the filters they
// were issued for, and malformed tokens or limits are refused as INVALID_ARGUMENT.
#include <algorithm>
#include <catch2/catch.hpp>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "harness/test_db.h"
#include "lib/ops/page_token.h"
#include "lib/ops/spaces.h"
#include "lib/ops/units.h"
#include "lib/ops/users.h"
#include "lib/store/migrations.h"

namespace cub {
namespace {

struct Fixture {
  std::string url = testing::FreshDatabaseUrl("paging");
  std::unique_ptr<store::ConnectionPool> db;
  ops::Principal admin;
  Fixture() {
    REQUIRE(store::ApplyMigrations(url).ok());
    db = std::make_unique<store::ConnectionPool>(testing::RuntimeUrl(url), 4);
    store::NewUser nu{"admin", {}, true, false};
    auto created = ops::CreateUser(*db, nu);
    REQUIRE(created.ok());
    auto p = ops::Authenticate(*db, created->token);
    REQUIRE(p.ok());
    admin = *p;
  }
  void Space(const std::string& slug, const std::string& stage = "dev") {
    v1::CreateSpaceRequest req;
    req.set_slug(slug);
    (*req.mutable_labels())["Stage"] = stage;
    REQUIRE(ops::CreateSpace(*db, admin, req).ok());
  }
  void Unit(const std::string& space, const std::string& slug) {
    v1::CreateUnitRequest req;
    req.set_space(space);
    req.set_slug(slug);
    req.set_data(absl::StrCat("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ", slug,
                              "\ndata:\n  a: \"1\"\n"));
    REQUIRE(ops::CreateUnit(*db, admin, req).ok());
  }
  // Every Space slug, read page by page with `limit`, calling `between` after each page.
  std::vector<std::string> AllSpaces(v1::ListSpacesRequest req, int limit,
                                     const std::function<void(int)>& between = nullptr) {
    std::vector<std::string> seen;
    req.set_limit(limit);
    for (int page = 0;; ++page) {
      auto r = ops::ListSpaces(*db, admin, req);
      REQUIRE(r.ok());
      REQUIRE(r->spaces_size() <= limit);
      for (const auto& s : r->spaces()) seen.push_back(s.slug());
      if (r->next_page_token().empty()) return seen;
      REQUIRE(r->spaces_size() == limit);
      if (between) between(page);
      req.set_page_token(r->next_page_token());
    }
  }
};

TEST_CASE("pages of ListSpaces cover every Space once, in slug order") {
  Fixture f;
  for (int i = 0; i < 23; ++i) f.Space(absl::StrCat("s", i < 10 ? "0" : "", i));
  v1::ListSpacesRequest req;
  const std::vector<std::string> whole = f.AllSpaces(req, 1000);
  REQUIRE(whole.size() == 23);
  CHECK(std::is_sorted(whole.begin(), whole.end()));
  for (int limit : {1, 5, 22, 23, 24}) {
    INFO("limit " << limit);
    CHECK(f.AllSpaces(req, limit) == whole);
  }
  // Limit 0 is the server default (500): one page here, and no token.
  req.set_limit(0);
  auto all = ops::ListSpaces(*f.db, f.admin, req);
  REQUIRE(all.ok());
  CHECK(all->spaces_size() == 23);
  CHECK(all->next_page_token().empty());
}

TEST_CASE("rows inserted between pages neither repeat nor hide the rows there all along") {
  Fixture f;
  for (int i = 0; i < 20; ++i) f.Space(absl::StrCat("m", i < 10 ? "0" : "", i));
  v1::ListSpacesRequest req;
  // After each page, a Space sorting before everything (already passed) and one after it.
  std::vector<std::string> seen = f.AllSpaces(req, 4, [&f](int page) {
    f.Space(absl::StrCat("a-early-", page));
    f.Space(absl::StrCat("z-late-", page));
  });
  std::set<std::string> unique(seen.begin(), seen.end());
  CHECK(unique.size() == seen.size());  // nothing twice
  for (int i = 0; i < 20; ++i) CHECK(unique.count(absl::StrCat("m", i < 10 ? "0" : "", i)) == 1);
  for (const auto& s : seen) CHECK(s.rfind("a-early-", 0) != 0);  // behind the cursor: not seen
  CHECK(unique.count("z-late-0") == 1);                           // ahead of the cursor: seen
  CHECK(std::is_sorted(seen.begin(), seen.end()));
}

TEST_CASE("ListUnits pages across Spaces by (Space slug, Unit slug), with a where filter") {
  Fixture f;
  for (const char* s : {"alpha", "beta", "gamma"}) {
    f.Space(s, std::string(s) == "beta" ? "prod" : "dev");
    for (int u = 0; u < 4; ++u) f.Unit(s, absl::StrCat("u", u));
  }
  v1::ListUnitsRequest req;
  req.set_space("*");
  req.set_limit(5);
  std::vector<std::string> seen;
  for (;;) {
    auto r = ops::ListUnits(*f.db, f.admin, req);
    REQUIRE(r.ok());
    for (const auto& u : r->units()) seen.push_back(absl::StrCat(u.space_slug(), "/", u.slug()));
    if (r->next_page_token().empty()) break;
    req.set_page_token(r->next_page_token());
  }
  REQUIRE(seen.size() == 12);
  CHECK(seen.front() == "alpha/u0");
  CHECK(seen[4] == "beta/u0");
  CHECK(seen.back() == "gamma/u3");
  // The where expressions go into the same SQL: a page of 3 of the 4 prod Units, then 1.
  v1::ListUnitsRequest prod;
  prod.set_space("*");
  prod.set_where_space("Labels.Stage = 'prod'");
  prod.set_limit(3);
  auto first = ops::ListUnits(*f.db, f.admin, prod);
  REQUIRE(first.ok());
  CHECK(first->units_size() == 3);
  REQUIRE_FALSE(first->next_page_token().empty());
  prod.set_page_token(first->next_page_token());
  auto second = ops::ListUnits(*f.db, f.admin, prod);
  REQUIRE(second.ok());
  REQUIRE(second->units_size() == 1);
  CHECK(second->units(0).slug() == "u3");
  CHECK(second->next_page_token().empty());
}

TEST_CASE("a token is refused with other filters, another list, or when malformed") {
  Fixture f;
  for (int i = 0; i < 6; ++i) f.Space(absl::StrCat("t", i), i % 2 ? "prod" : "dev");
  v1::ListSpacesRequest req;
  req.set_limit(2);
  auto first = ops::ListSpaces(*f.db, f.admin, req);
  REQUIRE(first.ok());
  const std::string token = first->next_page_token();
  REQUIRE_FALSE(token.empty());

  SECTION("another Where") {
    v1::ListSpacesRequest other = req;
    other.mutable_options()->set_where("Labels.Stage = 'prod'");
    other.set_page_token(token);
    auto r = ops::ListSpaces(*f.db, f.admin, other);
    CHECK(r.status().code() == absl::StatusCode::kInvalidArgument);
    CHECK(absl::StrContains(r.status().message(), "PageToken"));
    CHECK(absl::StrContains(r.status().message(), "other filters"));
  }
  SECTION("only the Limit changed: accepted") {
    v1::ListSpacesRequest other = req;
    other.set_limit(10);
    other.set_page_token(token);
    auto r = ops::ListSpaces(*f.db, f.admin, other);
    REQUIRE(r.ok());
    CHECK(r->spaces_size() == 4);
  }
  SECTION("another list") {
    v1::ListUnitsRequest units;
    units.set_space("*");
    units.set_page_token(token);
    auto r = ops::ListUnits(*f.db, f.admin, units);
    CHECK(r.status().code() == absl::StatusCode::kInvalidArgument);
    CHECK(absl::StrContains(r.status().message(), "PageToken"));
  }
  SECTION("malformed tokens") {
    std::string raw;
    REQUIRE(absl::WebSafeBase64Unescape(token, &raw));
    const std::string truncated = absl::WebSafeBase64Escape(raw.substr(0, raw.size() - 1));
    std::string version = raw;
    version[0] = 9;
    // A second key part that says 5 bytes and has 2.
    const std::string short_part = raw + std::string(1, '\0') + "\x05" + "ab";
    for (const std::string& bad : {std::string("!!not base64!!"), std::string("AAAA"), truncated,
                                   absl::WebSafeBase64Escape(version), std::string(5000, 'A'),
                                   absl::WebSafeBase64Escape(short_part)}) {
      INFO("token " << bad.substr(0, 40));
      v1::ListSpacesRequest r2 = req;
      r2.set_page_token(bad);
      auto r = ops::ListSpaces(*f.db, f.admin, r2);
      CHECK(r.status().code() == absl::StatusCode::kInvalidArgument);
      CHECK(absl::StrContains(r.status().message(), "PageToken"));
    }
  }
  SECTION("a negative Limit; a huge one is capped") {
    v1::ListSpacesRequest r2 = req;
    r2.set_limit(-1);
    auto r = ops::ListSpaces(*f.db, f.admin, r2);
    CHECK(r.status().code() == absl::StatusCode::kInvalidArgument);
    CHECK(absl::StrContains(r.status().message(), "Limit"));
    r2.set_limit(1 << 30);
    auto capped = ops::ListSpaces(*f.db, f.admin, r2);
    REQUIRE(capped.ok());
    CHECK(capped->spaces_size() == 6);
  }
}

TEST_CASE("page tokens round-trip keys of any bytes") {
  v1::ListSpacesRequest req;
  auto page = ops::ReadPageStart(req, 3, "", 2);
  REQUIRE(page.ok());
  CHECK(page->limit == 3);
  const std::vector<std::string> key = {std::string("a\0b", 3), "ünïcode/slug"};
  auto again = ops::ReadPageStart(req, 3, ops::NextPageToken(*page, key), 2);
  REQUIRE(again.ok());
  CHECK(again->after == key);
  // The same token read as a list with a one-part key is malformed, not misread.
  auto wrong = ops::ReadPageStart(req, 3, ops::NextPageToken(*page, key), 1);
  CHECK(wrong.status().code() == absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace cub
