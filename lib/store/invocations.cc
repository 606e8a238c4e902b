#include "lib/store/invocations.h"

#include "absl/strings/str_cat.h"
#include "lib/store/pq.h"
#include "lib/store/sql.h"
#include "lib/util/json.h"

namespace cub::store {
namespace {

// Parameters come back flattened as name, type, required triples.
const std::string kInvocationSelect = absl::StrCat(
    "SELECT i.id, i.space_id, i.slug, i.toolchain_type, i.function_name,"
    " ARRAY(SELECT jsonb_array_elements_text(i.arguments)),"
    " ARRAY(SELECT x FROM jsonb_array_elements(i.parameters) p, LATERAL (VALUES (p->>'Name'),"
    " (p->>'Type'), (p->>'Required')) v(x)), ",
    Rfc3339("i.created_at"), " FROM invocations i WHERE TRUE");

v1::Invocation ReadInvocation(const pqxx::row& r) {
  v1::Invocation inv;
  inv.set_invocation_id(r[0].as<std::string>());
  inv.set_space_id(r[1].as<std::string>());
  inv.set_slug(r[2].as<std::string>());
  inv.set_toolchain_type(r[3].as<std::string>());
  inv.set_function_name(r[4].as<std::string>());
  for (auto& a : ReadTextArray(r[5])) inv.add_arguments(a);
  std::vector<std::string> flat = ReadTextArray(r[6]);
  for (size_t i = 0; i + 2 < flat.size(); i += 3) {
    v1::InvocationParameter* p = inv.add_parameters();
    p->set_name(flat[i]);
    p->set_type(flat[i + 1]);
    p->set_required(flat[i + 2] == "true");
  }
  inv.set_created_at(r[7].as<std::string>());
  return inv;
}

}  // namespace

absl::StatusOr<v1::Invocation> InsertInvocation(Tx& tx, const v1::Invocation& inv,
                                                const std::string& created_by) {
  Json params = Json::array();
  for (const auto& p : inv.parameters()) {
    params.push_back({{"Name", p.name()}, {"Type", p.type()}, {"Required", p.required()}});
  }
  pqxx::row r = Pq(tx).exec_params1(
      "INSERT INTO invocations (space_id, slug, toolchain_type, function_name, arguments,"
      " parameters, created_by) VALUES ($1::uuid, $2, $3, $4, $5::jsonb, $6::jsonb,"
      " NULLIF($7, '')::uuid) RETURNING id",
      inv.space_id(), inv.slug(), inv.toolchain_type(), inv.function_name(),
      JsonText(std::vector<std::string>(inv.arguments().begin(), inv.arguments().end())),
      JsonText(params), created_by);
  auto out = FindInvocation(tx, inv.space_id(), r[0].as<std::string>());
  if (!out) return absl::InternalError("invocation vanished after insert");
  return *out;
}

std::optional<v1::Invocation> FindInvocation(Tx& tx, const std::string& space_id,
                                             const std::string& ref) {
  Query q(kInvocationSelect);
  std::string p = q.Param(ref);
  q.Append(absl::StrCat(" AND i.space_id = ", q.Param(space_id), "::uuid AND (i.slug = ", p,
                        " OR i.id::text = ", p, ")"));
  pqxx::result r = q.Exec(tx);
  if (r.empty()) return std::nullopt;
  return ReadInvocation(r[0]);
}

std::vector<v1::Invocation> ListInvocations(Tx& tx, const std::string& space_id) {
  Query q(kInvocationSelect);
  q.Append(absl::StrCat(" AND i.space_id = ", q.Param(space_id), "::uuid ORDER BY i.slug"));
  std::vector<v1::Invocation> out;
  for (const auto& row : q.Exec(tx)) out.push_back(ReadInvocation(row));
  return out;
}

}  // namespace cub::store
