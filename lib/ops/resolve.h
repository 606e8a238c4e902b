// Resolving the Links that write values or copy resources into a Unit (TransformPaths, Insert,
// Upsert; see lib/links), on request (`cub unit update --patch --resolve "Link:*"`) and on
// their own (AutoUpdate Links, whenever their upstream Unit gets a new revision); and the
// paths that Protect TransformPaths Links hold against upgrades.
//
// Resolving a Unit's Links reads each Link's upstream Unit at one revision (its head, or
// --merge-end), computes the Unit's new data from its head with every selected Link applied in
// slug order, and writes at most one new revision, recording the upstream Unit and revision of
// the first Link that changed something. Each Link's cursor (UpstreamRevisionNum) then moves
// to the revision it was resolved against, whether or not the data changed. A Link is never
// resolved to a revision older than its cursor.
//
// Everything happens inside the caller's transaction, so a failure writes nothing.
#ifndef CUB_LIB_OPS_RESOLVE_H_
#define CUB_LIB_OPS_RESOLVE_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "cub/v1/common.pb.h"
#include "cub/v1/unit.pb.h"
#include "lib/config/node.h"
#include "lib/links/definition.h"
#include "lib/ops/principal.h"
#include "lib/store/transaction.h"

namespace cub::ops {

// How many Links deep an AutoUpdate may reach from the Unit written first.
inline constexpr int kMaxAutoUpdateDepth = 8;

// The resolve part of UpdateUnit, inside its transaction, with `unit` locked and current.
// req.resolve() is "Link:*" or "Link:<where over Links>"; req.merge_end() (if not 0) is the
// upstream revision to resolve against instead of each upstream's head. Needs read access to
// each upstream Space. Fills out->revision and out->revisions with the revision written, or
// sets out->unchanged. Errors:
//   INVALID_ARGUMENT  a selector that is not "Link:...", a bad where, a revision that does
//                     not exist;
//   FAILED_PRECONDITION  no Link selected; a Link would be taken back ("would take it back");
//                     an upstream value missing; data that does not parse or cannot be edited.
absl::Status Resolve(store::Tx& tx, const Principal& p, const v1::Space& space,
                     const v1::Unit& unit, const v1::UpdateUnitRequest& req,
                     const std::string& change_set_id, v1::UpdateUnitResponse* out);

// Call after new revisions of the Units `written_unit_ids` were written in this transaction.
// Finds, in one query per level, the AutoUpdate Links whose upstream is one of them, and brings
// each of their downstream Units up to date: TransformPaths, Insert and Upsert Links are
// resolved against the upstream's head, UpgradeUnit and MergeUnits Links are upgraded (replay)
// from their cursor. A downstream Unit that changes counts as written in turn, up to
// kMaxAutoUpdateDepth levels; beyond that the whole write is refused (FAILED_PRECONDITION), as a
// chain of AutoUpdate Links that leads back to where it started would otherwise never end.
//
// The Link is the authority for these writes: it was created by an editor of the downstream
// Space who could read the upstream, so the writer of the upstream needs no role downstream.
// The revisions are authored by `p`. A downstream Unit held by an open ChangeSet is skipped
// (its Links keep their cursors and catch up on the next resolve or upgrade). Any other failure
// fails the write that triggered it, naming the Link. With `followed`, the IDs of the Units it
// wrote are appended there.
absl::Status FollowAutoUpdates(store::Tx& tx, const Principal& p,
                               std::vector<std::string> written_unit_ids,
                               std::vector<std::string>* followed = nullptr);

// The paths that `unit`'s Protect TransformPaths Links hold against an upgrade whose upstream
// states are `states` (and the Unit's own head among them): for each such Link that has resolved
// a revision, the places where its setters, with the values of that revision, would write a
// value other than the one a state holds (links::SetterPaths). Merge paths with a document part.
absl::StatusOr<std::vector<std::string>> LinkHeldPaths(
    store::Tx& tx, const v1::Unit& unit,
    const std::vector<const std::vector<config::Node>*>& states);

// Parses a Link definition (lib/links/definition.h) as CreateLink receives it: the fields of
// the API's Link that are not part of the definition (LinkID, Slug, FromUnitSlug,
// UpstreamRevisionNum, CreatedAt ..., every field `cub link get -o json` prints) are accepted
// and skipped, so that output feeds back. The list comes from the Link message itself, so a
// field added to it later is skipped too.
absl::StatusOr<links::Definition> ParseLinkDefinition(std::string_view text);

// Conversions between the API's Link (UpstreamPaths, DownstreamSetters) and the definition.
links::Definition DefinitionOf(const v1::Link& link);
void PutDefinition(const links::Definition& def, v1::Link* link);

}  // namespace cub::ops

#endif  // CUB_LIB_OPS_RESOLVE_H_
