// ChangeOrder rows, and the set-based reads and writes promotion is made of.
//
// What a ChangeOrder stores is what cannot be derived: its scope as fixed at creation, the
// workflow copied then, the recorded Stage and the history of failed and forced promotions.
// Where the change has got to is read from its Tags' marks (MarkedSpaces).
#ifndef CUB_LIB_STORE_CHANGE_ORDERS_H_
#define CUB_LIB_STORE_CHANGE_ORDERS_H_

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "lib/store/caller.h"
#include "lib/store/keyset.h"
#include "lib/store/transaction.h"

namespace cub::store {

struct StoredChangeOrder {
  std::string id;
  std::string space_id;
  std::string space_slug;
  std::string slug;
  std::string description;
  std::string change_workflow;  // "SPACE/NAME" as given, or empty
  std::string workflow_json;    // the copy taken at creation, or empty
  std::string update_type = "UpgradeUnit";
  // Invoke only: fixed at creation.
  std::string invocation, function_name, where_unit;
  std::vector<std::string> function_args;
  std::string prior_revisions = "Include";
  std::string where_space;                   // the scope selection, or empty
  std::vector<std::string> in_scope_spaces;  // Spaces listed by name at creation
  std::vector<std::string> in_scope_space_ids;
  std::string skipped_units_json = "[]";
  std::string start_tag_id, end_tag_id, publish_tag_id;
  std::string start_tag, end_tag, publish_tag;  // their slugs
  std::string stage;
  std::string aborted_reason;
  std::string promotion_failures_json = "[]";
  std::string promotion_overrides_json = "[]";
  std::string created_by;
  std::string created_at, updated_at;
  int64_t version = 0;
  // Derived at read: the Spaces the publish Tag marks a Unit of (where promotion finished).
  std::vector<std::string> resolved_space_ids;
  // Derived at read: Units of the base the change changes (start and end marks differ).
  int64_t changed_unit_count = 0;
  // Derived at read: in-scope Spaces with a release Target, and those that have published a
  // Release carrying the change.
  std::vector<std::string> target_space_ids;
  std::vector<std::string> released_space_ids;
  // Derived at read, once demoted: the restore Tag (NAME-co-restore), the Spaces it marks, and
  // those of them that have published a Release of the restored revisions.
  std::string restore_tag_id;
  std::vector<std::string> restored_space_ids;
  std::vector<std::string> restore_released_space_ids;
  // Blocked (lib/store/blocks.h): when (RFC 3339, empty if not blocked) and by whom (user name).
  std::string blocked_at, blocked_by;
};

// Every function here returns a database error as a Status (lib/store/errors.h), never as an
// exception; after one the transaction is unusable until rolled back to a savepoint.

// Inserts `co` (id, timestamps and version are assigned) and returns it as stored.
// ALREADY_EXISTS when the base Space has a ChangeOrder of that slug.
absl::StatusOr<StoredChangeOrder> InsertChangeOrder(Tx& tx, const StoredChangeOrder& co);
// By slug or ID within the base Space; nullopt when there is none. `for_update` takes the row
// lock, which serializes the promotions of one ChangeOrder, across cubd processes too.
absl::StatusOr<std::optional<StoredChangeOrder>> FindChangeOrder(Tx& tx,
                                                                 const std::string& space_id,
                                                                 const std::string& slug_or_id,
                                                                 bool for_update = false);
// "BASE/NAME" of the ChangeOrder with ID `id` (slugs as they are now); nullopt when none has it.
absl::StatusOr<std::optional<std::string>> ChangeOrderRefById(Tx& tx, const std::string& id);
// Every ChangeOrder of the Space (empty: of every Space the caller can see), by base Space
// slug then slug; `page` continues after a (Space slug, slug) key.
absl::StatusOr<std::vector<StoredChangeOrder>> ListChangeOrders(Tx& tx, const Caller& caller,
                                                                const std::string& space_id,
                                                                const Keyset& page = {});

// What a ChangeOrder's State is derived from, counted in SQL from its stored scope instead of
// read out as lists of Space IDs (lib/ops/change_order_state.h derives State from either).
// "Beyond the base": entries other than the ChangeOrder's own Space.
struct ChangeOrderStateCounts {
  int64_t in_scope = 0;  // entries of in_scope_space_ids
  // In-scope entries (with their repeats, as ResolvedInScope keeps them) whose Space the
  // publish Tag marks a Unit of; those beyond the base; and those beyond the base the restore
  // Tag marks no Unit of (all of them when there is no restore Tag).
  int64_t resolved = 0;
  int64_t resolved_beyond_base = 0;
  int64_t unrestored_beyond_base = 0;
  // In-scope Spaces with a release Target, and those holding a Release that carries the
  // change (the sizes of target_space_ids and released_space_ids).
  int64_t targets = 0;
  int64_t released = 0;
  // Released Spaces beyond the base, and those of them without a Release of the restored
  // revisions (restore_released_space_ids).
  int64_t released_beyond_base = 0;
  int64_t unrereleased_beyond_base = 0;
};

// A ChangeOrder as a Basic list reads it: every column but the Space ID lists, which stay
// empty in `co` (in_scope_space_ids, resolved_space_ids, target_space_ids, released_space_ids,
// restored_space_ids, restore_released_space_ids; restore_tag_id too), and the counts its
// State is derived from instead.
struct StoredChangeOrderBasic {
  StoredChangeOrder co;
  ChangeOrderStateCounts counts;
};

// ListChangeOrders without the lists: the same rows in the same order for the same arguments,
// the counts computed in SQL for the page's rows only. An Invoke ChangeOrder's resolved Spaces
// are rechecked against its Unit selection at a full read (FindChangeOrder), which these
// counts do not do: derive an Invoke ChangeOrder's State from a full read.
absl::StatusOr<std::vector<StoredChangeOrderBasic>> ListChangeOrderBasics(
    Tx& tx, const Caller& caller, const std::string& space_id, const Keyset& page = {});

struct ChangeOrderChanges {
  std::optional<std::string> description;
  std::optional<std::string> aborted_reason;
  std::optional<std::string> stage;
  std::optional<std::vector<std::string>> in_scope_space_ids;
  std::string append_failure_json;   // a JSON object appended to PromotionFailures
  std::string append_override_json;  // a JSON object appended to PromotionOverrides
};
// Applies `c` to the ChangeOrder `id` (bumping its version). OK, changing nothing, when no
// ChangeOrder has that ID.
absl::Status UpdateChangeOrder(Tx& tx, const std::string& id, const ChangeOrderChanges& c);

// Spaces among `space_ids` holding at least one Unit that `tag_id` marks.
absl::StatusOr<std::set<std::string>> MarkedSpaces(Tx& tx, const std::string& tag_id,
                                                   const std::vector<std::string>& space_ids);

// The Spaces among `space_ids` the caller may write (editor or admin role), in one query.
absl::StatusOr<std::set<std::string>> WritableSpaces(Tx& tx, const Caller& caller,
                                                     const std::vector<std::string>& space_ids);

// The Spaces downstream of `space_id` along Links of `update_type`, transitively, with each
// one's direct upstream Spaces: {space -> upstreams}. The Space itself is included (with no
// upstreams unless a cycle leads back to it).
absl::StatusOr<std::map<std::string, std::set<std::string>>> DownstreamSpaces(
    Tx& tx, const std::string& space_id, const std::string& update_type);

// A revision a Release of the change would bundle that carries validation errors.
struct ValidationFinding {
  std::string space_id;
  std::string unit_slug;
  int64_t revision_num = 0;
  std::vector<std::string> errors;
};
// Over the Units of `space_ids` the change changes there (start and publish marks differ), the
// revisions the publish Tag marks that have validation errors.
absl::StatusOr<std::vector<ValidationFinding>> ValidationFindings(
    Tx& tx, const std::string& start_tag_id, const std::string& publish_tag_id,
    const std::vector<std::string>& space_ids);

}  // namespace cub::store

#endif  // CUB_LIB_STORE_CHANGE_ORDERS_H_
