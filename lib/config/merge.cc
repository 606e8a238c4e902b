#include "lib/config/merge.h"

#include <algorithm>
#include <charconv>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "lib/config/documents.h"
#include "lib/config/json.h"

namespace cub::config {
namespace {

constexpr size_t kNpos = static_cast<size_t>(-1);

bool Same(const Node* a, const Node* b) {
  if (a == nullptr || b == nullptr) return a == b;
  return *a == *b;
}

// Whether `value` has the merge-key text `key` (ScalarText without allocating).
bool HasKeyText(const Node& value, std::string_view key) {
  switch (value.kind()) {
    case Node::Kind::kString:
      return value.AsString() == key;
    case Node::Kind::kInt: {
      char buf[24];
      auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), value.AsInt());
      return ec == std::errc() && std::string_view(buf, end - buf) == key;
    }
    case Node::Kind::kBool:
      return key == (value.AsBool() ? "true" : "false");
    default:
      return false;
  }
}

// The position of the first item of `items` whose `field` has the text `key`, or kNpos.
size_t FindItem(const Node::Sequence& items, const std::string& field, std::string_view key) {
  for (size_t i = 0; i < items.size(); ++i) {
    const Node* value = items[i].Find(field);
    if (value != nullptr && HasKeyText(*value, key)) return i;
  }
  return kNpos;
}

size_t FindEntry(const Node::Mapping& entries, std::string_view key) {
  for (size_t i = 0; i < entries.size(); ++i) {
    if (entries[i].first == key) return i;
  }
  return kNpos;
}

// Where to insert the element at `end_index` of the upstream container (of `end_size`
// elements), given `find(j)`, the downstream position of upstream element j or kNpos: after
// the nearest preceding element present downstream, else before the nearest following one,
// else at `size` (the end).
template <typename FindFn>
size_t InsertionPoint(size_t end_index, size_t end_size, size_t size, FindFn find) {
  for (size_t j = end_index; j-- > 0;) {
    if (size_t at = find(j); at != kNpos) return at + 1;
  }
  for (size_t j = end_index + 1; j < end_size; ++j) {
    if (size_t at = find(j); at != kNpos) return at;
  }
  return size;
}

std::string ApiKindName(const DocumentRef& ref) {
  return DocumentKey(DocumentRef{ref.api_version, ref.kind, "", ref.name, std::nullopt});
}

class Merger {
 public:
  Merger(const Change& change, const Protection& protection, MergeResult* result)
      : change_(change), protection_(protection), result_(*result) {}

  void Run(std::vector<Node> docs);

 private:
  enum class Action { kKeep, kSet, kErase };

  // One step of the current path: a mapping key (value == nullptr) or a keyed-list item.
  struct Step {
    const std::string* key;
    const std::string* value;
  };

  Action ApplyAt(const Delta& delta, Node* d, const ProtectionCursor& cursor);
  Action Decide(const Delta& delta, const Node* d, const ProtectionCursor& cursor);
  void ApplyMapping(const Delta& delta, Node& d, const ProtectionCursor& cursor);
  void ApplyList(const Delta& delta, Node& d, const ProtectionCursor& cursor);
  void SetValue(Node& slot, const Node& value);

  void AddConflict(ConflictReason reason, const Node* upstream, const Node* downstream);
  std::string CurrentPath() const;

  // Merges one whole document; returns whether it is to be removed. With keep_identity, a
  // merge that would change the document's Kubernetes identity is undone.
  bool MergeDocument(const DocumentDelta& dd, Node& d, const ProtectionCursor& cursor,
                     bool keep_identity);
  // Removes identity-less documents that upstream removed: all of them, or none.
  void RemovePositional(const std::vector<std::pair<const DocumentDelta*, size_t>>& removals,
                        const std::vector<Node>& docs, std::vector<bool>* removed);
  // Adds identity-less documents that upstream added (to `additions`): all of them, or none.
  void AddPositional(const std::vector<const DocumentDelta*>& added,
                     std::vector<const DocumentDelta*>* additions);
  // The downstream document that the upstream document `ref` corresponds to, or kNpos;
  // `ambiguous` is set when several have its identity, `exact` cleared when it was found by
  // the namespace fallback (tried only if allow_fallback).
  size_t MatchDocument(const DocumentRef& ref, bool allow_fallback, bool* ambiguous, bool* exact);
  void IndexUpstreamNames();

  // What the document deltas do to the downstream's documents, gathered before any is
  // removed or added, so that indexes into the downstream stay valid.
  struct Outcome {
    explicit Outcome(size_t docs) : removed(docs, false) {}
    std::vector<bool> removed;
    std::vector<const DocumentDelta*> additions;
    std::vector<std::pair<const DocumentDelta*, size_t>> positional_removals;
    std::vector<const DocumentDelta*> positional_additions;
  };
  // Indexes the downstream documents by identity (by_key_); returns the identity-less ones'
  // indexes in order.
  std::vector<size_t> IndexDocuments(const std::vector<Node>& docs);
  // Merges one document delta into `docs` or records what it does in `outcome`.
  void MergeDelta(const DocumentDelta& dd, std::vector<Node>& docs,
                  const std::vector<size_t>& positional, bool lined_up, Outcome& outcome);
  // The result's documents: the kept ones in order, the added ones placed as upstream has them.
  void Assemble(std::vector<Node> docs, const Outcome& outcome);

  const Change& change_;
  const Protection& protection_;
  MergeResult& result_;

  // The downstream documents' identities, and indexes over them.
  std::vector<DocumentRef> refs_;
  std::unordered_map<std::string, std::vector<size_t>> by_key_;
  // For the namespace fallback, built on first need: downstream documents by
  // apiVersion/kind/name, and how often upstream (base and end) has each identity and each
  // apiVersion/kind/name.
  bool names_indexed_ = false;
  std::unordered_map<std::string, std::vector<size_t>> by_name_;
  std::unordered_set<std::string> upstream_keys_;
  std::unordered_map<std::string, int> upstream_names_;

  DocumentRef doc_;  // the document being merged, for paths
  std::vector<Step> path_;
};

std::vector<size_t> Merger::IndexDocuments(const std::vector<Node>& docs) {
  refs_ = DocumentRefs(docs);
  std::vector<size_t> positional;
  for (size_t i = 0; i < refs_.size(); ++i) {
    by_key_[DocumentKey(refs_[i])].push_back(i);
    if (refs_[i].ordinal.has_value()) positional.push_back(i);
  }
  return positional;
}

void Merger::Run(std::vector<Node> docs) {
  const std::vector<size_t> positional = IndexDocuments(docs);
  auto count_positional = [](const std::vector<DocumentRef>& refs) {
    size_t n = 0;
    for (const DocumentRef& ref : refs) n += ref.ordinal.has_value() ? 1 : 0;
    return n;
  };
  // Identity-less documents line up by position only if the downstream has as many as the
  // base (not merged yet) or the end (merged already).
  const bool lined_up = positional.size() == count_positional(change_.base_refs()) ||
                        positional.size() == count_positional(change_.end_refs());

  Outcome outcome(docs.size());
  for (const DocumentDelta& dd : change_.documents()) {
    MergeDelta(dd, docs, positional, lined_up, outcome);
  }
  RemovePositional(outcome.positional_removals, docs, &outcome.removed);
  AddPositional(outcome.positional_additions, &outcome.additions);
  Assemble(std::move(docs), outcome);
}

void Merger::MergeDelta(const DocumentDelta& dd, std::vector<Node>& docs,
                        const std::vector<size_t>& positional, bool lined_up, Outcome& outcome) {
  path_.clear();
  size_t di = kNpos;
  bool exact = true;
  if (dd.ref.ordinal.has_value()) {
    doc_ = dd.ref;
    if (!lined_up) {
      AddConflict(ConflictReason::kUnmatchedDocument, dd.delta.end, nullptr);
      return;
    }
    if (*dd.ref.ordinal < positional.size()) di = positional[*dd.ref.ordinal];
    if (dd.delta.end == nullptr) {
      if (di != kNpos) outcome.positional_removals.emplace_back(&dd, di);
      return;
    }
    exact = false;
  } else {
    bool ambiguous = false;
    di = MatchDocument(dd.ref, /*allow_fallback=*/dd.delta.base != nullptr, &ambiguous, &exact);
    doc_ = di != kNpos ? refs_[di] : dd.ref;
    if (dd.duplicated || ambiguous) {
      AddConflict(ConflictReason::kDuplicateDocument, dd.delta.end,
                  di != kNpos ? &docs[di] : nullptr);
      return;
    }
  }
  const ProtectionCursor cursor = protection_.Start(doc_);
  if (di == kNpos) {
    // Only a protected path naming the whole document holds one the downstream lacks.
    if (dd.delta.end == nullptr) return;  // removed on both sides
    if (dd.ref.ordinal.has_value()) {
      outcome.positional_additions.push_back(&dd);  // dd.delta.base is nullptr: lined up
    } else if (cursor.holds()) {
      AddConflict(ConflictReason::kProtectedPath, dd.delta.end, nullptr);
    } else if (dd.delta.base == nullptr) {
      outcome.additions.push_back(&dd);
    } else {
      AddConflict(ConflictReason::kDeletedDownstream, dd.delta.end, nullptr);
    }
    return;
  }
  if (MergeDocument(dd, docs[di], cursor, /*keep_identity=*/!exact)) outcome.removed[di] = true;
}

void Merger::Assemble(std::vector<Node> docs, const Outcome& outcome) {
  const std::vector<bool>& removed = outcome.removed;
  const bool any_removed = std::find(removed.begin(), removed.end(), true) != removed.end();
  if (outcome.additions.empty() && !any_removed) {
    result_.documents = std::move(docs);
    return;
  }
  result_.changed = true;
  // Each kept downstream document's position among the end documents, for placement.
  std::vector<size_t> end_index_of(docs.size(), kNpos);
  if (!outcome.additions.empty()) {
    for (size_t j = 0; j < change_.end_refs().size(); ++j) {
      const DocumentRef& ref = change_.end_refs()[j];
      if (ref.ordinal.has_value()) continue;
      auto it = by_key_.find(DocumentKey(ref));
      if (it != by_key_.end() && it->second.size() == 1) end_index_of[it->second.front()] = j;
    }
  }
  std::vector<Node>& out = result_.documents;
  std::vector<size_t> out_end_index;
  for (size_t i = 0; i < docs.size(); ++i) {
    if (removed[i]) continue;
    out.push_back(std::move(docs[i]));
    out_end_index.push_back(end_index_of[i]);
  }
  // Identity-less documents go last, so that those already there keep their positions.
  for (const DocumentDelta* dd : outcome.additions) {
    size_t at = out.size();
    if (!dd->ref.ordinal.has_value()) {
      at = InsertionPoint(dd->end_index, change_.end_documents().size(), out.size(), [&](size_t j) {
        for (size_t k = 0; k < out_end_index.size(); ++k) {
          if (out_end_index[k] == j) return k;
        }
        return kNpos;
      });
    }
    out.insert(out.begin() + at, *dd->delta.end);
    out_end_index.insert(out_end_index.begin() + at, dd->end_index);
  }
}

bool Merger::MergeDocument(const DocumentDelta& dd, Node& d, const ProtectionCursor& cursor,
                           bool keep_identity) {
  // A document matched other than by its own identity must keep the identity it has (or its
  // lack of one): matching it again must find it again, or Apply would not be idempotent.
  std::optional<Node> saved;
  size_t conflicts = 0, overrides = 0;
  bool changed = false;
  if (keep_identity) {
    saved = d;
    conflicts = result_.conflicts.size();
    overrides = result_.overrides.size();
    changed = result_.changed;
  }
  switch (ApplyAt(dd.delta, &d, cursor)) {
    case Action::kSet:
      SetValue(d, *dd.delta.end);
      break;
    case Action::kErase:
      return true;
    case Action::kKeep:
      break;
  }
  if (keep_identity && KubernetesRef(d) != KubernetesRef(*saved)) {
    d = *std::move(saved);
    result_.conflicts.resize(conflicts);
    result_.overrides.resize(overrides);
    result_.changed = changed;
    AddConflict(ConflictReason::kUnmatchedDocument, dd.delta.end, &d);
  }
  return false;
}

void Merger::RemovePositional(const std::vector<std::pair<const DocumentDelta*, size_t>>& removals,
                              const std::vector<Node>& docs, std::vector<bool>* removed) {
  // All or none: removing only some would shift the positions of those after them.
  std::vector<bool> removable;
  bool all = true;
  for (const auto& [dd, di] : removals) {
    const ProtectionCursor cursor = protection_.Start(refs_[di]);
    removable.push_back(Same(&docs[di], dd->delta.base) && !cursor.holds() &&
                        !cursor.ChangesProtected(&docs[di], nullptr));
    all = all && removable.back();
  }
  for (size_t r = 0; r < removals.size(); ++r) {
    const auto& [dd, di] = removals[r];
    if (all) {
      (*removed)[di] = true;
      continue;
    }
    doc_ = refs_[di];
    path_.clear();
    if (removable[r]) {
      AddConflict(ConflictReason::kUnmatchedDocument, nullptr, &docs[di]);
    } else {
      Decide(dd->delta, &docs[di], protection_.Start(refs_[di]));
    }
  }
}

void Merger::AddPositional(const std::vector<const DocumentDelta*>& added,
                           std::vector<const DocumentDelta*>* additions) {
  // All or none, as for removals: a document held back would shift those added after it.
  bool all = true;
  for (const DocumentDelta* dd : added) all = all && !protection_.Start(dd->ref).holds();
  for (const DocumentDelta* dd : added) {
    if (all) {
      additions->push_back(dd);
      continue;
    }
    doc_ = dd->ref;
    path_.clear();
    AddConflict(protection_.Start(dd->ref).holds() ? ConflictReason::kProtectedPath
                                                   : ConflictReason::kUnmatchedDocument,
                dd->delta.end, nullptr);
  }
}

size_t Merger::MatchDocument(const DocumentRef& ref, bool allow_fallback, bool* ambiguous,
                             bool* exact) {
  *exact = true;
  auto it = by_key_.find(DocumentKey(ref));
  if (it != by_key_.end()) {
    *ambiguous = it->second.size() > 1;
    return it->second.front();
  }
  if (!allow_fallback) return kNpos;
  // The namespace fallback (see merge.h).
  IndexUpstreamNames();
  const std::string name = ApiKindName(ref);
  auto upstream = upstream_names_.find(name);
  if (upstream == upstream_names_.end() || upstream->second != 1) return kNpos;
  auto candidates = by_name_.find(name);
  if (candidates == by_name_.end()) return kNpos;
  size_t found = kNpos;
  for (size_t i : candidates->second) {
    if (upstream_keys_.count(DocumentKey(refs_[i])) > 0) continue;
    if (found != kNpos) return kNpos;  // more than one: no guess
    found = i;
  }
  *exact = false;
  return found;
}

void Merger::IndexUpstreamNames() {
  if (names_indexed_) return;
  names_indexed_ = true;
  for (size_t i = 0; i < refs_.size(); ++i) {
    if (!refs_[i].ordinal.has_value()) by_name_[ApiKindName(refs_[i])].push_back(i);
  }
  std::unordered_set<std::string> seen;
  auto add = [&](const DocumentRef& ref) {
    if (ref.ordinal.has_value()) return;
    const std::string key = DocumentKey(ref);
    upstream_keys_.insert(key);
    if (seen.insert(key).second) ++upstream_names_[ApiKindName(ref)];
  };
  for (const DocumentRef& ref : change_.base_refs()) add(ref);
  for (const DocumentRef& ref : change_.end_refs()) add(ref);
}

Merger::Action Merger::ApplyAt(const Delta& delta, Node* d, const ProtectionCursor& cursor) {
  if (d != nullptr) {
    if (delta.kind == Delta::Kind::kMapping && d->IsMapping()) {
      ApplyMapping(delta, *d, cursor);
      return Action::kKeep;
    }
    if (delta.kind == Delta::Kind::kList && d->IsSequence()) {
      ApplyList(delta, *d, cursor);
      return Action::kKeep;
    }
  }
  return Decide(delta, d, cursor);
}

Merger::Action Merger::Decide(const Delta& delta, const Node* d, const ProtectionCursor& cursor) {
  const Node* base = delta.base;
  const Node* end = delta.end;
  if (Same(d, end)) return Action::kKeep;
  if (cursor.holds() || cursor.ChangesProtected(d, end)) {
    AddConflict(ConflictReason::kProtectedPath, end, d);
    return Action::kKeep;
  }
  if (Same(d, base)) return end != nullptr ? Action::kSet : Action::kErase;
  if (d == nullptr) {
    AddConflict(ConflictReason::kDeletedDownstream, end, d);
    return Action::kKeep;
  }
  if (end == nullptr) {
    AddConflict(ConflictReason::kRemovedUpstreamEditedDownstream, end, d);
    return Action::kKeep;
  }
  if (d->IsSequence() && end->IsSequence()) {
    AddConflict(ConflictReason::kListEditedDownstream, end, d);
    return Action::kKeep;
  }
  result_.overrides.push_back(Override{CurrentPath(), *d, *end});
  return Action::kSet;
}

void Merger::ApplyMapping(const Delta& delta, Node& d, const ProtectionCursor& cursor) {
  for (const DeltaChild& child : delta.children) {
    path_.push_back(Step{&child.key, nullptr});
    Node* value = d.Find(child.key);
    switch (ApplyAt(child.delta, value, cursor.IntoKey(child.key))) {
      case Action::kSet:
        if (value != nullptr) {
          SetValue(*value, *child.delta.end);
        } else {
          Node::Mapping& entries = d.MutableMapping();
          const Node::Mapping& end_entries = delta.end->AsMapping();
          const size_t at =
              InsertionPoint(child.end_index, end_entries.size(), entries.size(),
                             [&](size_t j) { return FindEntry(entries, end_entries[j].first); });
          entries.emplace(entries.begin() + at, child.key, *child.delta.end);
          result_.changed = true;
        }
        break;
      case Action::kErase:
        d.Erase(child.key);
        result_.changed = true;
        break;
      case Action::kKeep:
        break;
    }
    path_.pop_back();
  }
}

void Merger::ApplyList(const Delta& delta, Node& d, const ProtectionCursor& cursor) {
  const std::string& field = delta.merge_key;
  Node::Sequence& items = d.MutableSequence();
  for (const DeltaChild& child : delta.children) {
    path_.push_back(Step{&field, &child.key});
    if (child.delta.end == nullptr) {
      // Removed upstream: every downstream item with the key, so that a duplicate left
      // behind cannot be removed by a second application.
      for (size_t i = items.size(); i-- > 0;) {
        const Node* value = items[i].Find(field);
        if (value == nullptr || !HasKeyText(*value, child.key)) continue;
        if (ApplyAt(child.delta, &items[i], cursor.IntoItem(items[i], i)) == Action::kErase) {
          items.erase(items.begin() + i);
          result_.changed = true;
        }
      }
      path_.pop_back();
      continue;
    }
    const size_t i = FindItem(items, field, child.key);
    Node* item = i != kNpos ? &items[i] : nullptr;
    const ProtectionCursor item_cursor =
        item != nullptr ? cursor.IntoItem(*item, i) : cursor.IntoItem(*child.delta.end, {});
    if (ApplyAt(child.delta, item, item_cursor) == Action::kSet) {
      if (item != nullptr) {
        SetValue(*item, *child.delta.end);
      } else {
        const Node::Sequence& end_items = delta.end->AsSequence();
        const size_t at =
            InsertionPoint(child.end_index, end_items.size(), items.size(), [&](size_t j) {
              const Node* key = end_items[j].Find(field);
              std::optional<std::string> text = key ? ScalarText(*key) : std::nullopt;
              return text.has_value() ? FindItem(items, field, *text) : kNpos;
            });
        items.insert(items.begin() + at, *child.delta.end);
        result_.changed = true;
      }
    }
    path_.pop_back();
  }
}

void Merger::SetValue(Node& slot, const Node& value) {
  Node copy = value;
  if (slot.comments() != nullptr) copy.CopyCommentsFrom(slot);  // the downstream's comments
  slot = std::move(copy);
  result_.changed = true;
}

void Merger::AddConflict(ConflictReason reason, const Node* upstream, const Node* downstream) {
  Conflict c;
  c.path = CurrentPath();
  c.reason = reason;
  if (upstream != nullptr) c.upstream = *upstream;
  if (downstream != nullptr) c.downstream = *downstream;
  result_.conflicts.push_back(std::move(c));
}

std::string Merger::CurrentPath() const {
  Path path;
  path.document = doc_;
  path.segments.reserve(path_.size());
  for (const Step& step : path_) {
    path.segments.push_back(step.value == nullptr ? PathSegment::Key(*step.key)
                                                  : PathSegment::Selector(*step.key, *step.value));
  }
  return FormatPath(path);
}

}  // namespace

const char* ConflictReasonName(ConflictReason reason) {
  switch (reason) {
    case ConflictReason::kProtectedPath:
      return "ProtectedPath";
    case ConflictReason::kDeletedDownstream:
      return "DeletedDownstream";
    case ConflictReason::kRemovedUpstreamEditedDownstream:
      return "RemovedUpstreamEditedDownstream";
    case ConflictReason::kListEditedDownstream:
      return "ListEditedDownstream";
    case ConflictReason::kDuplicateDocument:
      return "DuplicateDocument";
    case ConflictReason::kUnmatchedDocument:
      return "UnmatchedDocument";
  }
  return "Unknown";
}

std::string Conflict::UpstreamJson() const {
  return upstream.has_value() ? EmitJson(*upstream, /*pretty=*/false) : std::string();
}

MergeResult Apply(const Change& change, const std::vector<Node>& downstream_docs,
                  const Protection& protection) {
  return Apply(change, std::vector<Node>(downstream_docs), protection);
}

MergeResult Apply(const Change& change, std::vector<Node>&& downstream_docs,
                  const Protection& protection) {
  MergeResult result;
  Merger(change, protection, &result).Run(std::move(downstream_docs));
  return result;
}

}  // namespace cub::config
