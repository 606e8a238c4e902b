// The structural difference between two revisions of a Unit's documents: computed once per
// upstream Unit as a Change (ComputeChange), then applied to many downstream variants
// (merge.h), or listed as Mutations for `cub unit diff` and `-o mutations` (Diff).
//
// Documents are lined up by DocumentRef (documents.h). Within a document:
//   - mappings are compared key by key;
//   - lists with a merge key (merge_keys.h) item by item, items identified by that field's
//     value; a change of item order alone is no change;
//   - every other value (scalars, atomic lists, values whose kind changed) as one value.
// A value added where nothing was is one addition, however large (a Mutation of kind kAdd
// holding the whole value); Apply still merges it key by key into a downstream that added the
// same place on its own.
//
// Thread safety: a Change is immutable once computed; any number of threads may Apply it or
// list its Mutations concurrently.

#ifndef CUB_LIB_CONFIG_DIFF_H_
#define CUB_LIB_CONFIG_DIFF_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "lib/config/node.h"
#include "lib/config/path.h"

namespace cub::config {

struct DeltaChild;

// What changed at one place of a document. Part of a Change; built only by ComputeChange.
struct Delta {
  enum class Kind : uint8_t {
    kValue,    // added, replaced or removed as one value
    kMapping,  // per-key changes; `end` is a mapping, `base` a mapping or absent
    kList,     // per-item changes of a keyed list; `end` a sequence, `base` one or absent
  };
  Kind kind = Kind::kValue;
  // The value before and after, pointing into the Change's own copies of the documents;
  // nullptr where absent (base: added; end: removed). Never both nullptr.
  const Node* base = nullptr;
  const Node* end = nullptr;
  std::string merge_key;             // kList: the field that identifies items
  std::vector<DeltaChild> children;  // kMapping, kList: end order, then removals in base order
};

struct DeltaChild {
  std::string key;  // kMapping: the mapping key; kList: the item's merge-key text
  // The child's position in the parent's `end` (to place additions); npos when removed.
  size_t end_index = 0;
  Delta delta;
};

// The change to one document.
struct DocumentDelta {
  DocumentRef ref;       // the document's identity (base's, or end's when added)
  size_t end_index = 0;  // position among the end documents; npos when removed
  // The identity occurs more than once among the base or the end documents (invalid in
  // Kubernetes); such documents are never merged (merge.h reports kDuplicateDocument) and
  // `delta` then only points at the first occurrences.
  bool duplicated = false;
  Delta delta;  // base/end point at whole documents
};

// The upstream change from a base revision's documents to an end revision's. Holds its own
// copy of both, so it outlives its inputs; movable, not copyable (deltas point into it).
class Change {
 public:
  Change() = default;
  Change(Change&&) = default;
  Change& operator=(Change&&) = default;
  Change(const Change&) = delete;
  Change& operator=(const Change&) = delete;

  // True when base and end documents are equal (ignoring document order and formatting).
  bool empty() const { return documents_.empty(); }

  // Changed documents: end order, then removed documents in base order.
  const std::vector<DocumentDelta>& documents() const { return documents_; }
  const std::vector<Node>& base_documents() const { return base_; }
  const std::vector<Node>& end_documents() const { return end_; }
  // DocumentRefs(base_documents()) and DocumentRefs(end_documents()).
  const std::vector<DocumentRef>& base_refs() const { return base_refs_; }
  const std::vector<DocumentRef>& end_refs() const { return end_refs_; }

 private:
  friend Change ComputeChange(const std::vector<Node>& base_docs,
                              const std::vector<Node>& end_docs);

  std::vector<Node> base_;
  std::vector<Node> end_;
  std::vector<DocumentRef> base_refs_;
  std::vector<DocumentRef> end_refs_;
  std::vector<DocumentDelta> documents_;
};

// The change that turns `base_docs` into `end_docs`. Cost is linear in their size (mappings
// above a few dozen keys are indexed), paid once per upstream revision pair.
Change ComputeChange(const std::vector<Node>& base_docs, const std::vector<Node>& end_docs);

enum class MutationKind : uint8_t { kAdd, kReplace, kRemove };

// "Add", "Replace", "Remove".
const char* MutationKindName(MutationKind kind);

// One changed place, as `cub unit diff` and `-o mutations` list them.
struct Mutation {
  std::string path;  // FormatPath syntax, always with its document prefix
  MutationKind kind = MutationKind::kReplace;
  Node old_value;  // kReplace, kRemove; null for kAdd
  Node new_value;  // kAdd, kReplace; null for kRemove

  friend bool operator==(const Mutation& a, const Mutation& b) {
    return a.path == b.path && a.kind == b.kind && a.old_value == b.old_value &&
           a.new_value == b.new_value;
  }
};

// The Mutations of `change`, depth first in its order: an added or removed document, mapping
// entry or keyed-list item is one kAdd or kRemove of the whole value; a changed scalar or
// atomic list one kReplace. Documents with a duplicated identity appear as a kRemove of each
// base occurrence followed by a kAdd of each end occurrence.
std::vector<Mutation> Mutations(const Change& change);

// Mutations(ComputeChange(base_docs, new_docs)).
std::vector<Mutation> Diff(const std::vector<Node>& base_docs, const std::vector<Node>& new_docs);

}  // namespace cub::config

#endif  // CUB_LIB_CONFIG_DIFF_H_
