#include "lib/config/diff.h"

#include <string_view>
#include <unordered_map>
#include <utility>

#include "lib/config/documents.h"
#include "lib/config/merge_keys.h"

namespace cub::config {
namespace {

constexpr size_t kNpos = static_cast<size_t>(-1);
// Mappings up to this size are searched by a linear scan; larger ones through a hash index.
constexpr size_t kSmallMapping = 32;

// Finds mapping entries by key, indexing large mappings once.
class KeyLookup {
 public:
  explicit KeyLookup(const Node::Mapping& entries) : entries_(entries) {
    if (entries.size() <= kSmallMapping) return;
    index_.reserve(entries.size());
    for (const auto& e : entries) index_.emplace(e.first, &e.second);  // first one wins
  }

  const Node* Find(std::string_view key) const {
    if (entries_.size() <= kSmallMapping) {
      for (const auto& e : entries_) {
        if (e.first == key) return &e.second;
      }
      return nullptr;
    }
    auto it = index_.find(key);
    return it == index_.end() ? nullptr : it->second;
  }

 private:
  const Node::Mapping& entries_;
  std::unordered_map<std::string_view, const Node*> index_;
};

// The merge-key text of a list item; the caller has checked it exists (ListMergeKey).
std::string ItemKey(const Node& item, const std::string& field) {
  return *ScalarText(*item.Find(field));
}

bool BuildDelta(const Node* base, const Node* end, std::string_view parent_key, Delta* out);

// `end` is a mapping; `base` a mapping or nullptr.
void BuildMappingDelta(const Node* base, const Node* end, Delta* out) {
  out->kind = Delta::Kind::kMapping;
  out->base = base;
  out->end = end;
  const Node::Mapping& end_entries = end->AsMapping();
  if (base == nullptr) {
    for (size_t i = 0; i < end_entries.size(); ++i) {
      DeltaChild child{end_entries[i].first, i, Delta()};
      BuildDelta(nullptr, &end_entries[i].second, end_entries[i].first, &child.delta);
      out->children.push_back(std::move(child));
    }
    return;
  }
  const KeyLookup base_keys(base->AsMapping());
  for (size_t i = 0; i < end_entries.size(); ++i) {
    DeltaChild child{end_entries[i].first, i, Delta()};
    if (BuildDelta(base_keys.Find(end_entries[i].first), &end_entries[i].second,
                   end_entries[i].first, &child.delta)) {
      out->children.push_back(std::move(child));
    }
  }
  const KeyLookup end_keys(end_entries);
  for (const auto& [key, value] : base->AsMapping()) {
    if (end_keys.Find(key) != nullptr) continue;
    DeltaChild child{key, kNpos, Delta()};
    child.delta.base = &value;
    out->children.push_back(std::move(child));
  }
}

// `end` is a sequence; `base` a sequence or nullptr; `field` identifies the items of both.
void BuildListDelta(const Node* base, const Node* end, const std::string& field, Delta* out) {
  out->kind = Delta::Kind::kList;
  out->base = base;
  out->end = end;
  out->merge_key = field;
  std::unordered_map<std::string, const Node*> base_items;
  if (base != nullptr) {
    for (const Node& item : base->AsSequence()) base_items.emplace(ItemKey(item, field), &item);
  }
  std::unordered_map<std::string, size_t> end_items;
  const Node::Sequence& end_seq = end->AsSequence();
  for (size_t i = 0; i < end_seq.size(); ++i) {
    DeltaChild child{ItemKey(end_seq[i], field), i, Delta()};
    end_items.emplace(child.key, i);
    auto it = base_items.find(child.key);
    const Node* base_item = it == base_items.end() ? nullptr : it->second;
    if (BuildDelta(base_item, &end_seq[i], "", &child.delta)) {
      out->children.push_back(std::move(child));
    }
  }
  if (base == nullptr) return;
  for (const Node& item : base->AsSequence()) {
    std::string key = ItemKey(item, field);
    if (end_items.count(key) > 0) continue;
    DeltaChild child{std::move(key), kNpos, Delta()};
    child.delta.base = &item;
    out->children.push_back(std::move(child));
  }
}

// Fills `out` with the change from `base` to `end` (either may be nullptr: absent) stored
// under `parent_key`; returns false when there is none.
bool BuildDelta(const Node* base, const Node* end, std::string_view parent_key, Delta* out) {
  if (end == nullptr) {
    if (base == nullptr) return false;
    out->kind = Delta::Kind::kValue;
    out->base = base;
    return true;
  }
  if (base == nullptr || base->kind() == end->kind()) {
    if (end->IsMapping()) {
      BuildMappingDelta(base, end, out);
      return base == nullptr || !out->children.empty();
    }
    if (end->IsSequence()) {
      if (std::optional<std::string> field = ListMergeKey(parent_key, base, end)) {
        BuildListDelta(base, end, *field, out);
        return base == nullptr || !out->children.empty();
      }
    }
  }
  if (base != nullptr && *base == *end) return false;
  out->kind = Delta::Kind::kValue;
  out->base = base;
  out->end = end;
  return true;
}

bool SameDocuments(const std::vector<Node>& a_docs, const std::vector<size_t>& a,
                   const std::vector<Node>& b_docs, const std::vector<size_t>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a_docs[a[i]] != b_docs[b[i]]) return false;
  }
  return true;
}

// Mutations of one document, collected depth first.
class MutationWriter {
 public:
  explicit MutationWriter(std::vector<Mutation>* out) : out_(*out) {}

  // Starts a document: the mutations that follow are in it.
  void SetDocument(const DocumentRef& ref) {
    path_.document = ref;
    path_.segments.clear();
  }

  void Walk(const Delta& delta) {
    if (delta.kind == Delta::Kind::kValue || delta.base == nullptr) {
      Emit(delta.base, delta.end);
      return;
    }
    for (const DeltaChild& child : delta.children) {
      path_.segments.push_back(delta.kind == Delta::Kind::kMapping
                                   ? PathSegment::Key(child.key)
                                   : PathSegment::Selector(delta.merge_key, child.key));
      Walk(child.delta);
      path_.segments.pop_back();
    }
  }

  // `base` and `end` are never both nullptr.
  void Emit(const Node* base, const Node* end) {
    Mutation m;
    m.path = FormatPath(path_);
    if (base == nullptr) {
      m.kind = MutationKind::kAdd;
      m.new_value = *end;
    } else if (end == nullptr) {
      m.kind = MutationKind::kRemove;
      m.old_value = *base;
    } else {
      m.kind = MutationKind::kReplace;
      m.old_value = *base;
      m.new_value = *end;
    }
    out_.push_back(std::move(m));
  }

 private:
  std::vector<Mutation>& out_;
  Path path_;
};

}  // namespace

Change ComputeChange(const std::vector<Node>& base_docs, const std::vector<Node>& end_docs) {
  Change change;
  change.base_ = base_docs;
  change.end_ = end_docs;
  change.base_refs_ = DocumentRefs(change.base_);
  const std::vector<DocumentRef>& base_refs = change.base_refs_;
  change.end_refs_ = DocumentRefs(change.end_);
  std::unordered_map<std::string, std::vector<size_t>> base_by_key, end_by_key;
  std::vector<std::string> base_keys, end_keys;
  for (size_t i = 0; i < base_refs.size(); ++i) {
    base_keys.push_back(DocumentKey(base_refs[i]));
    base_by_key[base_keys.back()].push_back(i);
  }
  for (size_t j = 0; j < change.end_refs_.size(); ++j) {
    end_keys.push_back(DocumentKey(change.end_refs_[j]));
    end_by_key[end_keys.back()].push_back(j);
  }
  static const std::vector<size_t> kNone;

  for (size_t j = 0; j < change.end_.size(); ++j) {
    const std::vector<size_t>& ends = end_by_key[end_keys[j]];
    auto it = base_by_key.find(end_keys[j]);
    const std::vector<size_t>& bases = it == base_by_key.end() ? kNone : it->second;
    const Node* base = bases.empty() ? nullptr : &change.base_[bases.front()];
    DocumentDelta doc{change.end_refs_[j], j, false, Delta()};
    if (ends.size() > 1 || bases.size() > 1) {
      // Report a duplicated identity once, at its first occurrence, if anything changed.
      if (ends.front() != j || SameDocuments(change.base_, bases, change.end_, ends)) continue;
      doc.duplicated = true;
      doc.delta.base = base;
      doc.delta.end = &change.end_[j];
      change.documents_.push_back(std::move(doc));
      continue;
    }
    if (BuildDelta(base, &change.end_[j], "", &doc.delta)) {
      change.documents_.push_back(std::move(doc));
    }
  }
  for (size_t i = 0; i < change.base_.size(); ++i) {
    if (end_by_key.count(base_keys[i]) > 0) continue;  // handled above
    const std::vector<size_t>& bases = base_by_key[base_keys[i]];
    if (bases.front() != i) continue;
    DocumentDelta doc{base_refs[i], kNpos, bases.size() > 1, Delta()};
    doc.delta.base = &change.base_[i];
    change.documents_.push_back(std::move(doc));
  }
  return change;
}

const char* MutationKindName(MutationKind kind) {
  switch (kind) {
    case MutationKind::kAdd:
      return "Add";
    case MutationKind::kReplace:
      return "Replace";
    case MutationKind::kRemove:
      return "Remove";
  }
  return "Unknown";
}

std::vector<Mutation> Mutations(const Change& change) {
  std::vector<Mutation> out;
  MutationWriter writer(&out);
  const std::vector<DocumentRef>& base_refs = change.base_refs();
  for (const DocumentDelta& doc : change.documents()) {
    writer.SetDocument(doc.ref);
    if (!doc.duplicated) {
      writer.Walk(doc.delta);
      continue;
    }
    for (size_t i = 0; i < base_refs.size(); ++i) {
      if (base_refs[i] == doc.ref) writer.Emit(&change.base_documents()[i], nullptr);
    }
    for (size_t j = 0; j < change.end_refs().size(); ++j) {
      if (change.end_refs()[j] == doc.ref) writer.Emit(nullptr, &change.end_documents()[j]);
    }
  }
  return out;
}

std::vector<Mutation> Diff(const std::vector<Node>& base_docs, const std::vector<Node>& new_docs) {
  return Mutations(ComputeChange(base_docs, new_docs));
}

}  // namespace cub::config
