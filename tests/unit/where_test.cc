// Tests for the where language (lib/where): grammar and precedence, the SQL of every operator
// and its in-memory result, parameter numbering, error positions, type errors, and injection
// attempts.

#include "lib/where/where.h"

#include <catch2/catch.hpp>
#include <map>
#include <optional>
#include <regex>
#include <string>
#include <vector>

namespace cub::where {
namespace {

const Schema& TestSchema() {
  static const Schema* s =
      new Schema("Unit", {
                             {"UnitID", FieldType::kUuid, "u.id"},
                             {"Slug", FieldType::kString, "u.slug"},
                             {"HeadRevisionNum", FieldType::kInt, "u.head_revision_num"},
                             {"Protect", FieldType::kBool, "u.protect"},
                             {"CreatedAt", FieldType::kTime, "u.created_at"},
                             {"Labels", FieldType::kStringMap, "u.labels"},
                             {"Space.Labels", FieldType::kStringMap, "s.labels"},
                             {"Space.Slug", FieldType::kString, "s.slug"},
                             {"Component.Slug", FieldType::kString, "c.slug"},
                             {"ResolvedSpaceIDs", FieldType::kStringList, "co.resolved_ids"},
                             {"LowerSlug", FieldType::kString, "lower(u.slug)"},
                             {"State", FieldType::kString, ""},     // derived at read time
                             {"Tags", FieldType::kStringList, ""},  // derived at read time
                         });
  return *s;
}

// A record backed by a map from field name to value; absent fields are null.
class MapRecord : public Record {
 public:
  explicit MapRecord(std::map<std::string, Value> values) : values_(std::move(values)) {}
  Value Get(const FieldDef& field) const override {
    auto it = values_.find(field.name);
    return it == values_.end() ? Value() : it->second;
  }

 private:
  std::map<std::string, Value> values_;
};

const MapRecord& WebUnit() {
  static const MapRecord* r = new MapRecord({
      {"UnitID", std::string("a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11")},
      {"Slug", std::string("web-1")},
      {"HeadRevisionNum", int64_t{7}},
      {"Protect", true},
      {"CreatedAt", std::string("2024-05-01T12:00:00Z")},
      {"Labels",
       std::map<std::string, std::string>{{"tier", "prod"}, {"app.kubernetes.io/name", "web"}}},
      {"Space.Labels", std::map<std::string, std::string>{{"Stage", "dev"}}},
      {"ResolvedSpaceIDs", std::vector<std::string>{"s1", "s2"}},
      {"State", std::string("Completed")},
      // Space.Slug, Component.Slug and Tags are null.
  });
  return *r;
}

// The SQL text may hold only trusted pieces: the schema's columns, placeholders, operators
// and keywords. Anything else would be user text leaking into SQL.
bool OnlyTrustedTokens(const std::string& text) {
  static const std::regex kTrusted(
      R"(\$[0-9]+(::(bigint|boolean|uuid|timestamptz|text)(\[\])?)?|u\.id|u\.slug|)"
      R"(u\.head_revision_num|)"
      R"(u\.protect|u\.created_at|u\.labels|s\.labels|s\.slug|c\.slug|co\.resolved_ids|)"
      R"(lower\(u\.slug\)|->>|<>|<=|>=|=|<|>|!~\*|!~|~\*|~|COLLATE "C"|NOT ILIKE|NOT LIKE|NOT IN|IS NOT NULL|)"
      R"(IS NULL|IS NOT TRUE|ILIKE|LIKE|IN|AND|OR|TRUE|ANY|ALL|cardinality|length|[(), ])");
  return std::regex_replace(text, kTrusted, "").empty();
}

Sql MustCompile(const std::string& where, int first_param = 1) {
  absl::StatusOr<Sql> sql = CompileToSql(where, TestSchema(), first_param);
  INFO(where);
  REQUIRE(sql.ok());
  INFO(sql->text);
  CHECK(OnlyTrustedTokens(sql->text));
  return *sql;
}

// The message of the error compiling `where`, which must be InvalidArgument.
std::string CompileError(const std::string& where) {
  absl::StatusOr<Sql> sql = CompileToSql(where, TestSchema());
  INFO(where);
  REQUIRE_FALSE(sql.ok());
  CHECK(sql.status().code() == absl::StatusCode::kInvalidArgument);
  return std::string(sql.status().message());
}

bool Eval(const std::string& where, const Record& record = WebUnit()) {
  absl::StatusOr<std::shared_ptr<const Expr>> e = Parse(where);
  INFO(where);
  REQUIRE(e.ok());
  absl::StatusOr<bool> m = Matches(**e, TestSchema(), record);
  INFO(m.status().ToString());
  REQUIRE(m.ok());
  return *m;
}

std::string Canonical(const std::string& where) {
  absl::StatusOr<std::shared_ptr<const Expr>> e = Parse(where);
  INFO(where);
  REQUIRE(e.ok());
  return ToString(**e);
}

TEST_CASE("where: precedence and canonical form", "[where]") {
  struct Case {
    const char* in;
    const char* out;
  };
  const Case cases[] = {
      {"a = 1 OR b = 2 AND c = 3", "(a = 1 OR (b = 2 AND c = 3))"},
      {"a = 1 AND b = 2 OR c = 3", "((a = 1 AND b = 2) OR c = 3)"},
      {"a = 1 AND b = 2 AND c = 3", "(a = 1 AND b = 2 AND c = 3)"},
      {"NOT a = 1 AND b = 2", "((NOT a = 1) AND b = 2)"},
      {"NOT a = 1 OR b = 2", "((NOT a = 1) OR b = 2)"},
      {"NOT NOT a = 1", "(NOT (NOT a = 1))"},
      {"NOT (a = 1 OR b = 2)", "(NOT (a = 1 OR b = 2))"},
      {"(a = 1 OR b = 2) AND c = 3", "((a = 1 OR b = 2) AND c = 3)"},
      {"((a = 1))", "a = 1"},
      {"a = 1 and not b in (1,2) Or c is not null",
       "((a = 1 AND (NOT b IN (1, 2))) OR c IS NOT NULL)"},
      {"a <> 1", "a != 1"},
      {"a != -5", "a != -5"},
      {"a<=1 AND b>=2 AND c<3 AND d>4", "(a <= 1 AND b >= 2 AND c < 3 AND d > 4)"},
      {"a = TRUE OR b = False", "(a = true OR b = false)"},
      {"a = 'it''s'", "a = 'it''s'"},
      {"a not in ('x', 'y')", "a NOT IN ('x', 'y')"},
      {"a is null", "a IS NULL"},
      {"a like 'x%'", "a LIKE 'x%'"},
      {"a not like 'x%'", "a NOT LIKE 'x%'"},
      {"a ilike 'x%'", "a ILIKE 'x%'"},
      {"a not ilike 'x%'", "a NOT ILIKE 'x%'"},
      {"a ~ '^x'", "a ~ '^x'"},
      {"a ~* '^x'", "a ~* '^x'"},
      {"a !~ '^x'", "a !~ '^x'"},
      {"a!~*'^x'", "a !~* '^x'"},
      {"Tags ? 'x'", "Tags ? 'x'"},
      {"len(Tags) > 1", "LEN(Tags) > 1"},
      {"Labels.app.kubernetes.io/name = 'web'", "Labels.app.kubernetes.io/name = 'web'"},
      {"Labels.team-a = 'x'", "Labels.team-a = 'x'"},
      {"Space.Labels.8x = 'x'", "Space.Labels.8x = 'x'"},
      {"Slug='a'AND(b=1)", "(Slug = 'a' AND b = 1)"},
  };
  for (const Case& c : cases) {
    INFO(c.in);
    CHECK(Canonical(c.in) == c.out);
    CHECK(Canonical(Canonical(c.in)) == c.out);  // canonical text parses back to itself
  }
}

TEST_CASE("where: blank text matches everything", "[where]") {
  for (const char* blank : {"", "   ", " \t\r\n "}) {
    absl::StatusOr<std::shared_ptr<const Expr>> e = Parse(blank);
    REQUIRE(e.ok());
    CHECK((*e)->kind == Expr::Kind::kTrue);
    Sql sql = MustCompile(blank);
    CHECK(sql.text == "TRUE");
    CHECK(sql.params.empty());
    CHECK(Eval(blank));
  }
}

TEST_CASE("where: SQL of every operator", "[where]") {
  struct Case {
    const char* where;
    const char* text;
    std::vector<std::string> params;
  };
  const Case cases[] = {
      {"Slug = 'web'", "(u.slug = $1)", {"web"}},
      {"Slug != 'web'", "(u.slug <> $1)", {"web"}},
      {"Slug <> 'web'", "(u.slug <> $1)", {"web"}},
      {"Slug < 'm'", "(u.slug < $1 COLLATE \"C\")", {"m"}},
      {"Slug >= 'm'", "(u.slug >= $1 COLLATE \"C\")", {"m"}},
      {"HeadRevisionNum = 3", "(u.head_revision_num = $1::bigint)", {"3"}},
      {"HeadRevisionNum > -2", "(u.head_revision_num > $1::bigint)", {"-2"}},
      {"HeadRevisionNum <= 9223372036854775807",
       "(u.head_revision_num <= $1::bigint)",
       {"9223372036854775807"}},
      {"Protect = true", "(u.protect = $1::boolean)", {"true"}},
      {"Protect != FALSE", "(u.protect <> $1::boolean)", {"false"}},
      {"UnitID = 'A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11'",
       "(u.id = $1::uuid)",
       {"a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"}},
      {"CreatedAt < '2024-05-01T12:00:00+02:00'",
       "(u.created_at < $1::timestamptz)",
       {"2024-05-01T10:00:00Z"}},
      {"CreatedAt >= '2024-05-01T12:00:00.25Z'",
       "(u.created_at >= $1::timestamptz)",
       {"2024-05-01T12:00:00.25Z"}},
      {"Labels.tier = 'prod'", "((u.labels ->> $1) = $2)", {"tier", "prod"}},
      {"Labels.tier IS NULL", "((u.labels ->> $1) IS NULL)", {"tier"}},
      {"Labels.tier IS NOT NULL", "((u.labels ->> $1) IS NOT NULL)", {"tier"}},
      {"Labels IS NULL", "(u.labels IS NULL)", {}},
      {"Labels.app.kubernetes.io/name = 'web'",
       "((u.labels ->> $1) = $2)",
       {"app.kubernetes.io/name", "web"}},
      {"Space.Labels.Stage = 'prod'", "((s.labels ->> $1) = $2)", {"Stage", "prod"}},
      {"Space.Slug = 'x'", "(s.slug = $1)", {"x"}},
      {"Component.Slug = 'x'", "(c.slug = $1)", {"x"}},
      {"Slug IN ('a', 'b')", "(u.slug = ANY($1::text[]))", {R"({"a","b"})"}},
      {"Slug NOT IN ('a')", "(u.slug <> ALL($1::text[]))", {R"({"a"})"}},
      {"HeadRevisionNum IN (1, 2)", "(u.head_revision_num = ANY($1::bigint[]))", {R"({"1","2"})"}},
      {"Labels.tier NOT IN ('a', 'b')",
       "((u.labels ->> $1) <> ALL($2::text[]))",
       {"tier", R"({"a","b"})"}},
      {"UnitID IN ('A0EEBC99-9c0b-4ef8-bb6d-6bb9bd380a11')",
       "(u.id = ANY($1::uuid[]))",
       {R"({"a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"})"}},
      {"Protect IN (true)", "(u.protect = ANY($1::boolean[]))", {R"({"true"})"}},
      {"CreatedAt NOT IN ('2024-05-01T12:00:00+02:00')",
       "(u.created_at <> ALL($1::timestamptz[]))",
       {R"({"2024-05-01T10:00:00Z"})"}},
      {"LEN(Slug) IN (1, 2)", "(length(u.slug) = ANY($1::bigint[]))", {R"({"1","2"})"}},
      {R"(Slug IN ('a"b', 'c\d', 'NULL', '', '{x,y}'))",
       "(u.slug = ANY($1::text[]))",
       {R"({"a\"b","c\\d","NULL","","{x,y}"})"}},
      {"Slug IS NULL", "(u.slug IS NULL)", {}},
      {"ResolvedSpaceIDs ? 'x'", "($1 = ANY(co.resolved_ids))", {"x"}},
      {"ResolvedSpaceIDs IS NOT NULL", "(co.resolved_ids IS NOT NULL)", {}},
      {"LEN(ResolvedSpaceIDs) > 2", "(cardinality(co.resolved_ids) > $1::bigint)", {"2"}},
      {"LEN(Slug) <= 10", "(length(u.slug) <= $1::bigint)", {"10"}},
      {"LEN(Labels.tier) = 4", "(length((u.labels ->> $1)) = $2::bigint)", {"tier", "4"}},
      {"Slug LIKE 'web-%'", "(u.slug LIKE $1)", {"web-%"}},
      {"Slug NOT LIKE 'web-%'", "(u.slug NOT LIKE $1)", {"web-%"}},
      {"Slug ILIKE 'WEB%'", "(u.slug ILIKE $1)", {"WEB%"}},
      {"Slug NOT ILIKE 'WEB%'", "(u.slug NOT ILIKE $1)", {"WEB%"}},
      {"Labels.tier LIKE 'p%'", "((u.labels ->> $1) LIKE $2)", {"tier", "p%"}},
      {"Slug ~ '^web-[0-9]+$'", "(u.slug ~ $1)", {"^web-[0-9]+$"}},
      {"Slug ~* '^WEB'", "(u.slug ~* $1)", {"^WEB"}},
      {"Slug !~ '^web'", "(u.slug !~ $1)", {"^web"}},
      {"Slug !~* '^WEB'", "(u.slug !~* $1)", {"^WEB"}},
      {"LowerSlug = 'x'", "((lower(u.slug)) = $1)", {"x"}},
      {"NOT Slug = 'a'", "((u.slug = $1) IS NOT TRUE)", {"a"}},
      {"Slug = 'a' OR Slug = 'b' AND HeadRevisionNum > 3",
       "((u.slug = $1) OR ((u.slug = $2) AND (u.head_revision_num > $3::bigint)))",
       {"a", "b", "3"}},
      {"NOT (Labels.tier = 'prod' OR Protect = true)",
       "((((u.labels ->> $1) = $2) OR (u.protect = $3::boolean)) IS NOT TRUE)",
       {"tier", "prod", "true"}},
  };
  for (const Case& c : cases) {
    Sql sql = MustCompile(c.where);
    INFO(c.where);
    CHECK(sql.text == c.text);
    CHECK(sql.params == c.params);
  }
}

TEST_CASE("where: parameters are numbered from first_param", "[where]") {
  Sql sql = MustCompile("Labels.tier = 'prod' AND Slug IN ('a', 'b') AND HeadRevisionNum > 1", 5);
  CHECK(sql.text ==
        "(((u.labels ->> $5) = $6) AND (u.slug = ANY($7::text[])) AND "
        "(u.head_revision_num > $8::bigint))");
  CHECK(sql.params == std::vector<std::string>{"tier", "prod", R"({"a","b"})", "1"});

  absl::StatusOr<Sql> bad = CompileToSql("Slug = 'a'", TestSchema(), 0);
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.status().code() == absl::StatusCode::kInvalidArgument);
}

TEST_CASE("where: in-memory result of every operator", "[where]") {
  struct Case {
    const char* where;
    bool want;
  };
  const Case cases[] = {
      {"Slug = 'web-1'", true},
      {"Slug != 'web-1'", false},
      {"Slug <> 'web-2'", true},
      {"Slug < 'x'", true},
      {"Slug < 'Z'", false},  // byte order, as COLLATE "C"
      {"Slug > 'web-1'", false},
      {"Slug >= 'web-1'", true},
      {"Slug <= 'web-0'", false},
      {"HeadRevisionNum = 7", true},
      {"HeadRevisionNum <> 7", false},
      {"HeadRevisionNum < 7", false},
      {"HeadRevisionNum <= 7", true},
      {"HeadRevisionNum > -1", true},
      {"HeadRevisionNum >= 8", false},
      {"HeadRevisionNum IN (1, 7)", true},
      {"HeadRevisionNum NOT IN (1, 7)", false},
      {"HeadRevisionNum NOT IN (1, 2)", true},
      {"Protect = true", true},
      {"Protect != true", false},
      {"Protect IN (false)", false},
      {"CreatedAt = '2024-05-01T14:00:00+02:00'", true},
      {"CreatedAt < '2024-05-01T12:00:00.000001Z'", true},
      {"CreatedAt > '2024-05-01T12:00:00Z'", false},
      {"CreatedAt IN ('2020-01-01T00:00:00Z', '2024-05-01T12:00:00Z')", true},
      {"UnitID = 'A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11'", true},
      {"UnitID != 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'", false},
      {"Labels.tier = 'prod'", true},
      {"Labels.tier IS NULL", false},
      {"Labels.tier IS NOT NULL", true},
      {"Labels.app.kubernetes.io/name = 'web'", true},
      {"Space.Labels.Stage = 'dev'", true},
      {"Space.Labels.Stage IN ('prod', 'staging')", false},
      {"Labels IS NOT NULL", true},
      {"ResolvedSpaceIDs ? 's2'", true},
      {"ResolvedSpaceIDs ? 's3'", false},
      {"LEN(ResolvedSpaceIDs) = 2", true},
      {"LEN(Slug) = 5", true},
      {"LEN(Labels.tier) > 3", true},
      {"Slug LIKE 'web-_'", true},
      {"Slug LIKE 'web%'", true},
      {"Slug LIKE 'web'", false},  // LIKE matches the whole text
      {"Slug LIKE 'WEB%'", false},
      {"Slug ILIKE 'WEB%'", true},
      {"Slug NOT LIKE 'web%'", false},
      {"Slug NOT ILIKE 'x%'", true},
      {"Slug LIKE '%'", true},
      {"Slug LIKE '%-%1'", true},
      {"Slug LIKE '_'", false},
      {"Slug ~ '^web-[0-9]$'", true},
      {"Slug ~ 'eb'", true},  // a search, not a full match
      {"Slug ~ '^eb'", false},
      {"Slug ~ '^WEB'", false},
      {"Slug ~* '^WEB'", true},
      {"Slug !~ '^web'", false},
      {"Slug !~ '^WEB'", true},
      {"Slug !~* '^WEB'", false},
      {"Slug !~* 'zz'", true},
      {"Labels.missing !~ 'x'", false},  // as SQL: no value, no match either way
      {"State = 'Completed'", true},     // derived field: in memory only
      {"Slug = 'x' OR HeadRevisionNum = 7 AND Protect = true", true},
      {"(Slug = 'x' OR HeadRevisionNum = 7) AND Protect = false", false},
      {"NOT Slug = 'x'", true},
      {"NOT NOT Slug = 'x'", false},
      {"NOT (Slug = 'web-1' AND Protect = false)", true},
  };
  for (const Case& c : cases) {
    INFO(c.where);
    CHECK(Eval(c.where) == c.want);
  }
}

TEST_CASE("where: null values and missing map keys", "[where]") {
  // As in SQL: a comparison with null is not true, including != and NOT IN; IS NULL is; and
  // NOT, which compiles to IS NOT TRUE, turns "not true" into true.
  struct Case {
    const char* where;
    bool want;
  };
  const Case cases[] = {
      {"Labels.missing IS NULL", true},
      {"Labels.missing IS NOT NULL", false},
      {"Labels.missing = 'x'", false},
      {"Labels.missing != 'x'", false},
      {"Labels.missing NOT IN ('x')", false},
      {"Labels.missing NOT LIKE '%'", false},
      {"Labels.missing ~ ''", false},
      {"NOT Labels.missing = 'x'", true},
      {"NOT (Labels.missing = 'x' OR Slug = 'x')", true},
      {"Component.Slug IS NULL", true},
      {"Component.Slug = 'x'", false},
      {"Component.Slug != 'x'", false},
      {"Component.Slug < 'x'", false},
      {"Tags IS NULL", true},
      {"Tags ? 'x'", false},
      {"LEN(Tags) = 0", false},
      {"LEN(Tags) IS NULL", true},
      {"Space.Labels.Missing IS NULL", true},
  };
  for (const Case& c : cases) {
    INFO(c.where);
    CHECK(Eval(c.where) == c.want);
  }
  // A null map behaves as a map without the key.
  MapRecord empty({});
  CHECK(Eval("Labels.tier IS NULL", empty));
  CHECK_FALSE(Eval("Labels.tier = 'prod'", empty));
  CHECK(Eval("Labels IS NULL", empty));
  // An empty list is not null.
  MapRecord no_tags({{"Tags", std::vector<std::string>{}}});
  CHECK(Eval("LEN(Tags) = 0", no_tags));
  CHECK(Eval("Tags IS NOT NULL", no_tags));
}

TEST_CASE("where: LIKE escapes and characters", "[where]") {
  MapRecord percent({{"Slug", std::string("50%_off")}});
  CHECK(Eval(R"(Slug LIKE '50\%\_off')", percent));
  CHECK(Eval(R"(Slug LIKE '50\%%')", percent));
  CHECK_FALSE(Eval(R"(Slug LIKE '50\%')", percent));
  MapRecord plain({{"Slug", std::string("50xyoff")}});
  CHECK_FALSE(Eval(R"(Slug LIKE '50\%\_off')", plain));
  CHECK(Eval(R"(Slug LIKE '50%off')", plain));
  MapRecord backslash({{"Slug", std::string("a\\b")}});
  CHECK(Eval(R"(Slug LIKE 'a\\b')", backslash));

  // '_' and LEN count characters, not bytes, as PostgreSQL does in a UTF-8 database.
  MapRecord accented({{"Slug", std::string("h\xC3\xA9llo")}});
  CHECK(Eval("Slug LIKE 'h_llo'", accented));
  CHECK(Eval("LEN(Slug) = 5", accented));
  CHECK(Eval("Slug ILIKE 'H%LLO'", accented));

  MapRecord backtrack({{"Slug", std::string("xaybzcab")}});
  CHECK(Eval("Slug LIKE '%a%b'", backtrack));
  CHECK(Eval("Slug LIKE '%a_b%c%'", backtrack));
  CHECK_FALSE(Eval("Slug LIKE '%c%d'", backtrack));
}

TEST_CASE("where: syntax errors point at the character", "[where]") {
  struct Case {
    std::string where;
    const char* message;
  };
  const Case cases[] = {
      {"Lables = 'x'", "where: unknown field 'Lables' at 1"},
      {"Slug = ", "where: expected a value after '=' at 8"},
      {"Slug = 'abc", "where: unterminated string at 8"},
      {"Slug = 'a' AND", "where: expected a field, got end of input at 15"},
      {"Slug = 'a' Slug = 'b'", "where: unexpected 'Slug' at 12"},
      {"(Slug = 'a'", "where: expected ')', got end of input at 12"},
      {"Slug = 'a')", "where: unexpected ')' at 11"},
      {"()", "where: expected a field, got ')' at 2"},
      {"Slug IN 'a'", "where: expected '(' after IN at 9"},
      {"Slug IN ('a' 'b')", "where: expected ',' or ')' in the IN list, got string at 14"},
      {"Slug IN ()", "where: expected a value after '(' at 10"},
      {"Slug IN ('a',)", "where: expected a value after ',' at 14"},
      {"Slug IS 'a'", "where: expected NULL after IS at 9"},
      {"Slug IS NOT", "where: expected NULL after IS at 12"},
      {"Slug NOT = 'a'", "where: expected IN, LIKE or ILIKE after NOT at 10"},
      {"Slug 'a'", "where: expected an operator after 'Slug', got string at 6"},
      {"Slug", "where: expected an operator after 'Slug', got end of input at 5"},
      {"Slug = NULL", "where: use IS NULL or IS NOT NULL to test for null at 8"},
      {"Slug = Slug", "where: expected a value after '=' at 8"},
      {"Slug LIKE 5", "where: expected a string after 'LIKE' at 11"},
      {"Slug ~ true", "where: expected a string after '~' at 8"},
      {"Slug !~* 1", "where: expected a string after '!~*' at 10"},
      {"Slug ! 'x'", "where: unexpected character '!' at 6"},
      {"Slug = 'a' & x", "where: unexpected character '&' at 12"},
      {"Slug ! 'a'", "where: unexpected character '!' at 6"},
      {"HeadRevisionNum = 99999999999999999999",
       "where: integer 99999999999999999999 is out of range at 19"},
      {"HeadRevisionNum = 12ab", "where: malformed number at 19"},
      {"Labels. = 'x'", "where: expected a name after '.' at 7"},
      {"LEN(Slug = 1", "where: expected ')' after LEN's field at 10"},
      {"'x' = Slug", "where: expected a field, got string at 1"},
      {"AND = 1", "where: expected a field, got 'AND' at 1"},
      {"NOT", "where: expected a field, got end of input at 4"},
      // Positions count characters, not bytes: 'é' is two bytes.
      {"Slug = '\xC3\xA9' AND Nope = 1", "where: unknown field 'Nope' at 16"},
      {"Slug = '\xFF'", "where: malformed UTF-8 at 9"},
      {std::string("Slug = 'a\0'", 11), "where: unexpected NUL character at 10"},
  };
  for (const Case& c : cases) {
    CHECK(CompileError(c.where) == c.message);
  }
}

TEST_CASE("where: nesting is bounded", "[where]") {
  const std::string ok =
      std::string(kMaxNesting, '(') + "Slug = 'a'" + std::string(kMaxNesting, ')');
  CHECK(MustCompile(ok).text == "(u.slug = $1)");
  const std::string deep =
      std::string(kMaxNesting + 1, '(') + "Slug = 'a'" + std::string(kMaxNesting + 1, ')');
  CHECK(CompileError(deep) == "where: expression nested too deeply at 101");
  std::string nots;
  for (int i = 0; i < 10000; ++i) nots += "NOT ";
  CHECK(CompileError(nots + "Slug = 'a'") == "where: expression nested too deeply at 401");
}

TEST_CASE("where: type errors", "[where]") {
  struct Case {
    const char* where;
    const char* message;
  };
  const Case cases[] = {
      {"HeadRevisionNum = 'x'", "where: field 'HeadRevisionNum' is a number; got a string at 19"},
      {"HeadRevisionNum IN (1, 'x')",
       "where: field 'HeadRevisionNum' is a number; got a string at 24"},
      {"Slug = 1", "where: field 'Slug' is a string; got a number at 8"},
      {"Slug = true", "where: field 'Slug' is a string; got a boolean at 8"},
      {"Protect = 1", "where: field 'Protect' is a boolean; got a number at 11"},
      {"Labels.tier = 1", "where: field 'Labels.tier' is a string; got a number at 15"},
      {"Protect < true", "where: operator '<' does not apply to field 'Protect' (a boolean) at 9"},
      {"Slug ? 'a'", "where: operator '?' does not apply to field 'Slug' (a string) at 6"},
      {"HeadRevisionNum LIKE 'a%'",
       "where: operator 'LIKE' does not apply to field 'HeadRevisionNum' (a number) at 17"},
      {"HeadRevisionNum ~ 'a'",
       "where: operator '~' does not apply to field 'HeadRevisionNum' (a number) at 17"},
      {"HeadRevisionNum !~* 'a'",
       "where: operator '!~*' does not apply to field 'HeadRevisionNum' (a number) at 17"},
      {"UnitID < 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'",
       "where: operator '<' does not apply to field 'UnitID' (a UUID) at 8"},
      {"ResolvedSpaceIDs = 'a'",
       "where: operator '=' does not apply to field 'ResolvedSpaceIDs' (a list of strings) at 18"},
      {"ResolvedSpaceIDs ? 1",
       "where: field 'ResolvedSpaceIDs' is a list of strings; got a number at 20"},
      {"LEN(ResolvedSpaceIDs) ? 'a'",
       "where: operator '?' does not apply to 'LEN(ResolvedSpaceIDs)' (a number) at 23"},
      {"Labels = 'x'", "where: field 'Labels' is a map; name a key, as in 'Labels.key' at 1"},
      {"Labels ? 'x'", "where: field 'Labels' is a map; name a key, as in 'Labels.key' at 1"},
      {"LEN(HeadRevisionNum) > 1",
       "where: LEN does not apply to field 'HeadRevisionNum' (a number) at 5"},
      {"LEN(Slug) = 'a'", "where: 'LEN(Slug)' is a number; got a string at 13"},
      {"CreatedAt < '2024-05-01'",
       "where: field 'CreatedAt' is a time; expected RFC 3339 such as '2024-05-01T12:00:00Z' at "
       "13"},
      {"CreatedAt < '2024-05-01T12:00:00'",
       "where: field 'CreatedAt' is a time; expected RFC 3339 such as '2024-05-01T12:00:00Z' at "
       "13"},
      {"CreatedAt < 5", "where: field 'CreatedAt' is a time; got a number at 13"},
      {"CreatedAt < '2024-05-01T12:00:00.0000001Z'",
       "where: time is more precise than a microsecond at 13"},
      {"UnitID = 'not-a-uuid'", "where: field 'UnitID' is a UUID; got a malformed one at 10"},
      {"UnitID = 'a0eebc99x9c0b-4ef8-bb6d-6bb9bd380a11'",
       "where: field 'UnitID' is a UUID; got a malformed one at 10"},
      {"Slug ~ '('", "where: invalid regular expression '(': missing ')' at 8"},
      {"Slug ~* '('", "where: invalid regular expression '(': missing ')' at 9"},
      {"Slug ~ 'a\\bc'",
       "where: regular expression 'a\\bc' uses '\\b', which PostgreSQL reads differently (not "
       "as a word boundary) at 8"},
      {R"(Slug LIKE 'a\')",
       R"(where: LIKE pattern must not end with an escape character '\' at 11)"},
      {"Slug.x = 'a'", "where: unknown field 'Slug.x' at 1"},
      {"Space = 'a'", "where: unknown field 'Space' at 1"},
      {"slug = 'a'", "where: unknown field 'slug' at 1"},
      {"State = 'x'", "where: field 'State' cannot be used here at 1"},
      {"Slug = 'a' AND LEN(Tags) > 1", "where: field 'Tags' cannot be used here at 20"},
  };
  for (const Case& c : cases) {
    CHECK(CompileError(c.where) == c.message);
  }
}

TEST_CASE("where: in-memory matching checks types as the compiler does", "[where]") {
  absl::StatusOr<std::shared_ptr<const Expr>> e = Parse("HeadRevisionNum = 'x'");
  REQUIRE(e.ok());
  absl::StatusOr<bool> m = Matches(**e, TestSchema(), WebUnit());
  REQUIRE_FALSE(m.ok());
  CHECK(m.status().message() == "where: field 'HeadRevisionNum' is a number; got a string at 19");

  // A record that breaks Record's contract is an internal error, not a user one.
  e = Parse("Slug = 'a'");
  REQUIRE(e.ok());
  m = Matches(**e, TestSchema(), MapRecord({{"Slug", int64_t{1}}}));
  REQUIRE_FALSE(m.ok());
  CHECK(m.status().code() == absl::StatusCode::kInternal);
  e = Parse("CreatedAt > '2024-01-01T00:00:00Z'");
  REQUIRE(e.ok());
  m = Matches(**e, TestSchema(), MapRecord({{"CreatedAt", std::string("yesterday")}}));
  REQUIRE_FALSE(m.ok());
  CHECK(m.status().code() == absl::StatusCode::kInternal);
}

TEST_CASE("where: a Matcher is reusable and outlives its inputs", "[where]") {
  std::optional<Matcher> matcher;
  {
    Schema schema("Thing", {{"Name", FieldType::kString, ""}});
    absl::StatusOr<std::shared_ptr<const Expr>> e = Parse("Name LIKE 'a%' OR Name ~ 'z$'");
    REQUIRE(e.ok());
    absl::StatusOr<Matcher> m = Matcher::Create(**e, schema);
    REQUIRE(m.ok());
    matcher.emplace(*std::move(m));
  }
  const std::pair<const char*, bool> cases[] = {{"abc", true}, {"xyz", true}, {"xyq", false}};
  for (const auto& [name, want] : cases) {
    absl::StatusOr<bool> got = matcher->Matches(MapRecord({{"Name", std::string(name)}}));
    REQUIRE(got.ok());
    CHECK(*got == want);
  }
}

TEST_CASE("where: injection attempts never reach SQL text", "[where]") {
  Sql sql = MustCompile("Slug = 'x'' OR 1=1 --'");
  CHECK(sql.text == "(u.slug = $1)");
  CHECK(sql.params == std::vector<std::string>{"x' OR 1=1 --"});

  CHECK(CompileError("\"Slug\" = 'a'") == "where: unexpected character '\"' at 1");
  CHECK(CompileError("Slug; DROP TABLE units = 'a'") == "where: unexpected character ';' at 5");
  CHECK(CompileError("Slug = 'a'; DROP TABLE units") == "where: unexpected character ';' at 11");
  CHECK(CompileError("Slug = 'a' -- comment") == "where: unexpected character '-' at 12");
  CHECK(CompileError("Slug = 'a' /* x */") == "where: unexpected character '/' at 12");
  CHECK(CompileError("u.slug = 'a'") == "where: unknown field 'u' at 1");
  CHECK(CompileError("Slug = $1") == "where: unexpected character '$' at 8");
  CHECK(CompileError("Slug = E'\\x27'") == "where: expected a value after '=' at 8");
  CHECK_FALSE(CompileToSql("Labels.x'); DROP TABLE units; -- = 'a'", TestSchema()).ok());

  // Map keys are parameters too.
  sql = MustCompile("Labels.a-b/c = 'v'");
  CHECK(sql.params == std::vector<std::string>{"a-b/c", "v"});

  // Hostile literals in every literal position: each is a parameter, none is in the text.
  const std::string hostile[] = {
      "'; DROP TABLE units; --",
      "') OR TRUE OR ('",
      "\" OR \"\"=\"",
      "/* */ u.slug",
      "::text",
      "\\",
      "$$ x $$",
      "E'\\x27'",
      "\xF0\x9F\xA6\x84 unicorn",
      "COLLATE \"C\"",
      "%",
  };
  for (const std::string& h : hostile) {
    std::string quoted;
    for (char c : h) quoted += c == '\'' ? std::string("''") : std::string(1, c);
    const std::string where = "Slug = '" + quoted + "' OR Labels.tier IN ('" + quoted +
                              "', 'z') OR Slug ILIKE '" + quoted + "%' OR Slug ~ 'x' OR " +
                              "ResolvedSpaceIDs ? '" + quoted + "' OR Slug NOT LIKE 'x'";
    INFO(where);
    if (h == "\\") continue;  // a lone escape is no valid LIKE pattern; covered above
    Sql s = MustCompile(where);
    CHECK(s.params.size() == 7);  // the IN list is one array parameter
    CHECK(s.params[0] == h);
    std::string element;
    for (char c : h) element += c == '"' || c == '\\' ? std::string{'\\', c} : std::string(1, c);
    CHECK(s.params[2] == "{\"" + element + "\",\"z\"}");
    CHECK(s.params[3] == h + "%");
    CHECK(s.params[5] == h);
    // "::text" is also the cast of the IN list's array parameter ($3::text[]).
    if (h.size() > 2 && h != "::text") CHECK(s.text.find(h) == std::string::npos);
  }
}

TEST_CASE("where: schema resolution", "[where]") {
  Schema schema("Thing", {
                             {"Labels", FieldType::kStringMap, "t.labels"},
                             {"Labels.extra", FieldType::kStringMap, "t.extra"},
                             {"Space.Slug", FieldType::kString, "s.slug"},
                             {"Space", FieldType::kStringMap, "s.meta"},
                         });
  std::optional<FieldRef> r = schema.Resolve("Labels.extra.k.x");
  REQUIRE(r);
  CHECK(r->field->name == "Labels.extra");  // the longest map prefix wins
  CHECK(r->key == "k.x");
  r = schema.Resolve("Labels.tier");
  REQUIRE(r);
  CHECK(r->field->name == "Labels");
  CHECK(r->key == "tier");
  r = schema.Resolve("Space.Slug");  // an exact match beats a map prefix
  REQUIRE(r);
  CHECK(r->field->name == "Space.Slug");
  CHECK_FALSE(r->key);
  r = schema.Resolve("Space.Other");
  REQUIRE(r);
  CHECK(r->field->name == "Space");
  CHECK(r->key == "Other");
  CHECK_FALSE(schema.Resolve("Nope"));
  r = schema.Resolve("Space.Slug.x");  // "Space.Slug" is no map: the key is under "Space"
  REQUIRE(r);
  CHECK(r->field->name == "Space");
  CHECK(r->key == "Slug.x");
  CHECK(schema.entity() == "Thing");
  CHECK(schema.Find("Labels") != nullptr);
  CHECK(schema.Find("labels") == nullptr);
}

TEST_CASE("where: fields used and in-memory pushdown", "[where]") {
  absl::StatusOr<std::shared_ptr<const Expr>> e =
      Parse("Slug = 'a' AND (Labels.tier = 'x' OR Slug = 'b') AND LEN(Tags) > 1");
  REQUIRE(e.ok());
  CHECK(FieldsUsed(**e) == std::vector<std::string>{"Slug", "Labels.tier", "Tags"});

  auto needs = [](const char* where) {
    absl::StatusOr<std::shared_ptr<const Expr>> e = Parse(where);
    REQUIRE(e.ok());
    absl::StatusOr<bool> n = NeedsInMemory(**e, TestSchema());
    REQUIRE(n.ok());
    return *n;
  };
  CHECK_FALSE(needs("Slug = 'a' AND Labels.tier = 'x'"));
  CHECK(needs("Slug = 'a' AND State = 'x'"));
  CHECK(needs("Tags ? 'x'"));
  CHECK_FALSE(needs(""));

  struct Case {
    const char* where;
    const char* text;
    std::vector<std::string> params;
  };
  const Case cases[] = {
      {"Slug = 'a' AND State = 'Completed' AND HeadRevisionNum > 1",
       "((u.slug = $1) AND (u.head_revision_num > $2::bigint))",
       {"a", "1"}},
      {"Slug = 'a' OR State = 'x'", "TRUE", {}},
      {"NOT State = 'x' AND Slug = 'a'", "(u.slug = $1)", {"a"}},
      {"(State = 'x' AND Slug = 'a') OR Slug = 'b'",
       "((u.slug = $1) OR (u.slug = $2))",
       {"a", "b"}},
      {"NOT (State = 'x' AND Slug = 'a')", "TRUE", {}},
      {"Slug = 'a' AND Protect = true",
       "((u.slug = $1) AND (u.protect = $2::boolean))",
       {"a", "true"}},
  };
  for (const Case& c : cases) {
    absl::StatusOr<std::shared_ptr<const Expr>> parsed = Parse(c.where);
    REQUIRE(parsed.ok());
    absl::StatusOr<Sql> sql = CompilePrefilter(**parsed, TestSchema(), 1);
    INFO(c.where);
    REQUIRE(sql.ok());
    CHECK(sql->text == c.text);
    CHECK(sql->params == c.params);
  }
  e = Parse("Nope = 1 AND State = 'x'");
  REQUIRE(e.ok());
  CHECK_FALSE(CompilePrefilter(**e, TestSchema()).ok());
}

// --- Hardening: hostile sizes and patterns never crash, and are refused by name. -----------

TEST_CASE("where: a deeply nested regular expression is refused, naming it", "[where]") {
  // std::regex recursed once per parenthesis and overflowed the stack on this.
  const std::string pattern = std::string(30000, '(') + "a" + std::string(30000, ')');
  const std::string message = CompileError("Slug ~ '" + pattern + "'");
  CHECK(message == "where: regular expression '" + std::string(40, '(') +
                       "\xE2\x80\xA6' is 60001 bytes long; the limit is 1024 at 8");
  // The in-memory path binds the same way.
  absl::StatusOr<std::shared_ptr<const Expr>> e = Parse("State ~ '" + pattern + "'");
  REQUIRE(e.ok());
  absl::StatusOr<Matcher> m = Matcher::Create(**e, TestSchema());
  REQUIRE_FALSE(m.ok());
  CHECK(m.status().code() == absl::StatusCode::kInvalidArgument);
  CHECK(m.status().message() == message.substr(0, message.size() - 1) + "9");
}

TEST_CASE("where: regular expressions over the program budget are refused", "[where]") {
  CHECK(CompileError("Slug ~ '(.{255}){3}'") ==
        "where: regular expression '(.{255}){3}' is too complex: it compiles to 5365 "
        "instructions; the limit is 5000 at 8");
  CHECK(CompileError("Slug ~ '(x{255}){4}'") ==
        "where: invalid regular expression '(x{255}){4}': invalid or too large repetition count "
        "'{4}' at 8");
  // Within budget: compiles, and 1 KiB of literal text is fine.
  MustCompile("Slug ~ '([a-z]{100}){10}'");
  MustCompile("Slug ~ '" + std::string(1024, 'x') + "'");
}

TEST_CASE("where: regular expressions run in linear time in memory", "[where]") {
  // std::regex backtracked (and recursed) per character on this.
  Schema schema("ChangeOrder", {{"Description", FieldType::kString, ""}});
  absl::StatusOr<std::shared_ptr<const Expr>> e = Parse("Description ~ '^(a|b)*$'");
  REQUIRE(e.ok());
  absl::StatusOr<Matcher> m = Matcher::Create(**e, schema);
  REQUIRE(m.ok());
  std::string text(20000, 'a');
  for (size_t i = 0; i < text.size(); i += 3) text[i] = 'b';
  absl::StatusOr<bool> got = m->Matches(MapRecord({{"Description", text}}));
  REQUIRE(got.ok());
  CHECK(*got);
  got = m->Matches(MapRecord({{"Description", text + "c"}}));
  REQUIRE(got.ok());
  CHECK_FALSE(*got);
}

TEST_CASE("where: regular expressions PostgreSQL reads differently are refused", "[where]") {
  struct Case {
    const char* pattern;
    const char* why;
  };
  const Case cases[] = {
      {R"(\Bx)", R"(uses '\B', which PostgreSQL reads differently (not as a word boundary))"},
      {R"(\x41)", R"(uses the escape '\x', which the where language does not support)"},
      {R"(\101)", R"(uses the escape '\1', which the where language does not support)"},
      {R"(\pL)", R"(uses the escape '\p', which the where language does not support)"},
      {R"(\Qa\E)", R"(uses the escape '\Q', which the where language does not support)"},
      {R"(x\z)", R"(uses the escape '\z', which the where language does not support)"},
      {"(?i)web", "uses '(?', which the where language supports only as '(?:'"},
      {"(?P<n>web)", "uses '(?', which the where language supports only as '(?:'"},
      {"a{,2}", "has a '{' that starts no repetition bound; write '\\{'"},
      {"a{", "has a '{' that starts no repetition bound"},
      {"a}", "has a '}' outside a repetition bound"},
      {"a{256}", "repeats more than 255 times, PostgreSQL's limit"},
      {"a{1,300}", "repeats more than 255 times"},
      {"^*", "repeats an anchor"},
      {"x$+", "repeats an anchor"},
      {R"(\A?)", "repeats an anchor"},
      {"[[.a.]]", "uses a collating element"},
      {"[[=a=]]", "uses a collating element"},
      {"[[:word:]]", "uses the character class '[:word:]', which PostgreSQL and RE2 do not share"},
      {R"([\D])", R"(uses '\D' inside brackets, which PostgreSQL refuses)"},
      {R"([a\W])", R"(uses '\W' inside brackets)"},
  };
  for (const Case& c : cases) {
    std::string quoted;
    for (const char* p = c.pattern; *p; ++p) quoted += *p == '\'' ? "''" : std::string(1, *p);
    const std::string message = CompileError("Slug ~ '" + quoted + "'");
    INFO(c.pattern);
    CHECK(message.rfind(std::string("where: regular expression '") + c.pattern + "' ", 0) == 0);
    CHECK(message.find(c.why) != std::string::npos);
  }
  // The syntax both engines share is accepted.
  for (const char* ok : {"^web-[0-9]+$", "(?:a|b)*c", R"(\d\s\w\D\S\W\t\.\{\}\\)", "[]a-]", "[^]a]",
                         "[[:alpha:][:digit:]_]", "a{2}b{1,}c{0,255}?", "(^)*", R"(\Aweb)", "é+",
                         "x*?y+?z??", "", "|"}) {
    std::string quoted;
    for (const char* p = ok; *p; ++p) quoted += *p == '\'' ? "''" : std::string(1, *p);
    INFO(ok);
    MustCompile("Slug ~ '" + quoted + "'");
  }
}

TEST_CASE("where: '.' matches a newline, as in PostgreSQL", "[where]") {
  CHECK(Eval("Slug ~ '^a.b$'", MapRecord({{"Slug", std::string("a\nb")}})));
  CHECK(Eval("Slug ~ '^a[^x]b$'", MapRecord({{"Slug", std::string("a\nb")}})));
  CHECK_FALSE(Eval("Slug ~ '^a$'", MapRecord({{"Slug", std::string("a\n")}})));
}

TEST_CASE("where: nesting and size are bounded", "[where]") {
  // The parser recurses per parenthesis: 100,000 of them are refused, not a crash.
  std::string deep = std::string(100000, '(') + "Slug = 'a'" + std::string(100000, ')');
  CHECK(CompileError(deep) == "where: expression nested too deeply at 101");
  std::string nots;
  for (int i = 0; i < 50000; ++i) nots += "NOT ";
  CHECK(CompileError(nots + "Slug = 'a'") == "where: expression nested too deeply at 401");
  // Text over 256 KiB is refused before it is read.
  std::string big = "Slug = '" + std::string(kMaxTextBytes, 'x') + "'";
  CHECK(CompileError(big) == "where: expression is " + std::to_string(big.size()) +
                                 " bytes long; the limit is " + std::to_string(kMaxTextBytes) +
                                 " at 1");
}

TEST_CASE("where: an IN list of any length is one parameter", "[where]") {
  // 70,000 values: over PostgreSQL's 65,535 parameters per statement if bound one by one.
  std::string where = "HeadRevisionNum IN (";
  for (int i = 0; i < 70000; ++i) where += (i == 0 ? "" : ",") + std::to_string(i % 10);
  where += ")";
  REQUIRE(where.size() <= kMaxTextBytes);
  Sql sql = MustCompile(where, 3);
  CHECK(sql.text == "(u.head_revision_num = ANY($3::bigint[]))");
  REQUIRE(sql.params.size() == 1);
  CHECK(sql.params[0].rfind(R"({"0","1","2",)", 0) == 0);
  CHECK(sql.params[0].size() == 2 + 70000 * 4 - 1);
  CHECK(Eval(where));  // HeadRevisionNum 7 is in the list
  CHECK_FALSE(Eval("HeadRevisionNum NOT IN (" + where.substr(20)));
}

}  // namespace
}  // namespace cub::where
