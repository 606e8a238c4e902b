// The 3-way merge behind upgrades: applies what an upstream Unit changed (a Change from base
// revision B, the Link's merge cursor, to end revision E; diff.h) to a downstream Unit's head
// documents D, keeping the downstream's own edits, key order and comments.
//
//   Change change = ComputeChange(base_docs, end_docs);      // once per upstream Unit
//   for (each downstream) {
//     MergeResult r = Apply(change, downstream_docs, protection);
//     ... r.documents, r.conflicts, r.overrides
//   }
//
// Rules, at each place the Change touches (documents, mapping entries and keyed-list items are
// places; so is every scalar and atomic list: see diff.h and merge_keys.h):
//   - D already equals E there: nothing to do (this is what makes Apply idempotent).
//   - The place is protected (protection.h): D is kept; Conflict kProtectedPath.
//   - D equals B there (the downstream did not touch it): E's value is taken, or the place
//     removed.
//   - Both sides changed it:
//       D removed it, E changed it: it stays removed; Conflict kDeletedDownstream.
//       E removed it, D changed it: D's value is kept; Conflict kRemovedUpstreamEditedDownstream.
//       Both changed an atomic list: D's list is kept; Conflict kListEditedDownstream.
//       Otherwise (a scalar, or values whose kind differs): E's value is taken (upstream wins,
//       as the spec's model has it), and the value D loses is reported as an Override, which
//       is information, not a conflict.
//   - Mappings and keyed lists present on both sides are merged place by place, never replaced
//     whole; that holds for a mapping or keyed list that both sides added on their own, too
//     (merged as if the base had it empty).
// Documents are matched by DocumentRef (documents.h):
//   - by Kubernetes identity. When no downstream document has the exact identity of a
//     document that the base has, the downstream document with the same apiVersion, kind and
//     name is taken if there is exactly one, upstream has exactly one with that apiVersion,
//     kind and name, and none with its exact identity: a variant that moved its objects to
//     its own namespace still receives upgrades. (A document added upstream is matched
//     exactly only.) A merge into a document so matched that would change its identity is
//     undone: Conflict kUnmatchedDocument. A document whose identity occurs more than once,
//     upstream or downstream, is never merged: Conflict kDuplicateDocument.
//   - documents without an identity by position among such documents, and only when the
//     downstream has as many of them as the base or as the end; otherwise each change to them
//     is withheld with Conflict kUnmatchedDocument. Those added or removed upstream are added
//     or removed all together or not at all (kUnmatchedDocument for the ones that could have
//     been), and a merge that would give one an identity is undone (kUnmatchedDocument):
//     anything else would shift the positions of the others.
//
// Placement: an entry, item or document that upstream added goes right after the nearest one
// that precedes it upstream and exists downstream; failing that, right before the nearest one
// that follows it upstream and exists downstream; failing that, at the end. Documents without
// an identity are always added at the end. The downstream's order is otherwise kept; upstream
// reordering is not merged.
//
// Comments: the downstream's comments are kept. A value that E replaces keeps the comments of
// the value it replaces (E's own if that had none); added values bring E's comments.
//
// Idempotence: applying the same Change to Apply's own output changes nothing, reports no
// Override, and reports the same Conflicts again (a withheld change stays withheld).
//
// Thread safety: Apply only reads the Change and the Protection; concurrent calls are safe.

#ifndef CUB_LIB_CONFIG_MERGE_H_
#define CUB_LIB_CONFIG_MERGE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "lib/config/diff.h"
#include "lib/config/node.h"
#include "lib/config/protection.h"

namespace cub::config {

enum class ConflictReason : uint8_t {
  kProtectedPath,                    // the place is protected; D's value is kept
  kDeletedDownstream,                // upstream changed what D removed; it stays removed
  kRemovedUpstreamEditedDownstream,  // upstream removed what D edited; D's value is kept
  kListEditedDownstream,             // both changed an atomic list; D's list is kept
  kDuplicateDocument,                // the document's identity is not unique; not merged
  kUnmatchedDocument,                // an identity-less document could not be lined up, or its
                                     // merge would change its identity; not merged
};

// "ProtectedPath", "DeletedDownstream", "RemovedUpstreamEditedDownstream",
// "ListEditedDownstream", "DuplicateDocument", "UnmatchedDocument".
const char* ConflictReasonName(ConflictReason reason);

// An upstream change that the merge withheld.
struct Conflict {
  std::string path;  // FormatPath syntax (path.h), with its document prefix
  ConflictReason reason = ConflictReason::kProtectedPath;
  std::optional<Node> upstream;    // the withheld value (E's); nullopt: upstream removed it
  std::optional<Node> downstream;  // the value kept (D's); nullopt: D does not have it

  // `upstream` as compact JSON (json.h), or "" when upstream removed it.
  std::string UpstreamJson() const;
};

// A downstream edit that an upstream change replaced (both changed the place; upstream won).
struct Override {
  std::string path;  // as in Conflict
  Node downstream;   // the value D had
  Node upstream;     // the value E put in its place
};

struct MergeResult {
  std::vector<Node> documents;
  std::vector<Conflict> conflicts;  // in the order the Change visits places
  std::vector<Override> overrides;
  bool changed = false;  // documents differ from the downstream documents passed in
};

// Merges `change` into `downstream_docs`. The rvalue overload reuses the documents' storage
// (the one to call when each downstream is parsed only to be merged).
MergeResult Apply(const Change& change, const std::vector<Node>& downstream_docs,
                  const Protection& protection = Protection());
MergeResult Apply(const Change& change, std::vector<Node>&& downstream_docs,
                  const Protection& protection = Protection());

}  // namespace cub::config

#endif  // CUB_LIB_CONFIG_MERGE_H_
