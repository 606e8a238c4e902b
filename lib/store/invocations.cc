#include "lib/store/invocations.h"

#include "absl/strings/str_cat.h"
#include "lib/store/pq.h"
#include "lib/store/sql.h"
#include "lib/util/json.h"

namespace cub::store {
namespace {

// Parameters come back flattened as name, type, required triples.
const std::string kInvocationSelect = absl::StrCat(
    "SELECT i.id AS invocation_id, i.space_id, i.slug, i.toolchain_type, i.function_name,"
    " ARRAY(SELECT jsonb_array_elements_text(i.arguments)) AS arguments,"
    " ARRAY(SELECT x FROM jsonb_array_elements(i.parameters) p, LATERAL (VALUES (p->>'Name'),"
    " (p->>'Type'), (p->>'Required')) v(x)) AS parameters, ",
    Rfc3339("i.created_at"), " AS created_at FROM invocations i WHERE TRUE");

v1::Invocation InvocationFromRow(const pqxx::row& r) {
  v1::Invocation inv;
  inv.set_invocation_id(r["invocation_id"].as<std::string>());
  inv.set_space_id(r["space_id"].as<std::string>());
  inv.set_slug(r["slug"].as<std::string>());
  inv.set_toolchain_type(r["toolchain_type"].as<std::string>());
  inv.set_function_name(r["function_name"].as<std::string>());
  for (auto& a : ReadTextArray(r["arguments"])) inv.add_arguments(a);
  std::vector<std::string> flat = ReadTextArray(r["parameters"]);
  for (size_t i = 0; i + 2 < flat.size(); i += 3) {
    v1::InvocationParameter* p = inv.add_parameters();
    p->set_name(flat[i]);
    p->set_type(flat[i + 1]);
    p->set_required(flat[i + 2] == "true");
  }
  inv.set_created_at(r["created_at"].as<std::string>());
  return inv;
}

std::optional<v1::Invocation> InvocationIn(Tx& tx, const std::string& space_id,
                                           const std::string& ref) {
  Query q(kInvocationSelect);
  std::string p = q.Param(ref);
  q.Append(absl::StrCat(" AND i.space_id = ", q.Param(space_id), "::uuid AND (i.slug = ", p,
                        " OR i.id::text = ", p, ")"));
  pqxx::result r = q.Exec(tx);
  if (r.empty()) return std::nullopt;
  return InvocationFromRow(r[0]);
}

}  // namespace

absl::StatusOr<v1::Invocation> InsertInvocation(Tx& tx, const v1::Invocation& inv,
                                                const std::string& created_by) {
  return Guard([&]() -> absl::StatusOr<v1::Invocation> {
    Json params = Json::array();
    for (const auto& p : inv.parameters()) {
      params.push_back({{"Name", p.name()}, {"Type", p.type()}, {"Required", p.required()}});
    }
    pqxx::row r = Pq(tx).exec_params1(
        "INSERT INTO invocations (space_id, slug, toolchain_type, function_name, arguments,"
        " parameters, created_by) VALUES ($1::uuid, $2, $3, $4, $5::jsonb, $6::jsonb,"
        " NULLIF($7, '')::uuid) RETURNING id::text AS id",
        inv.space_id(), inv.slug(), inv.toolchain_type(), inv.function_name(),
        JsonText(std::vector<std::string>(inv.arguments().begin(), inv.arguments().end())),
        JsonText(params), created_by);
    auto out = InvocationIn(tx, inv.space_id(), r["id"].as<std::string>());
    if (!out) return absl::InternalError("invocation vanished after insert");
    return *std::move(out);
  });
}

absl::StatusOr<std::optional<v1::Invocation>> FindInvocation(Tx& tx, const std::string& space_id,
                                                             const std::string& ref) {
  return Guard([&]() -> absl::StatusOr<std::optional<v1::Invocation>> {
    return InvocationIn(tx, space_id, ref);
  });
}

absl::StatusOr<std::vector<v1::Invocation>> ListInvocations(Tx& tx, const std::string& space_id) {
  return Guard([&]() -> absl::StatusOr<std::vector<v1::Invocation>> {
    Query q(kInvocationSelect);
    q.Append(absl::StrCat(" AND i.space_id = ", q.Param(space_id), "::uuid ORDER BY i.slug"));
    std::vector<v1::Invocation> out;
    for (const auto& row : q.Exec(tx)) out.push_back(InvocationFromRow(row));
    return out;
  });
}

}  // namespace cub::store
