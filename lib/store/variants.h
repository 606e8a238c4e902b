// The set-based writes behind `cub variant create`: new variant Spaces of one upstream, their
// grants, and clones of the upstream's Units, each a single statement however many Spaces and
// Units there are (one Space is a set of one).
//
// Every function returns a Status and never throws: a database error comes back as
// lib/store/errors.h maps it (a violated constraint as ALREADY_EXISTS or FAILED_PRECONDITION,
// a conflict as ABORTED, ...). None checks access: lib/ops does, before calling.
#ifndef CUB_LIB_STORE_VARIANTS_H_
#define CUB_LIB_STORE_VARIANTS_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "lib/store/transaction.h"

namespace cub::store {

// What the new variant Spaces share; each gets its own slug.
struct NewVariants {
  std::vector<std::string> slugs;  // distinct, valid, not taken (callers check)
  std::map<std::string, std::string> labels;
  std::string component_id;  // empty: none
  std::string upstream_space_id;
};

// The slugs among `refs` that name an existing Space, by slug or by ID (as FindSpace matches),
// sorted bytewise.
absl::StatusOr<std::vector<std::string>> TakenSpaceRefs(Tx& tx,
                                                        const std::vector<std::string>& refs);

// Inserts one Space per slug in one statement; returns their IDs, in the order of `v.slugs`.
// ALREADY_EXISTS if a slug is taken meanwhile.
absl::StatusOr<std::vector<std::string>> InsertVariantSpaces(Tx& tx, const NewVariants& v);

// Copies the grants of `from_space_id` to every Space of `to_space_ids`, then grants `role` to
// `user_id` on each of them (a grant already copied is kept once): two statements.
absl::Status CarryOverGrants(Tx& tx, const std::string& from_space_id,
                             const std::vector<std::string>& to_space_ids, const std::string& role,
                             const std::string& user_id);

// Clones every Unit of `upstream_space_id` that has a revision into each of the new, empty
// Spaces `space_ids`, in three statements: the Units (head 1, upstream Unit set), their first
// revisions (the upstream head's data, `description`, authored by `author_id`), and one
// UpgradeUnit Link `<unit>-upstream` per clone with its merge cursor at the cloned revision.
// Returns the number of Units cloned into all of them.
absl::StatusOr<int64_t> CloneUnits(Tx& tx, const std::string& upstream_space_id,
                                   const std::vector<std::string>& space_ids,
                                   const std::string& author_id, const std::string& description);

}  // namespace cub::store

#endif  // CUB_LIB_STORE_VARIANTS_H_
