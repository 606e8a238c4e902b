#include "lib/store/engine_work.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "lib/store/pq.h"
#include "lib/store/sql.h"
#include "lib/util/status_macros.h"

namespace cub::store {
namespace {

constexpr char kOpen[] = "co.stage <> 'Completed' AND co.aborted_reason = ''";

absl::Status UpsertAndNotify(Tx& tx, Query q) {
  return Guard([&]() -> absl::Status {
    pqxx::result r = q.Exec(tx);
    if (r.affected_rows() > 0) Pq(tx).exec(absl::StrCat("NOTIFY ", kEngineChannel));
    return absl::OkStatus();
  });
}

// The statement upserting a due row for each id the SELECT `from` (aliased id) yields.
std::string UpsertFrom(const std::string& from) {
  // In ID order, so two writers waking overlapping sets take the row locks in one order.
  return absl::StrCat(
      "INSERT INTO engine_work (change_order_id) SELECT DISTINCT id FROM (", from,
      ") AS woken ORDER BY id ON CONFLICT (change_order_id) DO UPDATE SET due_at = now(),"
      " generation = engine_work.generation + 1, attempts = 0, last_error = '',"
      " updated_at = now()");
}

EngineWork WorkFromRow(const pqxx::row& row) {
  EngineWork w;
  w.change_order_id = row["change_order_id"].as<std::string>();
  w.generation = row["generation"].as<int64_t>();
  w.attempts = row["attempts"].as<int>();
  return w;
}

}  // namespace

absl::Status Wake(Tx& tx, const std::vector<std::string>& change_order_ids) {
  if (change_order_ids.empty()) return absl::OkStatus();
  Query q;
  std::string ids = q.Param(TextArrayLiteral(change_order_ids));
  // A Completed ChangeOrder too: AutoRelease may still have Spaces to publish.
  q.Append(UpsertFrom(absl::StrCat("SELECT co.id FROM change_orders co WHERE co.id = ANY(", ids,
                                   "::uuid[]) AND co.aborted_reason = ''")));
  return UpsertAndNotify(tx, std::move(q));
}

absl::Status WakeOpenChangeOrdersOf(Tx& tx, const std::string& base_space_id) {
  Query q;
  std::string space = q.Param(base_space_id);
  q.Append(UpsertFrom(absl::StrCat("SELECT co.id FROM change_orders co WHERE co.space_id = ", space,
                                   "::uuid AND ", kOpen)));
  return UpsertAndNotify(tx, std::move(q));
}

absl::Status WakeChangeOrdersOfWorkflow(Tx& tx, const std::string& workflow_ref) {
  Query q;
  std::string ref = q.Param(workflow_ref);
  q.Append(UpsertFrom(absl::StrCat(
      "SELECT co.id FROM change_orders co WHERE co.change_workflow = ", ref, " AND ", kOpen)));
  return UpsertAndNotify(tx, std::move(q));
}

absl::Status WakeChangeOrdersInSpace(Tx& tx, const std::string& space_id) {
  Query q;
  std::string space = q.Param(space_id);
  q.Append(UpsertFrom(absl::StrCat(
      "SELECT co.id FROM change_orders co JOIN tag_marks m ON m.tag_id = co.publish_tag_id"
      " JOIN units u ON u.id = m.unit_id WHERE u.space_id = ",
      space, "::uuid AND ", kOpen)));
  return UpsertAndNotify(tx, std::move(q));
}

absl::Status WakeChangeOrdersInSpaces(Tx& tx, const std::vector<std::string>& space_ids) {
  if (space_ids.empty()) return absl::OkStatus();
  Query q;
  std::string spaces = q.Param(TextArrayLiteral(space_ids));
  q.Append(UpsertFrom(absl::StrCat(
      "SELECT co.id FROM change_orders co JOIN tag_marks m ON m.tag_id = co.publish_tag_id"
      " JOIN units u ON u.id = m.unit_id WHERE u.space_id = ANY(",
      spaces, "::uuid[]) AND ", kOpen)));
  return UpsertAndNotify(tx, std::move(q));
}

absl::Status LockStage(Tx& tx, const std::string& base_space_id, const std::string& stage) {
  return Guard([&]() -> absl::Status {
    // Another key space than the engine's work locks (engine_connection.cc).
    Pq(tx).exec_params("SELECT pg_advisory_xact_lock(1668510568, hashtext($1 || '/' || $2))",
                       base_space_id, stage);
    return absl::OkStatus();
  });
}

absl::Status NotifyEngine(Tx& tx) {
  return Guard([&]() -> absl::Status {
    Pq(tx).exec(absl::StrCat("NOTIFY ", kEngineChannel));
    return absl::OkStatus();
  });
}

absl::StatusOr<std::vector<EngineWork>> DueWork(Tx& tx, int limit) {
  return Guard([&]() -> absl::StatusOr<std::vector<EngineWork>> {
    pqxx::result r = Pq(tx).exec_params(
        "SELECT change_order_id::text AS change_order_id, generation, attempts FROM engine_work"
        " WHERE due_at <= now() ORDER BY due_at LIMIT $1",
        limit);
    std::vector<EngineWork> out;
    for (const auto& row : r) out.push_back(WorkFromRow(row));
    return out;
  });
}

absl::StatusOr<std::optional<EngineWork>> ReadWork(Tx& tx, const std::string& change_order_id) {
  return Guard([&]() -> absl::StatusOr<std::optional<EngineWork>> {
    pqxx::result r = Pq(tx).exec_params(
        "SELECT change_order_id::text AS change_order_id, generation, attempts FROM engine_work"
        " WHERE change_order_id = $1::uuid",
        change_order_id);
    if (r.empty()) return std::nullopt;
    return WorkFromRow(r[0]);
  });
}

absl::Status FinishWork(Tx& tx, const EngineWork& w) {
  return Guard([&]() -> absl::Status {
    Pq(tx).exec_params(
        "DELETE FROM engine_work WHERE change_order_id = $1::uuid AND generation = $2",
        w.change_order_id, w.generation);
    return absl::OkStatus();
  });
}

absl::Status RetryWork(Tx& tx, const EngineWork& w, absl::Duration delay, const std::string& error,
                       bool count_attempt) {
  return Guard([&]() -> absl::Status {
    Pq(tx).exec_params(
        "UPDATE engine_work SET due_at = now() + make_interval(secs => $3),"
        " attempts = attempts + $5, last_error = $4, updated_at = now()"
        " WHERE change_order_id = $1::uuid AND generation = $2",
        w.change_order_id, w.generation, absl::ToDoubleSeconds(delay), error,
        count_attempt ? 1 : 0);
    return absl::OkStatus();
  });
}

absl::StatusOr<std::optional<double>> SecondsUntilDue(Tx& tx) {
  return Guard([&]() -> absl::StatusOr<std::optional<double>> {
    // Not greatest(0, ...) in SQL: GREATEST ignores NULLs, so an empty table read as "due
    // now", and idle workers polled it every 5 ms.
    pqxx::row r = Pq(tx).exec1(
        "SELECT extract(epoch FROM min(due_at) - now())::float8 AS s FROM engine_work");
    if (r["s"].is_null()) return std::nullopt;
    return std::max(0.0, r["s"].as<double>());
  });
}

absl::StatusOr<v1::EngineState> EngineStateOf(Tx& tx, const std::string& change_order_id) {
  return Guard([&]() -> absl::StatusOr<v1::EngineState> {
    Query q(absl::StrCat("SELECT due_at <= now() AS pending, ", Rfc3339("due_at"),
                         " AS due_at, attempts, last_error FROM engine_work"
                         " WHERE change_order_id = $1::uuid"));
    q.Param(change_order_id);  // $1
    pqxx::result r = q.Prepared().Exec(tx);
    v1::EngineState out;
    if (r.empty()) return out;
    out.set_pending(r[0]["pending"].as<bool>());
    if (!out.pending()) out.set_due_at(r[0]["due_at"].as<std::string>());
    out.set_attempts(r[0]["attempts"].as<int>());
    out.set_last_error(r[0]["last_error"].as<std::string>());
    return out;
  });
}

absl::StatusOr<int64_t> WorkBacklog(Tx& tx) {
  return Guard([&]() -> absl::StatusOr<int64_t> {
    return Pq(tx).exec1("SELECT count(*) AS n FROM engine_work")["n"].as<int64_t>();
  });
}

}  // namespace cub::store
