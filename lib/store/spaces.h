// Spaces, components and per-Space permissions.
//
// Every function returns a Status and never throws: a database error comes back as
// lib/store/errors.h maps it (a violated constraint as ALREADY_EXISTS or FAILED_PRECONDITION,
// a conflict as ABORTED, ...).
#ifndef CUB_LIB_STORE_SPACES_H_
#define CUB_LIB_STORE_SPACES_H_

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "cub/v1/common.pb.h"
#include "lib/store/caller.h"
#include "lib/store/keyset.h"
#include "lib/store/transaction.h"

namespace cub::store {

struct NewSpace {
  std::string slug;
  std::string display_name;
  std::map<std::string, std::string> labels;
  std::map<std::string, std::string> annotations;
  std::string component_id;       // empty: none
  std::string upstream_space_id;  // empty: none
};

// Inserts a Space; ALREADY_EXISTS if the slug is taken.
absl::StatusOr<v1::Space> InsertSpace(Tx& tx, const NewSpace& s);
// By slug or ID, regardless of who asks (callers check access); nullopt when there is none.
absl::StatusOr<std::optional<v1::Space>> FindSpace(Tx& tx, const std::string& slug_or_id);
// The Spaces `caller` can see that match both where expressions (either may be empty), by
// slug; `page` selects the slugs after page.after (all of them by default).
absl::StatusOr<std::vector<v1::Space>> ListSpaces(Tx& tx, const Caller& caller,
                                                  std::string_view where,
                                                  std::string_view filter_where,
                                                  const Keyset& page = {});

// The Spaces among `space_ids` that match `where` (may be empty), whoever asks. These lists of
// Spaces and names (not the paged ListSpaces) are by slug compared bytewise (COLLATE "C"),
// whatever the database's collation, so that they agree with one another.
absl::StatusOr<std::vector<v1::Space>> SpacesAmong(Tx& tx,
                                                   const std::vector<std::string>& space_ids,
                                                   std::string_view where);

// SpacesAmong for each of `wheres` (result i for wheres[i]), in one statement: at a thousand
// Spaces in scope, reading them once instead of once per where halves a two-Stage
// ChangeOrder's StageMembers. A where that does not compile is refused with the compiler's
// words, and its index is stored in `*bad_where` (when given), so the caller can name it.
absl::StatusOr<std::vector<std::vector<v1::Space>>> SpacesAmongEach(
    Tx& tx, const std::vector<std::string>& space_ids, const std::vector<std::string>& wheres,
    size_t* bad_where = nullptr);

// A Space as named, its ID and slug: enough to know who belongs where without reading the rest.
struct SpaceName {
  std::string space_id;
  std::string slug;
};

// SpacesAmongEach, names only, each list by slug compared bytewise: at ten thousand Spaces in
// scope, reading and building every Space (labels, annotations, component, release target) is most
// of a ChangeOrder's Explain, which needs whole Spaces only for the Stage its gates are evaluated
// over.
absl::StatusOr<std::vector<std::vector<SpaceName>>> SpaceNamesAmongEach(
    Tx& tx, const std::vector<std::string>& space_ids, const std::vector<std::string>& wheres,
    size_t* bad_where = nullptr);

// SpaceNamesAmongEach over the scope of ChangeOrder `change_order_id` as stored, read in SQL
// rather than sent as a parameter (ten thousand IDs cost more to send and parse than the
// statement takes to run), provided the ChangeOrder's version is still `version`: nullopt when
// it is not (or it is gone), and the caller passes the scope it holds instead. `scope_size`, the
// number of IDs in the scope the caller holds, chooses how the Spaces are found: a scope that is
// a large part of all Spaces is read by scanning them once, a smaller one by probing the primary
// key per ID.
absl::StatusOr<std::optional<std::vector<std::vector<SpaceName>>>> SpaceNamesInScopeEach(
    Tx& tx, const std::string& change_order_id, int64_t version, size_t scope_size,
    const std::vector<std::string>& wheres, size_t* bad_where = nullptr);

// The names of every Space in the scope of ChangeOrder `change_order_id` as stored, by slug, on
// the same terms (nullopt once its version is no longer `version`).
absl::StatusOr<std::optional<std::vector<SpaceName>>> SpaceNamesInScope(
    Tx& tx, const std::string& change_order_id, int64_t version);

// The IDs and slugs of the Spaces among `space_ids`, by slug, as SpacesAmong(tx, space_ids, "")
// orders them: for naming Spaces, without reading the rest of each.
absl::StatusOr<std::vector<std::pair<std::string, std::string>>> SpaceSlugsAmong(
    Tx& tx, const std::vector<std::string>& space_ids);

struct SpaceChanges {
  std::optional<std::string> display_name;
  std::map<std::string, std::string> labels;       // "" value removes the key
  std::map<std::string, std::string> annotations;  // "" value removes the key
  std::optional<std::string> component_id;
  std::vector<std::string> add_validators;  // "SPACE/NAME" of vet Invocations
  std::vector<std::string> remove_validators;
  std::optional<std::string> release_target_id;  // "" removes it
  int64_t expected_version = 0;                  // 0: any
};
// ABORTED if expected_version is set and the Space has moved on.
absl::StatusOr<v1::Space> UpdateSpace(Tx& tx, const std::string& space_id, const SpaceChanges& c);
// FAILED_PRECONDITION naming the dependents when variants or Links from other Spaces depend
// on it.
absl::Status DeleteSpace(Tx& tx, const v1::Space& space);

// Returns the component's ID, creating it if new.
absl::StatusOr<std::string> EnsureComponent(Tx& tx, const std::string& slug);

// Role names the caller holds on the Space, directly or through a group.
absl::StatusOr<std::vector<std::string>> RolesOn(Tx& tx, const std::string& space_id,
                                                 const Caller& caller);
// RolesOn for many Spaces in one query: each Space of `space_ids` on which the caller holds a
// role, with the role names; Spaces without one are absent.
absl::StatusOr<std::map<std::string, std::vector<std::string>>> RolesOnEach(
    Tx& tx, const std::vector<std::string>& space_ids, const Caller& caller);
// Grants a role to exactly one of user_id / group (the other empty). Idempotent.
// FAILED_PRECONDITION if the Space or the user does not exist, or the role is unknown.
absl::Status GrantRole(Tx& tx, const std::string& space_id, const std::string& role,
                       const std::string& user_id, const std::string& group);
// NOT_FOUND if there was no such grant.
absl::Status RevokeRole(Tx& tx, const std::string& space_id, const std::string& role,
                        const std::string& user_id, const std::string& group);
// The Space's grants, by username, then group, then role.
absl::StatusOr<std::vector<v1::Permission>> ListPermissions(Tx& tx, const std::string& space_id);

}  // namespace cub::store

#endif  // CUB_LIB_STORE_SPACES_H_
