#include "lib/store/events.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "lib/store/pq.h"
#include "lib/store/schemas.h"
#include "lib/store/sql.h"
#include "lib/util/status_macros.h"

namespace cub::store {
namespace {

const std::string kEventSelect =
    absl::StrCat("SELECT e.id AS id, ", Rfc3339("e.at"),
                 " AS at, e.kind AS kind, coalesce(e.space_id::text, '') AS space_id,"
                 " e.space_slug AS space, e.change_order AS change_order, e.stage AS stage,"
                 " e.username AS username, e.message AS message, e.details::text AS details"
                 " FROM events e WHERE TRUE");

v1::Event EventFromRow(const pqxx::row& row) {
  v1::Event e;
  e.set_id(row["id"].as<int64_t>());
  e.set_at(row["at"].as<std::string>());
  e.set_kind(row["kind"].as<std::string>());
  e.set_space_id(row["space_id"].as<std::string>());
  e.set_space(row["space"].as<std::string>());
  e.set_change_order(row["change_order"].as<std::string>());
  e.set_stage(row["stage"].as<std::string>());
  e.set_user(row["username"].as<std::string>());
  e.set_message(row["message"].as<std::string>());
  e.set_details(row["details"].as<std::string>());
  return e;
}

}  // namespace

absl::Status AppendEvent(Tx& tx, const NewEvent& e) {
  return Guard([&]() -> absl::Status {
    Pq(tx).exec_params(
        "INSERT INTO events (kind, space_id, space_slug, change_order_id, change_order, stage,"
        " user_id, username, message, details) VALUES ($1, NULLIF($2, '')::uuid, $3,"
        " NULLIF($4, '')::uuid, $5, $6, NULLIF($7, '')::uuid, $8, $9, $10::jsonb)",
        e.kind, e.space_id, e.space_slug, e.change_order_id, e.change_order, e.stage, e.user_id,
        e.username, e.message, e.details_json);
    Pq(tx).exec(absl::StrCat("NOTIFY ", kEventChannel));
    return absl::OkStatus();
  });
}

absl::Status AppendEvents(Tx& tx, const std::vector<NewEvent>& events) {
  if (events.empty()) return absl::OkStatus();
  return Guard([&]() -> absl::Status {
    std::vector<std::string> cols[10];
    for (const auto& e : events) {
      const std::string* v[10] = {
          &e.kind,  &e.space_id, &e.space_slug, &e.change_order_id, &e.change_order,
          &e.stage, &e.user_id,  &e.username,   &e.message,         &e.details_json};
      for (int i = 0; i < 10; ++i) cols[i].push_back(*v[i]);
    }
    Pq(tx).exec_params(
        "INSERT INTO events (kind, space_id, space_slug, change_order_id, change_order, stage,"
        " user_id, username, message, details) SELECT a, NULLIF(b, '')::uuid, c,"
        " NULLIF(d, '')::uuid, e, f, NULLIF(g, '')::uuid, h, i, j::jsonb"
        " FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[],"
        " $7::text[], $8::text[], $9::text[], $10::text[]) WITH ORDINALITY"
        " AS x(a, b, c, d, e, f, g, h, i, j, ord) ORDER BY ord",
        TextArrayLiteral(cols[0]), TextArrayLiteral(cols[1]), TextArrayLiteral(cols[2]),
        TextArrayLiteral(cols[3]), TextArrayLiteral(cols[4]), TextArrayLiteral(cols[5]),
        TextArrayLiteral(cols[6]), TextArrayLiteral(cols[7]), TextArrayLiteral(cols[8]),
        TextArrayLiteral(cols[9]));
    Pq(tx).exec(absl::StrCat("NOTIFY ", kEventChannel));
    return absl::OkStatus();
  });
}

absl::StatusOr<std::vector<v1::Event>> ListEvents(Tx& tx, const Caller& caller,
                                                  const EventFilter& f) {
  Query q(kEventSelect);
  if (!f.space_id.empty())
    q.Append(absl::StrCat(" AND e.space_id = ", q.Param(f.space_id), "::uuid"));
  if (!f.change_order_id.empty()) {
    q.Append(absl::StrCat(" AND e.change_order_id = ", q.Param(f.change_order_id), "::uuid"));
  }
  if (f.after_id > 0) {
    q.Append(absl::StrCat(" AND e.id > ", q.Param(std::to_string(f.after_id)), "::bigint"));
  }
  CUB_RETURN_IF_ERROR(q.AndWhere(f.where, EventSchema()));
  AndVisible(q, caller, "e.space_id");
  // 1001: a page of 1000 and the one row that tells whether another page follows.
  int limit = std::clamp(f.limit <= 0 ? 100 : f.limit, 1, 1001);
  q.Append(absl::StrCat(" ORDER BY e.id LIMIT ", limit));
  CUB_ASSIGN_OR_RETURN(pqxx::result r, q.Run(tx));
  std::vector<v1::Event> out;
  for (const auto& row : r) out.push_back(EventFromRow(row));
  return out;
}

absl::StatusOr<bool> NewerPromotedInto(Tx& tx, const std::string& base_space_id,
                                       const std::string& change_order_id,
                                       const std::string& stage) {
  return Guard([&]() -> absl::StatusOr<bool> {
    pqxx::row r = Pq(tx).exec_params1(
        "SELECT EXISTS (SELECT 1 FROM events e JOIN change_orders newer"
        " ON newer.id = e.change_order_id JOIN change_orders mine ON mine.id = $2::uuid"
        " WHERE e.kind = 'Promoted' AND e.stage = $3 AND newer.space_id = $1::uuid"
        " AND newer.id <> mine.id AND (newer.created_at, newer.id) > (mine.created_at, mine.id))"
        " AS newer",
        base_space_id, change_order_id, stage);
    return r["newer"].as<bool>();
  });
}

absl::StatusOr<bool> HasEvent(Tx& tx, const std::string& kind, const std::string& change_order_id,
                              const std::string& stage) {
  return Guard([&]() -> absl::StatusOr<bool> {
    pqxx::row r = Pq(tx).exec_params1(
        "SELECT EXISTS (SELECT 1 FROM events WHERE kind = $1 AND change_order_id = $2::uuid"
        " AND stage = $3) AS found",
        kind, change_order_id, stage);
    return r["found"].as<bool>();
  });
}

}  // namespace cub::store
