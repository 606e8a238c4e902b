#include "lib/config/node.h"

#include <algorithm>
#include <cmath>

namespace cub::config {
namespace {

// Below this size, comparing mappings entry by entry beats sorting them.
constexpr size_t kSmallMapping = 16;

bool FloatsEqual(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  return a == b && std::signbit(a) == std::signbit(b);
}

bool MappingsEqual(const Node::Mapping& a, const Node::Mapping& b) {
  if (a.size() != b.size()) return false;
  if (a.size() <= kSmallMapping) {
    for (const auto& [key, value] : a) {
      const Node* other = nullptr;
      for (const auto& e : b) {
        if (e.first == key) {
          other = &e.second;
          break;
        }
      }
      if (other == nullptr || !(value == *other)) return false;
    }
    return true;
  }
  std::vector<const Node::Entry*> sa, sb;
  sa.reserve(a.size());
  sb.reserve(b.size());
  for (const auto& e : a) sa.push_back(&e);
  for (const auto& e : b) sb.push_back(&e);
  auto by_key = [](const Node::Entry* x, const Node::Entry* y) { return x->first < y->first; };
  std::stable_sort(sa.begin(), sa.end(), by_key);
  std::stable_sort(sb.begin(), sb.end(), by_key);
  for (size_t i = 0; i < sa.size(); ++i) {
    if (sa[i]->first != sb[i]->first || !(sa[i]->second == sb[i]->second)) return false;
  }
  return true;
}

}  // namespace

Node Node::String(std::string v, StringStyle style) {
  Node n(Value(std::in_place_index<4>, std::move(v)));
  n.style_ = style;
  return n;
}

void Node::set_comments(Comments comments) {
  if (comments.empty()) {
    comments_.reset();
  } else {
    comments_ = std::make_shared<const Comments>(std::move(comments));
  }
}

size_t Node::size() const {
  if (IsSequence()) return AsSequence().size();
  if (IsMapping()) return AsMapping().size();
  return 0;
}

const Node* Node::Find(std::string_view key) const {
  if (!IsMapping()) return nullptr;
  for (const auto& e : AsMapping()) {
    if (e.first == key) return &e.second;
  }
  return nullptr;
}

Node* Node::Find(std::string_view key) {
  return const_cast<Node*>(static_cast<const Node*>(this)->Find(key));
}

Node& Node::Set(std::string_view key, Node value) {
  if (IsNull()) *this = Map();
  if (Node* existing = Find(key)) {
    std::shared_ptr<const Comments> comments = std::move(existing->comments_);
    *existing = std::move(value);
    if (existing->comments_ == nullptr) existing->comments_ = std::move(comments);
    return *existing;
  }
  Mapping& m = MutableMapping();
  m.emplace_back(std::string(key), std::move(value));
  return m.back().second;
}

bool Node::Erase(std::string_view key) {
  if (!IsMapping()) return false;
  Mapping& m = MutableMapping();
  for (auto it = m.begin(); it != m.end(); ++it) {
    if (it->first == key) {
      m.erase(it);
      return true;
    }
  }
  return false;
}

Node& Node::Append(Node value) {
  if (IsNull()) *this = Seq();
  Sequence& s = MutableSequence();
  s.push_back(std::move(value));
  return s.back();
}

bool operator==(const Node& a, const Node& b) {
  if (a.kind() != b.kind()) return false;
  switch (a.kind()) {
    case Node::Kind::kNull:
      return true;
    case Node::Kind::kBool:
      return a.AsBool() == b.AsBool();
    case Node::Kind::kInt:
      return a.AsInt() == b.AsInt();
    case Node::Kind::kFloat:
      return FloatsEqual(a.AsFloat(), b.AsFloat());
    case Node::Kind::kString:
      return a.AsString() == b.AsString();
    case Node::Kind::kSequence:
      return a.AsSequence() == b.AsSequence();
    case Node::Kind::kMapping:
      return MappingsEqual(a.AsMapping(), b.AsMapping());
  }
  return false;
}

const char* KindName(Node::Kind kind) {
  switch (kind) {
    case Node::Kind::kNull:
      return "null";
    case Node::Kind::kBool:
      return "bool";
    case Node::Kind::kInt:
      return "int";
    case Node::Kind::kFloat:
      return "float";
    case Node::Kind::kString:
      return "string";
    case Node::Kind::kSequence:
      return "sequence";
    case Node::Kind::kMapping:
      return "mapping";
  }
  return "unknown";
}

}  // namespace cub::config
