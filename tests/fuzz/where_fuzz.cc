// libFuzzer target for the where language (lib/where): the input is an expression. Parse must
// never crash; whatever it accepts is bound against a schema with every field type (and fields
// derived in memory), compiled to SQL and matched against sample records. Properties:
//   - every refusal is InvalidArgument "where: ...";
//   - the back ends accept the same expressions: Matcher::Create, NeedsInMemory and
//     CompilePrefilter succeed together, and CompileToSql succeeds exactly when they do and
//     no in-memory field is used (then CompilePrefilter gives the same SQL);
//   - the SQL holds no literal: no quote character (the schema's SQL has none), and its
//     placeholders are exactly $3..$(2+params) (numbering starts at 3);
//   - Matches never fails (RE2 matches in linear time and needs no give-up), and NOT inverts
//     it;
//   - ToString's canonical text parses back to the same canonical text.
//
// Build and run with tests/fuzz/run.sh (see docs/operations.md, "Fuzzing"). Seeds, and inputs
// that once failed, are in tests/fuzz/corpus/where.

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "lib/where/where.h"
#include "tests/fuzz/check_property.h"

namespace {

using cub::where::Expr;
using cub::where::FieldDef;
using cub::where::FieldType;
using cub::where::Schema;
using cub::where::Value;

const Schema& TestSchema() {
  static const Schema* s =
      new Schema("Unit", {
                             {"UnitID", FieldType::kUuid, "u.id"},
                             {"Slug", FieldType::kString, "u.slug"},
                             {"HeadRevisionNum", FieldType::kInt, "u.head_revision_num"},
                             {"Protect", FieldType::kBool, "u.protect"},
                             {"CreatedAt", FieldType::kTime, "u.created_at"},
                             {"Tags", FieldType::kStringList, "u.tags"},
                             {"Labels", FieldType::kStringMap, "u.labels"},
                             {"Space.Slug", FieldType::kString, "s.slug"},
                             {"Space.Labels", FieldType::kStringMap, "s.labels"},
                             // Derived at read time: in memory only.
                             {"Status", FieldType::kString, ""},
                             {"Approvals", FieldType::kInt, ""},
                             {"Ready", FieldType::kBool, ""},
                             {"Missing", FieldType::kStringList, ""},
                             {"Gates", FieldType::kStringMap, ""},
                         });
  return *s;
}

class Row : public cub::where::Record {
 public:
  explicit Row(std::map<std::string, Value> values) : values_(std::move(values)) {}
  Value Get(const FieldDef& field) const override {
    auto it = values_.find(field.name);
    return it == values_.end() ? Value() : it->second;
  }

 private:
  std::map<std::string, Value> values_;
};

// A full record, one with odd values (empty, negative, non-ASCII), and one of nulls only.
const std::vector<Row>& Rows() {
  using Map = std::map<std::string, std::string>;
  using List = std::vector<std::string>;
  static const std::vector<Row>* rows = new std::vector<Row>{
      Row({{"UnitID", std::string("3f0c6f5e-8d7a-4b1e-9c2d-1a2b3c4d5e6f")},
           {"Slug", std::string("backend-eu")},
           {"HeadRevisionNum", int64_t{42}},
           {"Protect", true},
           {"CreatedAt", std::string("2024-05-01T12:00:00Z")},
           {"Tags", List{"prod", "eu", "a%b_c"}},
           {"Labels", Map{{"tier", "prod"}, {"app.kubernetes.io/name", "backend"}}},
           {"Space.Slug", std::string("prod-eu")},
           {"Space.Labels", Map{{"Stage", "prod"}}},
           {"Status", std::string("Ready")},
           {"Approvals", int64_t{2}},
           {"Ready", false},
           {"Missing", List{"Validated"}},
           {"Gates", Map{{"Approved", "true"}}}}),
      Row({{"UnitID", std::string("00000000-0000-0000-0000-000000000000")},
           {"Slug", std::string("")},
           {"HeadRevisionNum", int64_t{-9223372036854775807 - 1}},
           {"Protect", false},
           {"CreatedAt", std::string("1970-01-01T00:00:00.000001+02:00")},
           {"Tags", List{}},
           {"Labels", Map{{"", "é"}, {"tier", "ÄÖÜ\\%_'"}}},
           {"Space.Slug", std::string("ümlaut-ß")},
           {"Status", std::string("\xff\xfe not UTF-8")},
           {"Approvals", int64_t{9223372036854775807}},
           {"Missing", List{"", "x"}},
           {"Gates", Map{}}}),
      Row({}),
  };
  return *rows;
}

bool IsWhereError(const absl::Status& s) {
  return s.code() == absl::StatusCode::kInvalidArgument && absl::StartsWith(s.message(), "where: ");
}

// The SQL carries no literal and numbers its placeholders $first..$(first+params-1), each used.
void CheckSql(const cub::where::Sql& sql, int first) {
  CHECK_PROPERTY(sql.text.find('\'') == std::string::npos);
  std::set<long> used;
  for (size_t i = 0; i < sql.text.size(); ++i) {
    if (sql.text[i] != '$') continue;
    size_t j = i + 1;
    long n = 0;
    while (j < sql.text.size() && sql.text[j] >= '0' && sql.text[j] <= '9' && n < 1000000) {
      n = n * 10 + (sql.text[j] - '0');
      ++j;
    }
    CHECK_PROPERTY(j > i + 1);
    used.insert(n);
  }
  CHECK_PROPERTY(used.size() == sql.params.size());
  if (!used.empty()) {
    CHECK_PROPERTY(*used.begin() == first);
    CHECK_PROPERTY(*used.rbegin() == first + static_cast<long>(sql.params.size()) - 1);
  }
}

void CheckBackEnds(const Expr& e) {
  const Schema& schema = TestSchema();
  constexpr int kFirst = 3;
  absl::StatusOr<cub::where::Matcher> matcher = cub::where::Matcher::Create(e, schema);
  absl::StatusOr<bool> in_memory = cub::where::NeedsInMemory(e, schema);
  absl::StatusOr<cub::where::Sql> sql = cub::where::CompileToSql(e, schema, kFirst);
  absl::StatusOr<cub::where::Sql> prefilter = cub::where::CompilePrefilter(e, schema, kFirst);

  CHECK_PROPERTY(matcher.ok() == in_memory.ok());
  CHECK_PROPERTY(matcher.ok() == prefilter.ok());
  CHECK_PROPERTY(sql.ok() == (matcher.ok() && !*in_memory));
  if (!matcher.ok()) {
    CHECK_PROPERTY(IsWhereError(matcher.status()));
    CHECK_PROPERTY(IsWhereError(in_memory.status()));
    CHECK_PROPERTY(IsWhereError(prefilter.status()));
    CHECK_PROPERTY(IsWhereError(sql.status()));
    return;
  }
  if (!sql.ok()) CHECK_PROPERTY(IsWhereError(sql.status()));
  CheckSql(*prefilter, kFirst);
  if (sql.ok()) {
    CheckSql(*sql, kFirst);
    CHECK_PROPERTY(prefilter->text == sql->text);
    CHECK_PROPERTY(prefilter->params == sql->params);
  }

  Expr negated;
  negated.kind = Expr::Kind::kNot;
  negated.children.push_back(e);
  absl::StatusOr<cub::where::Matcher> not_matcher = cub::where::Matcher::Create(negated, schema);
  CHECK_PROPERTY(not_matcher.ok());
  for (const Row& row : Rows()) {
    absl::StatusOr<bool> m = matcher->Matches(row);
    absl::StatusOr<bool> n = not_matcher->Matches(row);
    CHECK_PROPERTY(m.ok() && n.ok());
    CHECK_PROPERTY(*n == !*m);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<std::shared_ptr<const Expr>> e = cub::where::Parse(text);
  if (!e.ok()) {
    CHECK_PROPERTY(IsWhereError(e.status()));
    return 0;
  }
  (void)cub::where::FieldsUsed(**e);
  CheckBackEnds(**e);

  // Canonical text parses back to itself. It parenthesizes every NOT, AND and OR, so an input
  // near the nesting limit may come back too deep; nothing else may fail.
  const std::string canonical = cub::where::ToString(**e);
  absl::StatusOr<std::shared_ptr<const Expr>> again = cub::where::Parse(canonical);
  if (!again.ok()) {
    CHECK_PROPERTY(absl::StrContains(again.status().message(), "nested too deeply"));
    return 0;
  }
  CHECK_PROPERTY(cub::where::ToString(**again) == canonical);
  return 0;
}
