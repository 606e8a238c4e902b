// The where language's regular-expression operators ('~', '~*', '!~', '!~*') against a real
// PostgreSQL: for every pattern the where language accepts (RE2 within the budget, and only the
// syntax lib/where/regex.h allows), the SQL that
// CompileToSql produces must run without error and select exactly the texts the in-memory
// Matcher selects. Patterns are drawn at random (fixed seed) from pieces of both syntaxes,
// including the ones the two engines read differently, so a divergence that slips past the
// checker shows up here. Texts are ASCII: the classes \w, \d, [:alpha:] follow the database
// locale for other letters, a documented gap.
#include <catch2/catch.hpp>
#include <iterator>
#include <pqxx/pqxx>
#include <random>
#include <string>
#include <vector>

#include "harness/test_db.h"
#include "lib/util/pg_array.h"
#include "lib/where/where.h"

namespace cub {
namespace {

class TextRecord : public where::Record {
 public:
  explicit TextRecord(std::string s) : s_(std::move(s)) {}
  where::Value Get(const where::FieldDef&) const override { return s_; }

 private:
  std::string s_;
};

std::vector<std::string> Patterns() {
  std::vector<std::string> out = {
      "abc",    "^a.b$",  "[^x]",   "(^)*",      "a{2}",       "a{2,}",       "a{0,255}",
      "[]a]",   "[^]a]",  "[a\\]]", "[a-]",      "\\d+\\s\\w", "\\D\\S\\W",   "\\Aab",
      "x*?y+?", "(|a)",   "a|",     "$a",        "a^",         "[[:alpha:]]", "[[:digit:]_]",
      "\\.",    "\\{\\}", "\\$",    "(a{2}){3}", "(a|aa)*b",   "^(a|b)*$",    "(?:a|b)c",
  };
  const char* pieces[] = {
      "a",    "b",    "c",   ".",   "^",     "$",    "|",     "(",     ")",
      "(?:",  "*",    "+",   "?",   "*?",    "+?",   "??",    "{2}",   "{1,3}",
      "{0,}", "{,2}", "{",   "}",   "[ab]",  "[^a]", "[a-c]", "[]a]",  "[[:alpha:]]",
      "\\d",  "\\w",  "\\s", "\\D", "\\W",   "\\S",  "\\.",   "\\\\",  "\\A",
      "\\n",  "\\t",  "\\b", "\\B", "\\x41", "\\1",  "(?i)",  "[\\d]", "[\\D]",
      "\\{",  "\\}",  "\\|", "\\^", "\\$",   " ",    "-",     "x",     "[[.a.]]",
  };
  std::mt19937 rng(20261201);
  std::uniform_int_distribution<int> len(1, 7);
  std::uniform_int_distribution<size_t> pick(0, std::size(pieces) - 1);
  for (int i = 0; i < 2500; ++i) {
    std::string p;
    for (int n = len(rng); n > 0; --n) p += pieces[pick(rng)];
    out.push_back(p);
  }
  return out;
}

std::string Quoted(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("''") : std::string(1, c);
  return out + "'";
}

TEST_CASE("where '~': PostgreSQL and the in-memory matcher agree on every accepted pattern",
          "[where][pg]") {
  const std::vector<std::string> texts = {
      "abc", "a\nb",   "",    "ABC",  "{}",   "a{2}", "aa", "x y", "\b",        "_",   "ab\\b",
      "9",   "abcabc", "a.b", "a\tb", "(a)",  "[x]",  "$",  "^",   "*",         "a-b", "\\",
      "b\n", "\na",    "ba",  "cab",  "aab2", "|",    "x",  "A",   "aaaaaaaaaa"};
  pqxx::connection conn(testing::FreshDatabaseUrl("where_regex"));
  const where::Schema schema("Thing", {{"S", where::FieldType::kString, "x.t"}});
  const std::string texts_param = PgArrayLiteral(texts);
  int accepted = 0, refused = 0;
  // Each pattern with one of the four regular-expression operators, in turn.
  const char* const kOps[] = {"~", "~*", "!~", "!~*"};
  int n = 0;
  for (const std::string& pattern : Patterns()) {
    const std::string text = std::string("S ") + kOps[n++ % 4] + " " + Quoted(pattern);
    INFO(text);
    absl::StatusOr<where::Sql> sql = where::CompileToSql(text, schema, 2);
    absl::StatusOr<std::shared_ptr<const where::Expr>> parsed = where::Parse(text);
    REQUIRE(parsed.ok());
    absl::StatusOr<where::Matcher> matcher = where::Matcher::Create(**parsed, schema);
    REQUIRE(sql.ok() == matcher.ok());  // one checker for both paths
    if (!sql.ok()) {
      CHECK(sql.status().code() == absl::StatusCode::kInvalidArgument);
      ++refused;
      continue;
    }
    ++accepted;
    std::string want;
    for (const std::string& t : texts) {
      absl::StatusOr<bool> m = matcher->Matches(TextRecord(t));
      REQUIRE(m.ok());
      want += *m ? '1' : '0';
    }
    std::string got;
    try {
      pqxx::work tx(conn);
      pqxx::row row = tx.exec_params1("SELECT coalesce(string_agg(CASE WHEN " + sql->text +
                                          " THEN '1' ELSE '0' END, '' ORDER BY x.ord), '') "
                                          "FROM unnest($1::text[]) WITH ORDINALITY AS x(t, ord)",
                                      texts_param, sql->params.at(0));
      got = row[0].as<std::string>();
    } catch (const std::exception& e) {
      FAIL("PostgreSQL refused a pattern the where language accepts: " << e.what());
    }
    CHECK(got == want);
  }
  // The draw must exercise both sides.
  CHECK(accepted > 500);
  CHECK(refused > 500);
}

}  // namespace
}  // namespace cub
