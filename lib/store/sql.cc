#include "lib/store/sql.h"

#include <algorithm>
#include <functional>
#include <string_view>

#include "absl/strings/str_cat.h"
#include "lib/store/pq.h"
#include "lib/util/json.h"
#include "lib/util/pg_array.h"
#include "lib/util/status_macros.h"

namespace cub::store {

std::string Query::Param(std::string value) {
  params_.push_back(std::move(value));
  return absl::StrCat("$", params_.size());
}

Query& Query::Append(std::string_view sql) {
  sql_.append(sql.data(), sql.size());
  return *this;
}

absl::Status Query::AndWhere(std::string_view expr, const where::Schema& schema) {
  if (expr.find_first_not_of(" \t\r\n") == std::string_view::npos) return absl::OkStatus();
  CUB_ASSIGN_OR_RETURN(auto compiled,
                       where::CompileToSql(expr, schema, static_cast<int>(params_.size()) + 1));
  absl::StrAppend(&sql_, " AND (", compiled.text, ")");
  for (auto& p : compiled.params) params_.push_back(std::move(p));
  return absl::OkStatus();
}

std::string PreparedName(Tx& tx, const std::string& sql) {
  // libpqxx sends the definition to the server at its first run on each connection, and again
  // after a reconnect; defining it again with the same text is a no-op.
  std::string name =
      absl::StrCat("cub_", absl::Hex(std::hash<std::string>{}(sql), absl::kZeroPad16));
  try {
    Pq(tx).conn().prepare(name, sql);
  } catch (const std::exception&) {
    return std::string();  // another text with the same hash: this one runs unprepared
  }
  return name;
}

void DiscardIfPlanChanged(Tx& tx, const std::exception& e) {
  const auto* sql = dynamic_cast<const pqxx::sql_error*>(&e);
  if (sql != nullptr && sql->sqlstate() == "0A000" && tx.impl().conn != nullptr) {
    tx.impl().conn->discard = true;
  }
}

pqxx::result Query::Exec(Tx& tx) const {
  if (prepared_) {
    return ExecPrepared(tx, sql_, pqxx::prepare::make_dynamic_params(params_));
  }
  return Pq(tx).exec_params(sql_, pqxx::prepare::make_dynamic_params(params_));
}

namespace {

// Whether `ref` is a UUID as PostgreSQL prints one: lower-case hex digits, dashed 8-4-4-4-12.
// (workflow::IsUuid also takes upper case, and lib/store may not depend on lib/workflow.)
bool IsPrintedUuid(std::string_view ref) {
  if (ref.size() != 36) return false;
  for (size_t i = 0; i < ref.size(); ++i) {
    const char c = ref[i];
    const bool dash = i == 8 || i == 13 || i == 18 || i == 23;
    if (dash ? c != '-' : !((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

}  // namespace

std::string SlugOrId(Query& q, std::string_view slug_column, std::string_view id_column,
                     const std::string& ref) {
  const std::string slug = q.Param(ref);
  const std::string id = q.Param(IsPrintedUuid(ref) ? ref : std::string());
  std::string out = "(";
  out.append(slug_column).append(" = ").append(slug).append(" OR ").append(id_column);
  return out.append(" = NULLIF(").append(id).append(", '')::uuid)");
}

std::string TextArrayLiteral(const std::vector<std::string>& values) {
  return PgArrayLiteral(values);
}

std::vector<std::string> ReadTextArray(const pqxx::field& f) {
  std::vector<std::string> out;
  if (f.is_null()) return out;
  // One dimension and no element quoted (UUIDs, numbers, plain words): the elements are what
  // lies between the commas. pqxx::array_parser scans glyph by glyph, some 10 ms for the
  // 10,000 Space IDs of a fleet-wide ChangeOrder's scope.
  const std::string_view text(f.c_str(), f.size());
  // Each character is looked for on its own, by memchr: find_first_of() calls memchr on the
  // set once for each character of the text.
  const auto inner_has = [&text](char c) {
    return text.substr(1, text.size() - 2).find(c) != std::string_view::npos;
  };
  if (text.size() >= 2 && text.front() == '{' && text.back() == '}' && !inner_has('"') &&
      !inner_has('\\') && !inner_has('{') && !inner_has('}')) {
    const std::string_view inner = text.substr(1, text.size() - 2);
    if (inner.empty()) return out;
    out.reserve(std::count(inner.begin(), inner.end(), ',') + 1);
    for (size_t begin = 0;;) {
      const size_t end = std::min(inner.find(',', begin), inner.size());
      const std::string_view item = inner.substr(begin, end - begin);
      if (item != "NULL") out.emplace_back(item);  // an unquoted NULL is no value
      if (end == inner.size()) break;
      begin = end + 1;
    }
    return out;
  }
  pqxx::array_parser parser = f.as_array();
  for (auto item = parser.get_next(); item.first != pqxx::array_parser::done;
       item = parser.get_next()) {
    if (item.first == pqxx::array_parser::string_value) out.push_back(item.second);
  }
  return out;
}

std::map<std::string, std::string> ReadMap(const pqxx::field& f) {
  std::vector<std::string> flat = ReadTextArray(f);
  std::map<std::string, std::string> out;
  for (size_t i = 0; i + 1 < flat.size(); i += 2) out[flat[i]] = flat[i + 1];
  return out;
}

std::string MapAsArray(const std::string& column) {
  return absl::StrCat("ARRAY(SELECT x FROM jsonb_each_text(", column,
                      ") e, LATERAL (VALUES (e.key), (e.value)) v(x))");
}

std::string Rfc3339(const std::string& column) {
  return absl::StrCat("to_char(", column,
                      " AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.US\"Z\"')");
}

absl::StatusOr<std::string> TransactionTimeRfc3339(Tx& tx) {
  return Guard([&]() -> absl::StatusOr<std::string> {
    return Pq(tx)
        .exec1(
            "SELECT to_char(date_trunc('second', now() AT TIME ZONE 'UTC'),"
            " 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"')")[0]
        .as<std::string>();
  });
}

std::string MergeMapExpr(Query& q, const std::string& column,
                         const std::map<std::string, std::string>& changes) {
  std::map<std::string, std::string> set;
  std::vector<std::string> remove;
  for (const auto& [k, v] : changes) {
    if (v.empty()) {
      remove.push_back(k);
    } else {
      set[k] = v;
    }
  }
  return absl::StrCat("((", column, " - ", q.Param(TextArrayLiteral(remove)), "::text[]) || ",
                      q.Param(JsonText(set)), "::jsonb)");
}

absl::StatusOr<pqxx::result> Query::Run(Tx& tx) const {
  return Guard([&]() -> absl::StatusOr<pqxx::result> { return Exec(tx); });
}

}  // namespace cub::store
