// Units and their Revisions.
//
// A Unit's head moves only through AppendRevision, which bumps head_revision_num with a row
// lock, so concurrent writers to one Unit are serialized and each gets the next number:
// nothing is lost and numbers have no gaps. Revisions are never updated (a trigger refuses).
//
// Every function returns a Status and never throws: a database error comes back as
// lib/store/errors.h maps it (a violated constraint as ALREADY_EXISTS or FAILED_PRECONDITION,
// a conflict as ABORTED, ...).
#ifndef CUB_LIB_STORE_UNITS_H_
#define CUB_LIB_STORE_UNITS_H_

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "cub/v1/common.pb.h"
#include "lib/store/caller.h"
#include "lib/store/keyset.h"
#include "lib/store/transaction.h"

namespace cub::store {

struct NewUnit {
  std::string space_id;
  std::string slug;
  std::string toolchain_type;
  std::map<std::string, std::string> labels;
  std::map<std::string, std::string> annotations;
};

struct NewRevision {
  std::string data;
  std::string data_hash;
  std::string author_id;
  std::string description;
  int64_t restored_from_num = 0;
  int64_t expected_head = 0;  // 0: any; else ABORTED unless the head is still this
  std::string change_set_id;  // the ChangeSet the revision is written in, if any
  // Where merged data came from (empty / 0 when written directly).
  std::string upstream_unit_id;
  int64_t upstream_revision_num = 0;
  std::string conflicts_json = "[]";  // withheld changes, as a JSON array of Conflict objects
  std::vector<std::string> validation_errors;  // what the Space's validators found
  std::string change_order_id;  // the ChangeOrder the revision moves into the Unit, if any
};

// Inserts a Unit with no revisions (head 0); ALREADY_EXISTS if the slug is taken,
// FAILED_PRECONDITION if the Space does not exist.
absl::StatusOr<v1::Unit> InsertUnit(Tx& tx, const NewUnit& u);
// Takes the Unit's row lock until the transaction ends, so that what the caller reads of the
// Unit next (its head, its data hash) stays true until its write lands.
absl::Status LockUnit(Tx& tx, const std::string& unit_id);
// Writes the next revision of the Unit and moves its head to it; ABORTED when
// rev.expected_head is set and the head has moved on.
absl::StatusOr<v1::Revision> AppendRevision(Tx& tx, const std::string& unit_id,
                                            const NewRevision& rev);

// The Unit of the Space by slug or ID; nullopt when there is none.
absl::StatusOr<std::optional<v1::Unit>> FindUnit(Tx& tx, const std::string& space_id,
                                                 const std::string& slug_or_id);

struct UnitQuery {
  std::string space_id;                // empty: every Space the caller can see
  std::vector<std::string> space_ids;  // when not empty: only these Spaces (with space_id too)
  std::string where;
  std::string filter_where;
  std::string where_space;  // where expression over the Units' Spaces
  Keyset page;              // sort key (Space slug, Unit slug); all rows by default
};
// The Units `caller` can see that match every where expression, by Space slug then slug;
// INVALID_ARGUMENT for an expression that does not compile.
absl::StatusOr<std::vector<v1::Unit>> ListUnits(Tx& tx, const Caller& caller, const UnitQuery& q);

struct UnitChanges {
  std::map<std::string, std::string> labels;       // "" value removes the key
  std::map<std::string, std::string> annotations;  // "" value removes the key
};
absl::Status UpdateUnitMetadata(Tx& tx, const std::string& unit_id, const UnitChanges& c);
// FAILED_PRECONDITION naming them when Units downstream are linked to it.
absl::Status DeleteUnit(Tx& tx, const v1::Unit& unit);

// Revision `num` of the Unit; nullopt when there is none.
absl::StatusOr<std::optional<v1::Revision>> FindRevision(Tx& tx, const std::string& unit_id,
                                                         int64_t num);
// Revisions first..last (inclusive) of the Unit, in order, in one query.
absl::StatusOr<std::vector<v1::Revision>> RevisionRange(Tx& tx, const std::string& unit_id,
                                                        int64_t first, int64_t last);
// Adds and removes protected paths of the Unit (kept sorted and unique).
absl::Status ChangeProtectedPaths(Tx& tx, const std::string& unit_id,
                                  const std::vector<std::string>& add,
                                  const std::vector<std::string>& remove);
// The Unit's revisions that match `where`, in order (after page.after, a revision number);
// INVALID_ARGUMENT for a bad expression.
absl::StatusOr<std::vector<v1::Revision>> ListRevisions(Tx& tx, const std::string& unit_id,
                                                        std::string_view where,
                                                        const Keyset& page = {});

}  // namespace cub::store

#endif  // CUB_LIB_STORE_UNITS_H_
