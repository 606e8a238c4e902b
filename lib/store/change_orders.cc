#include "lib/store/change_orders.h"

#include <algorithm>
#include <map>
#include <string_view>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "lib/domain/vocabulary.h"
#include "lib/store/pq.h"
#include "lib/store/release_sql.h"
#include "lib/store/releases.h"
#include "lib/store/schemas.h"
#include "lib/store/sql.h"
#include "lib/util/status_macros.h"

namespace cub::store {
namespace {

// The columns both reads of a ChangeOrder answer (all but the Space ID lists), over
// kChangeOrderJoins.
const std::string kChangeOrderColumns = absl::StrCat(
    "co.id, co.space_id, s.slug AS space_slug, co.slug, co.description,"
    " co.change_workflow, coalesce(co.workflow::text, '') AS workflow_json, co.update_type,"
    " co.prior_revisions, co.where_space, co.in_scope_spaces,"
    " co.skipped_units::text AS skipped_units_json, co.start_tag_id, co.end_tag_id,"
    " co.publish_tag_id, st.slug AS start_tag, et.slug AS end_tag, pt.slug AS publish_tag,"
    " co.stage, co.aborted_reason, co.promotion_failures::text AS promotion_failures_json,"
    " co.promotion_overrides::text AS promotion_overrides_json,"
    " coalesce(co.created_by::text, '') AS created_by, ",
    Rfc3339("co.created_at"), " AS created_at, ", Rfc3339("co.updated_at"),
    " AS updated_at, co.version,"
    " (SELECT count(*) FROM tag_marks ms JOIN units u ON u.id = ms.unit_id"
    " JOIN tag_marks me ON me.tag_id = co.end_tag_id AND me.unit_id = ms.unit_id"
    " WHERE ms.tag_id = co.start_tag_id AND u.space_id = co.space_id"
    " AND ms.revision_num <> me.revision_num) AS changed_unit_count,"
    " co.invocation, co.function_name, co.function_args, co.where_unit, ",
    "coalesce(", Rfc3339("co.blocked_at"),
    ", '') AS blocked_at,"
    " coalesce((SELECT bu.username FROM users bu WHERE bu.id = co.blocked_by), '') AS blocked_by");

// The stored scope as text, element by element in stored order. `co.in_scope_space_ids::text[]`
// printed the whole array at once: about 11 ms for 10,000 Spaces, against 5 ms this way.
const std::string kInScopeIdsColumn =
    "ARRAY(SELECT e.id::text FROM unnest(co.in_scope_space_ids) WITH ORDINALITY AS e(id, n)"
    " ORDER BY e.n) AS in_scope_space_ids";

const std::string kChangeOrderJoins =
    " JOIN spaces s ON s.id = co.space_id JOIN tags st ON st.id = co.start_tag_id"
    " JOIN tags et ON et.id = co.end_tag_id JOIN tags pt ON pt.id = co.publish_tag_id";

// The resolved Spaces are read in the same statement: a subquery over the publish Tag's
// marks, restricted to the scope, so a list of many ChangeOrders is still one round trip. The
// marks are read first (a MATERIALIZED CTE: one per Unit promoted, a handful before a Stage
// is) and tested against the scope by a hashed semi-join: left to itself the planner, which
// guesses 10 to 100 elements for the scope array, drove it from the scope's Units instead
// (100,000 probes of the marks at 10,000 Spaces, 100 to 200 ms, whatever the marks).
const std::string kChangeOrderSelect =
    absl::StrCat("SELECT ", kChangeOrderColumns, ", ", kInScopeIdsColumn,
                 ","
                 " ARRAY(WITH marked AS MATERIALIZED (SELECT DISTINCT u.space_id FROM tag_marks m"
                 " JOIN units u ON u.id = m.unit_id WHERE m.tag_id = co.publish_tag_id)"
                 " SELECT k.space_id::text FROM marked k"
                 " WHERE k.space_id IN (SELECT unnest(co.in_scope_space_ids)) ORDER BY 1)"
                 " AS resolved_space_ids FROM change_orders co",
                 kChangeOrderJoins, " WHERE TRUE");

// One ChangeOrder (FindChangeOrder): the same columns but the resolved Spaces, which
// ReadResolvedSpaces reads in a statement of its own.
const std::string kChangeOrderOneSelect =
    absl::StrCat("SELECT ", kChangeOrderColumns, ", ", kInScopeIdsColumn, " FROM change_orders co",
                 kChangeOrderJoins, " WHERE TRUE");

// A Basic list (ListChangeOrderBasics) in two parts: the page's keys first (filters, keyset and
// limit are appended to this), so that the counts below are computed for the page's rows
// only, not for every ChangeOrder before the sort and the limit. The Tag joins of the full
// read are left out here: the Tag columns are NOT NULL references, so they drop no row.
const std::string kChangeOrderBasicPage =
    "WITH page AS (SELECT co.id FROM change_orders co JOIN spaces s ON s.id = co.space_id"
    " WHERE TRUE";
// Then the rows with the counts State is derived from (ChangeOrderStateCounts), taken over
// the stored scope inside the database: the lists they count never leave it. They count the
// sets kChangeOrderSelect and kReleaseStateSelect read: the publish Tag's marks as a
// MATERIALIZED CTE semi-joined to the scope (as above), keeping the scope's entries (repeats
// included, as ResolvedInScope does); the restore Tag found by name as there; a Release
// judged by internal::ReleaseCarriesChange. The released Spaces are looked for among the
// resolved ones only, which is the same set: ReleaseCarriesChange's first clause requires the
// publish Tag to mark a Unit of the Space, and before promotion that spares probing the
// releases of every Space in scope. Likewise a re-release requires the restore Tag's mark.
const std::string kChangeOrderBasicSelect = absl::StrCat(
    ") SELECT ", kChangeOrderColumns,
    ", cardinality(co.in_scope_space_ids) AS in_scope_count,"
    " (SELECT count(*) FROM spaces sp WHERE sp.id = ANY(co.in_scope_space_ids)"
    " AND sp.release_target_id IS NOT NULL) AS target_count, n.*"
    " FROM page JOIN change_orders co ON co.id = page.id",
    kChangeOrderJoins,
    " LEFT JOIN tags rt ON rt.space_id = co.space_id AND rt.slug = co.slug || '-co-restore'"
    " CROSS JOIN LATERAL (WITH marked AS MATERIALIZED (SELECT DISTINCT u.space_id"
    "  FROM tag_marks m JOIN units u ON u.id = m.unit_id WHERE m.tag_id = co.publish_tag_id),"
    " entries AS MATERIALIZED (SELECT sc.id, sc.id <> co.space_id AS beyond"
    "  FROM unnest(co.in_scope_space_ids) AS sc(id)"
    "  WHERE sc.id IN (SELECT k.space_id FROM marked k)),"
    " restored AS MATERIALIZED (SELECT DISTINCT u.space_id FROM tag_marks m"
    "  JOIN units u ON u.id = m.unit_id WHERE m.tag_id = rt.id),"
    " released AS MATERIALIZED (SELECT DISTINCT c.space_id FROM releases c"
    "  JOIN spaces sp ON sp.id = c.space_id WHERE c.space_id IN (SELECT e.id FROM entries e)"
    "  AND sp.release_target_id IS NOT NULL AND ",
    internal::ReleaseCarriesChange("co.start_tag_id", "co.publish_tag_id"),
    ")"
    " SELECT (SELECT count(*) FROM entries) AS resolved_count,"
    " (SELECT count(*) FROM entries e WHERE e.beyond) AS resolved_beyond_base,"
    " (SELECT count(*) FROM entries e WHERE e.beyond"
    "  AND e.id NOT IN (SELECT k.space_id FROM restored k)) AS unrestored_beyond_base,"
    " (SELECT count(*) FROM released) AS released_count,"
    " (SELECT count(*) FROM released r WHERE r.space_id <> co.space_id) AS released_beyond_base,"
    " (SELECT count(*) FROM released r WHERE r.space_id <> co.space_id AND NOT EXISTS ("
    "  SELECT 1 FROM releases c WHERE c.space_id = r.space_id AND ",
    internal::ReleaseCarriesChange("co.start_tag_id", "rt.id"),
    ")) AS unrereleased_beyond_base) n ORDER BY s.slug, co.slug");

// The columns of kChangeOrderColumns into `c`.
void ReadChangeOrderColumns(const pqxx::row& r, StoredChangeOrder& c) {
  c.id = r["id"].as<std::string>();
  c.space_id = r["space_id"].as<std::string>();
  c.space_slug = r["space_slug"].as<std::string>();
  c.slug = r["slug"].as<std::string>();
  c.description = r["description"].as<std::string>();
  c.change_workflow = r["change_workflow"].as<std::string>();
  c.workflow_json = r["workflow_json"].as<std::string>();
  c.update_type = r["update_type"].as<std::string>();
  c.prior_revisions = r["prior_revisions"].as<std::string>();
  c.where_space = r["where_space"].as<std::string>();
  c.in_scope_spaces = ReadTextArray(r["in_scope_spaces"]);
  c.skipped_units_json = r["skipped_units_json"].as<std::string>();
  c.start_tag_id = r["start_tag_id"].as<std::string>();
  c.end_tag_id = r["end_tag_id"].as<std::string>();
  c.publish_tag_id = r["publish_tag_id"].as<std::string>();
  c.start_tag = r["start_tag"].as<std::string>();
  c.end_tag = r["end_tag"].as<std::string>();
  c.publish_tag = r["publish_tag"].as<std::string>();
  c.stage = r["stage"].as<std::string>();
  c.aborted_reason = r["aborted_reason"].as<std::string>();
  c.promotion_failures_json = r["promotion_failures_json"].as<std::string>();
  c.promotion_overrides_json = r["promotion_overrides_json"].as<std::string>();
  c.created_by = r["created_by"].as<std::string>();
  c.created_at = r["created_at"].as<std::string>();
  c.updated_at = r["updated_at"].as<std::string>();
  c.version = r["version"].as<int64_t>();
  c.changed_unit_count = r["changed_unit_count"].as<int64_t>();
  c.invocation = r["invocation"].as<std::string>();
  c.function_name = r["function_name"].as<std::string>();
  c.function_args = ReadTextArray(r["function_args"]);
  c.where_unit = r["where_unit"].as<std::string>();
  c.blocked_at = r["blocked_at"].as<std::string>();
  c.blocked_by = r["blocked_by"].as<std::string>();
}

// A row of kChangeOrderOneSelect, or of kChangeOrderSelect less its resolved Spaces.
StoredChangeOrder ChangeOrderFromRow(const pqxx::row& r) {
  StoredChangeOrder c;
  ReadChangeOrderColumns(r, c);
  c.in_scope_space_ids = ReadTextArray(r["in_scope_space_ids"]);
  return c;
}

// The resolved Spaces of `c` (read by kChangeOrderOneSelect): those of its scope holding a Unit
// its publish Tag marks, sorted. The Tag is a parameter of a statement of its own, so the plan
// is made for that Tag: a Tag that marks a handful of Units (a ChangeOrder in its first Stage)
// is read by probing them, one that marks the fleet by hashing. The correlated subquery of
// kChangeOrderSelect, planned for an average Tag, hashed every Unit of the fleet even for the
// first (28 of the 75 ms of SQL in a `changeorder get` at 10,000 Spaces, 0.3 ms this way). The
// scope is intersected here, from the list already read, rather than sent back. DISTINCT works
// on the uuid, which PostgreSQL prints as the text the scope holds: on text it sorted or hashed
// 37-byte strings (a Tag that marks 100,000 Units: 185 ms against 131). Runs inside a Guard: a
// database error throws.
void ReadResolvedSpaces(Tx& tx, StoredChangeOrder& c) {
  absl::flat_hash_set<std::string_view> scope(c.in_scope_space_ids.begin(),
                                              c.in_scope_space_ids.end());
  std::vector<std::string> resolved;
  for (const auto& row :
       Pq(tx).exec_params("SELECT DISTINCT u.space_id FROM tag_marks m"
                          " JOIN units u ON u.id = m.unit_id WHERE m.tag_id = $1::uuid",
                          c.publish_tag_id)) {
    std::string id = row[0].as<std::string>();
    if (scope.contains(id)) resolved.push_back(std::move(id));
  }
  std::sort(resolved.begin(), resolved.end());
  c.resolved_space_ids = std::move(resolved);
}

StoredChangeOrderBasic ChangeOrderBasicFromRow(const pqxx::row& r) {
  StoredChangeOrderBasic b;
  ReadChangeOrderColumns(r, b.co);
  ChangeOrderStateCounts& n = b.counts;
  n.in_scope = r["in_scope_count"].as<int64_t>();
  n.resolved = r["resolved_count"].as<int64_t>();
  n.resolved_beyond_base = r["resolved_beyond_base"].as<int64_t>();
  n.unrestored_beyond_base = r["unrestored_beyond_base"].as<int64_t>();
  n.targets = r["target_count"].as<int64_t>();
  n.released = r["released_count"].as<int64_t>();
  n.released_beyond_base = r["released_beyond_base"].as<int64_t>();
  n.unrereleased_beyond_base = r["unrereleased_beyond_base"].as<int64_t>();
  return b;
}

// An Invoke ChangeOrder's Unit selection is asked again at every read: a Space holding a
// selected Unit the Invocation has not run on (one added since) has not taken the change.
// Runs inside a Guard: a database error throws.
void RecheckInvokeSelection(Tx& tx, StoredChangeOrder& c) {
  if (domain::ParseUpdateType(c.update_type) != domain::UpdateType::kInvoke ||
      c.resolved_space_ids.empty()) {
    return;
  }
  Query q(
      "SELECT DISTINCT u.space_id::text AS space_id FROM units u"
      " JOIN spaces s ON s.id = u.space_id LEFT JOIN components c ON c.id = s.component_id"
      " LEFT JOIN LATERAL (SELECT me.unit_id FROM tag_marks me WHERE me.tag_id = ");
  // LATERAL ... OFFSET 0: one probe of the primary key per Unit, whatever the statistics
  // say of a Tag (see kPromotionUnits in lib/store/promotion.cc).
  q.Append(absl::StrCat(q.Param(c.end_tag_id),
                        "::uuid AND me.unit_id = u.id OFFSET 0) me ON true WHERE u.space_id = ANY(",
                        q.Param(TextArrayLiteral(c.resolved_space_ids)),
                        "::uuid[]) AND me.unit_id IS NULL AND u.head_revision_num > 0"
                        " AND u.toolchain_type <> 'ConfigHub/YAML'"));
  if (!q.AndWhere(c.where_unit, UnitSchema()).ok()) return;  // checked at creation
  std::set<std::string> behind;
  for (const auto& row : q.Exec(tx)) behind.insert(row["space_id"].as<std::string>());
  std::vector<std::string> kept;
  for (const auto& id : c.resolved_space_ids) {
    if (!behind.count(id)) kept.push_back(id);
  }
  c.resolved_space_ids = std::move(kept);
}

// Where Releases stand, for many ChangeOrders in one statement: per ChangeOrder the in-scope
// Spaces with a release Target, those of them holding a Release that carries the change, and,
// when a restore Tag exists (the ChangeOrder was aborted and demoted), the in-scope Spaces it
// marks and those of them that released the restored revisions. Each list is derived in SQL
// from the stored scope, so no list of Space IDs travels as a parameter: at a thousand Spaces
// a ChangeOrder, parsing such lists cost more than the queries (a page of ListChangeOrders
// made three statements per ChangeOrder). The restore lists test `x.restore_tag_id IS NOT NULL`
// first, a one-time filter: without it the planner walked every in-scope Unit probing a Tag
// that does not exist (two 90 ms subplans at 10,000 Spaces, for every ChangeOrder not aborted).
const std::string kReleaseStateSelect = absl::StrCat(
    "WITH x AS (SELECT co.id, co.in_scope_space_ids, co.start_tag_id, co.publish_tag_id,"
    " rt.id AS restore_tag_id FROM change_orders co"
    " LEFT JOIN tags rt ON rt.space_id = co.space_id AND rt.slug = co.slug || '-co-restore'"
    " WHERE co.id = ANY($1::uuid[]))"
    " SELECT x.id::text AS id, coalesce(x.restore_tag_id::text, '') AS restore_tag_id,"
    " ARRAY(SELECT sp.id::text FROM spaces sp WHERE sp.id = ANY(x.in_scope_space_ids)"
    " AND sp.release_target_id IS NOT NULL) AS target_space_ids,"
    " ARRAY(SELECT DISTINCT c.space_id::text FROM releases c JOIN spaces sp ON sp.id = c.space_id"
    " WHERE c.space_id = ANY(x.in_scope_space_ids) AND sp.release_target_id IS NOT NULL AND ",
    internal::ReleaseCarriesChange("x.start_tag_id", "x.publish_tag_id"),
    ") AS released_space_ids,"
    " ARRAY(SELECT DISTINCT u.space_id::text FROM tag_marks m JOIN units u ON u.id = m.unit_id"
    " WHERE x.restore_tag_id IS NOT NULL AND m.tag_id = x.restore_tag_id"
    " AND u.space_id = ANY(x.in_scope_space_ids)) AS restored_space_ids,"
    " ARRAY(SELECT DISTINCT c.space_id::text FROM releases c WHERE c.space_id IN ("
    "  SELECT u.space_id FROM tag_marks m JOIN units u ON u.id = m.unit_id"
    "  WHERE x.restore_tag_id IS NOT NULL AND m.tag_id = x.restore_tag_id"
    "  AND u.space_id = ANY(x.in_scope_space_ids)) AND ",
    internal::ReleaseCarriesChange("x.start_tag_id", "x.restore_tag_id"),
    ") AS restore_released_space_ids FROM x");

// A text[] column as a sorted list, the order the per-ChangeOrder sets gave before.
std::vector<std::string> SortedIds(const pqxx::field& f) {
  std::vector<std::string> ids = ReadTextArray(f);
  std::sort(ids.begin(), ids.end());
  return ids;
}

// Fills the release state of every ChangeOrder of `cos` (read by ChangeOrderFromRow) with
// kReleaseStateSelect, and rechecks Invoke selections. Runs inside a Guard: a database error
// throws.
void ReadReleaseStates(Tx& tx, std::vector<StoredChangeOrder>& cos) {
  if (cos.empty()) return;
  std::map<std::string, StoredChangeOrder*> by_id;
  std::vector<std::string> ids;
  for (auto& c : cos) {
    RecheckInvokeSelection(tx, c);
    by_id[c.id] = &c;
    ids.push_back(c.id);
  }
  Query q(kReleaseStateSelect);
  q.Param(TextArrayLiteral(ids));  // $1
  for (const auto& row : q.Prepared().Exec(tx)) {
    auto it = by_id.find(row["id"].as<std::string>());
    if (it == by_id.end()) continue;
    StoredChangeOrder& c = *it->second;
    c.target_space_ids = SortedIds(row["target_space_ids"]);
    c.released_space_ids = SortedIds(row["released_space_ids"]);
    c.restore_tag_id = row["restore_tag_id"].as<std::string>();
    c.restored_space_ids = SortedIds(row["restored_space_ids"]);
    c.restore_released_space_ids = SortedIds(row["restore_released_space_ids"]);
  }
}

// A column of Space IDs as a set.
std::set<std::string> SpaceIds(const pqxx::result& r) {
  std::set<std::string> out;
  for (const auto& row : r) out.insert(row["space_id"].as<std::string>());
  return out;
}

ValidationFinding ValidationFindingFromRow(const pqxx::row& r) {
  return ValidationFinding{r["space_id"].as<std::string>(), r["unit_slug"].as<std::string>(),
                           r["revision_num"].as<int64_t>(), ReadTextArray(r["errors"])};
}

// A list's conditions on `co` (joined to its base Space `s`): of base `space_id`, or of every
// Space `caller` can see when empty; after the page's key, ordered by it and limited.
void AndListed(Query& q, const Caller& caller, const std::string& space_id, const Keyset& page) {
  if (!space_id.empty()) {
    q.Append(absl::StrCat(" AND co.space_id = ", q.Param(space_id), "::uuid"));
  } else {
    AndVisible(q, caller, "co.space_id");
  }
  AndAfterKey(q, page, "s.slug, co.slug", {"text", "text"});
  OrderAndLimit(q, page, "s.slug, co.slug");
}

}  // namespace

absl::StatusOr<StoredChangeOrder> InsertChangeOrder(Tx& tx, const StoredChangeOrder& co) {
  return Guard([&]() -> absl::StatusOr<StoredChangeOrder> {
    pqxx::row r = Pq(tx).exec_params1(
        "INSERT INTO change_orders (space_id, slug, description, change_workflow, workflow,"
        " update_type, prior_revisions, where_space, in_scope_spaces, in_scope_space_ids,"
        " skipped_units, start_tag_id, end_tag_id, publish_tag_id, created_by, invocation,"
        " function_name, function_args, where_unit)"
        " VALUES ($1::uuid, $2, $3, $4, NULLIF($5, '')::jsonb, $6, $7, $8, $9::text[],"
        " $10::uuid[], $11::jsonb, $12::uuid, $13::uuid, $14::uuid, NULLIF($15, '')::uuid, $16,"
        " $17, $18::text[], $19)"
        " RETURNING id",
        co.space_id, co.slug, co.description, co.change_workflow, co.workflow_json, co.update_type,
        co.prior_revisions, co.where_space, TextArrayLiteral(co.in_scope_spaces),
        TextArrayLiteral(co.in_scope_space_ids), co.skipped_units_json, co.start_tag_id,
        co.end_tag_id, co.publish_tag_id, co.created_by, co.invocation, co.function_name,
        TextArrayLiteral(co.function_args), co.where_unit);
    CUB_ASSIGN_OR_RETURN(auto stored, FindChangeOrder(tx, co.space_id, r["id"].as<std::string>()));
    if (!stored) return absl::InternalError("change order vanished after insert");
    return *std::move(stored);
  });
}

absl::StatusOr<std::optional<StoredChangeOrder>> FindChangeOrder(Tx& tx,
                                                                 const std::string& space_id,
                                                                 const std::string& ref,
                                                                 bool for_update) {
  return Guard([&]() -> absl::StatusOr<std::optional<StoredChangeOrder>> {
    if (for_update) {
      // Lock first, then read, so what is read is what the lock holder left.
      Query lock("SELECT 1 FROM change_orders co WHERE co.space_id = ");
      lock.Append(absl::StrCat(lock.Param(space_id), "::uuid AND ",
                               SlugOrId(lock, "co.slug", "co.id", ref), " FOR UPDATE"));
      lock.Prepared().Exec(tx);
    }
    Query q(kChangeOrderOneSelect);
    q.Append(absl::StrCat(" AND co.space_id = ", q.Param(space_id), "::uuid AND ",
                          SlugOrId(q, "co.slug", "co.id", ref)))
        .Prepared();
    pqxx::result r = q.Exec(tx);
    if (r.empty()) return std::nullopt;
    std::vector<StoredChangeOrder> found = {ChangeOrderFromRow(r[0])};
    ReadResolvedSpaces(tx, found[0]);
    ReadReleaseStates(tx, found);
    return std::move(found[0]);
  });
}

absl::StatusOr<std::optional<std::string>> ChangeOrderRefById(Tx& tx, const std::string& id) {
  return Guard([&]() -> absl::StatusOr<std::optional<std::string>> {
    pqxx::result r = Pq(tx).exec_params(
        "SELECT s.slug || '/' || co.slug AS ref FROM change_orders co"
        " JOIN spaces s ON s.id = co.space_id WHERE co.id = $1::uuid",
        id);
    if (r.empty()) return std::nullopt;
    return r[0]["ref"].as<std::string>();
  });
}

absl::StatusOr<std::vector<StoredChangeOrder>> ListChangeOrders(Tx& tx, const Caller& caller,
                                                                const std::string& space_id,
                                                                const Keyset& page) {
  return Guard([&]() -> absl::StatusOr<std::vector<StoredChangeOrder>> {
    Query q(kChangeOrderSelect);
    AndListed(q, caller, space_id, page);
    std::vector<StoredChangeOrder> out;
    for (const auto& row : q.Exec(tx)) {
      out.push_back(ChangeOrderFromRow(row));
      out.back().resolved_space_ids = ReadTextArray(row["resolved_space_ids"]);
    }
    ReadReleaseStates(tx, out);
    return out;
  });
}

absl::StatusOr<std::vector<StoredChangeOrderBasic>> ListChangeOrderBasics(
    Tx& tx, const Caller& caller, const std::string& space_id, const Keyset& page) {
  return Guard([&]() -> absl::StatusOr<std::vector<StoredChangeOrderBasic>> {
    Query q(kChangeOrderBasicPage);
    AndListed(q, caller, space_id, page);
    q.Append(kChangeOrderBasicSelect);
    std::vector<StoredChangeOrderBasic> out;
    for (const auto& row : q.Exec(tx)) out.push_back(ChangeOrderBasicFromRow(row));
    return out;
  });
}

absl::Status UpdateChangeOrder(Tx& tx, const std::string& id, const ChangeOrderChanges& c) {
  return Guard([&]() -> absl::Status {
    Query q("UPDATE change_orders SET updated_at = now(), version = version + 1");
    if (c.description) q.Append(absl::StrCat(", description = ", q.Param(*c.description)));
    if (c.aborted_reason) {
      q.Append(absl::StrCat(", aborted_reason = ", q.Param(*c.aborted_reason)));
    }
    if (c.stage) q.Append(absl::StrCat(", stage = ", q.Param(*c.stage)));
    if (c.in_scope_space_ids) {
      q.Append(absl::StrCat(
          ", in_scope_space_ids = ", q.Param(TextArrayLiteral(*c.in_scope_space_ids)), "::uuid[]"));
    }
    if (!c.append_failure_json.empty()) {
      q.Append(absl::StrCat(", promotion_failures = promotion_failures || jsonb_build_array(",
                            q.Param(c.append_failure_json), "::jsonb)"));
    }
    if (!c.append_override_json.empty()) {
      q.Append(absl::StrCat(", promotion_overrides = promotion_overrides || jsonb_build_array(",
                            q.Param(c.append_override_json), "::jsonb)"));
    }
    q.Append(absl::StrCat(" WHERE id = ", q.Param(id), "::uuid"));
    q.Exec(tx);
    return absl::OkStatus();
  });
}

absl::StatusOr<std::set<std::string>> MarkedSpaces(Tx& tx, const std::string& tag_id,
                                                   const std::vector<std::string>& space_ids) {
  return Guard([&]() -> absl::StatusOr<std::set<std::string>> {
    return SpaceIds(
        Pq(tx).exec_params("SELECT DISTINCT u.space_id::text AS space_id FROM tag_marks m"
                           " JOIN units u ON u.id = m.unit_id"
                           " WHERE m.tag_id = $1::uuid AND u.space_id = ANY($2::uuid[])",
                           tag_id, TextArrayLiteral(space_ids)));
  });
}

absl::StatusOr<std::set<std::string>> WritableSpaces(Tx& tx, const Caller& caller,
                                                     const std::vector<std::string>& space_ids) {
  if (caller.admin) return std::set<std::string>(space_ids.begin(), space_ids.end());
  return Guard([&]() -> absl::StatusOr<std::set<std::string>> {
    return SpaceIds(Pq(tx).exec_params(
        "SELECT DISTINCT space_id::text AS space_id FROM space_permissions"
        " WHERE space_id = ANY($1::uuid[]) AND role IN ('editor', 'admin')"
        " AND (user_id = NULLIF($2, '')::uuid OR group_name = ANY($3::text[]))",
        TextArrayLiteral(space_ids), caller.user_id, TextArrayLiteral(caller.groups)));
  });
}

absl::StatusOr<std::map<std::string, std::set<std::string>>> DownstreamSpaces(
    Tx& tx, const std::string& space_id, const std::string& update_type) {
  using Out = std::map<std::string, std::set<std::string>>;
  return Guard([&]() -> absl::StatusOr<Out> {
    // Space-level edges first (one row per pair of Spaces a Link joins), then the closure.
    pqxx::result r = Pq(tx).exec_params(
        "WITH RECURSIVE edges AS ("
        "  SELECT DISTINCT fu.space_id AS down, tu.space_id AS up FROM links l"
        "  JOIN units fu ON fu.id = l.from_unit_id JOIN units tu ON tu.id = l.to_unit_id"
        "  WHERE l.update_type = $2 AND fu.space_id <> tu.space_id),"
        " reach(id) AS (SELECT $1::uuid UNION"
        "  SELECT e.down FROM edges e JOIN reach ON reach.id = e.up)"
        " SELECT reach.id::text AS space_id, coalesce(e.up::text, '') AS upstream_id FROM reach"
        " LEFT JOIN edges e ON e.down = reach.id AND e.up IN (SELECT id FROM reach)",
        space_id, update_type);
    Out out;
    for (const auto& row : r) {
      auto& ups = out[row["space_id"].as<std::string>()];
      if (std::string up = row["upstream_id"].as<std::string>(); !up.empty()) ups.insert(up);
    }
    return out;
  });
}

absl::StatusOr<std::vector<ValidationFinding>> ValidationFindings(
    Tx& tx, const std::string& start_tag_id, const std::string& publish_tag_id,
    const std::vector<std::string>& space_ids) {
  return Guard([&]() -> absl::StatusOr<std::vector<ValidationFinding>> {
    pqxx::result r = Pq(tx).exec_params(
        "SELECT u.space_id::text AS space_id, u.slug AS unit_slug, r.revision_num,"
        " ARRAY(SELECT jsonb_array_elements_text(r.validation_errors)) AS errors"
        " FROM tag_marks mp JOIN units u ON u.id = mp.unit_id"
        " JOIN revisions r ON r.unit_id = u.id AND r.revision_num = mp.revision_num"
        " WHERE mp.tag_id = $2::uuid AND u.space_id = ANY($3::uuid[])"
        " AND (SELECT ms.revision_num FROM tag_marks ms WHERE ms.tag_id = $1::uuid"
        " AND ms.unit_id = u.id) IS DISTINCT FROM mp.revision_num"
        " AND r.validation_errors <> '[]'"
        " ORDER BY u.space_id, u.slug",
        start_tag_id, publish_tag_id, TextArrayLiteral(space_ids));
    std::vector<ValidationFinding> out;
    for (const auto& row : r) out.push_back(ValidationFindingFromRow(row));
    return out;
  });
}

}  // namespace cub::store
