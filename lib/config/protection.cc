#include "lib/config/protection.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "lib/config/documents.h"

namespace cub::config {

// One step down a document.
struct ProtectionCursor::Step {
  const std::string_view* key = nullptr;  // a mapping key, or
  const Node* item = nullptr;             // a sequence item
  std::optional<size_t> index;
};

namespace {

bool SegmentMatches(const PathSegment& segment, const std::string_view* key, const Node* item,
                    std::optional<size_t> index) {
  switch (segment.kind) {
    case PathSegment::Kind::kKey:
      return key != nullptr && *key == segment.key;
    case PathSegment::Kind::kIndex:
      return item != nullptr && index.has_value() && *index == segment.index;
    case PathSegment::Kind::kSelector: {
      if (item == nullptr) return false;
      const Node* field = item->Find(segment.key);
      if (field == nullptr) return false;
      std::optional<std::string> text = ScalarText(*field);
      return text.has_value() && *text == segment.value;
    }
    case PathSegment::Kind::kAny:
    case PathSegment::Kind::kAnyDepth:
      return true;
  }
  return false;
}

// The protected places under `node` (which the cursor stands at), keyed by their position
// relative to it.
void Collect(const ProtectionCursor& cursor, const Node* node, const std::string& where,
             std::vector<std::pair<std::string, const Node*>>* out) {
  if (node == nullptr) return;
  if (cursor.holds()) {
    out->emplace_back(where, node);
    return;
  }
  if (!cursor.below()) return;
  if (node->IsMapping()) {
    for (const auto& [key, value] : node->AsMapping()) {
      Collect(cursor.IntoKey(key), &value, absl::StrCat(where, ".", key.size(), ":", key), out);
    }
  } else if (node->IsSequence()) {
    const Node::Sequence& items = node->AsSequence();
    for (size_t i = 0; i < items.size(); ++i) {
      Collect(cursor.IntoItem(items[i], i), &items[i], absl::StrCat(where, "[", i, "]"), out);
    }
  }
}

}  // namespace

absl::StatusOr<Protection> Protection::Parse(const std::vector<std::string>& paths) {
  std::vector<Path> patterns;
  patterns.reserve(paths.size());
  for (const std::string& text : paths) {
    absl::StatusOr<Path> path = ParsePath(text);
    if (!path.ok()) {
      return absl::InvalidArgumentError(absl::StrCat("protected path: ", path.status().message()));
    }
    patterns.push_back(*std::move(path));
  }
  return Protection(std::move(patterns));
}

ProtectionCursor Protection::Start(const DocumentRef& doc) const {
  ProtectionCursor cursor;
  cursor.protection_ = this;
  for (size_t p = 0; p < patterns_.size(); ++p) {
    const Path& pattern = patterns_[p];
    if (pattern.document.has_value() && !DocumentMatches(*pattern.document, doc)) continue;
    cursor.states_.emplace_back(static_cast<uint32_t>(p), 0);
  }
  cursor.Close();
  return cursor;
}

void ProtectionCursor::Close() {
  // "**" may match no segment: a state before one also stands after it.
  for (size_t i = 0; i < states_.size(); ++i) {
    const auto [p, s] = states_[i];
    const std::vector<PathSegment>& segments = protection_->patterns()[p].segments;
    if (s < segments.size() && segments[s].kind == PathSegment::Kind::kAnyDepth) {
      const std::pair<uint32_t, uint32_t> next(p, s + 1);
      if (std::find(states_.begin(), states_.end(), next) == states_.end()) {
        states_.push_back(next);
      }
    }
  }
  for (const auto& [p, s] : states_) {
    if (s == protection_->patterns()[p].segments.size()) holds_ = true;
  }
  if (holds_) states_.clear();  // everything below is protected anyway
}

ProtectionCursor ProtectionCursor::Into(const Step& step) const {
  ProtectionCursor next;
  next.protection_ = protection_;
  next.holds_ = holds_;
  if (holds_ || states_.empty()) return next;
  for (const auto& [p, s] : states_) {
    const std::vector<PathSegment>& segments = protection_->patterns()[p].segments;
    if (s >= segments.size()) continue;
    const PathSegment& segment = segments[s];
    if (!SegmentMatches(segment, step.key, step.item, step.index)) continue;
    // "**" consumes the step and may consume more; anything else moves on.
    const std::pair<uint32_t, uint32_t> to(
        p, segment.kind == PathSegment::Kind::kAnyDepth ? s : s + 1);
    if (std::find(next.states_.begin(), next.states_.end(), to) == next.states_.end()) {
      next.states_.push_back(to);
    }
  }
  next.Close();
  return next;
}

ProtectionCursor ProtectionCursor::IntoKey(std::string_view key) const {
  if (holds_ || states_.empty()) return *this;
  Step step;
  step.key = &key;
  return Into(step);
}

ProtectionCursor ProtectionCursor::IntoItem(const Node& item, std::optional<size_t> index) const {
  if (holds_ || states_.empty()) return *this;
  Step step;
  step.item = &item;
  step.index = index;
  return Into(step);
}

bool ProtectionCursor::ChangesProtected(const Node* current, const Node* replacement) const {
  if (states_.empty()) return false;
  std::vector<std::pair<std::string, const Node*>> a, b;
  Collect(*this, current, "", &a);
  Collect(*this, replacement, "", &b);
  if (a.size() != b.size()) return true;
  auto by_place = [](const auto& x, const auto& y) { return x.first < y.first; };
  std::sort(a.begin(), a.end(), by_place);
  std::sort(b.begin(), b.end(), by_place);
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].first != b[i].first || *a[i].second != *b[i].second) return true;
  }
  return false;
}

}  // namespace cub::config
