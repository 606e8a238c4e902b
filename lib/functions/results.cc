#include "lib/functions/results.h"

#include "lib/functions/display_path.h"
#include "lib/functions/kubernetes.h"

namespace cub::functions {

using config::Node;

std::string DescribeValue(const Node& node) {
  switch (node.kind()) {
    case Node::Kind::kNull:
      return "null";
    case Node::Kind::kSequence:
      return "a sequence";
    case Node::Kind::kMapping:
      return "a mapping";
    default:
      return std::string(config::KindName(node.kind())) + " " + config::EmitJson(node, false);
  }
}

const std::string& DocumentEdits::label() {
  if (label_.empty()) label_ = ResourceLabel(doc_, index_);
  return label_;
}

Mutation DocumentEdits::Begin(std::string path, const Node* old_value) {
  Mutation m;
  m.document = index_;
  m.resource = label();
  m.path = std::move(path);
  if (old_value != nullptr) m.old_value = config::EmitJson(*old_value, false);
  return m;
}

void DocumentEdits::Finish(Mutation m, const Node& new_value) {
  m.new_value = config::EmitJson(new_value, false);
  result_->mutations.push_back(std::move(m));
}

void DocumentEdits::Store(Node& target, Node value) {
  if (target.IsString() && value.IsString()) {
    target.MutableString() = std::move(value.MutableString());
    if (target.string_style() == config::StringStyle::kPlain) {
      target.set_string_style(config::StringStyle::kAuto);
    }
    return;
  }
  if (value.comments() == nullptr) value.CopyCommentsFrom(target);
  target = std::move(value);
}

void DocumentEdits::Added(std::string path, const Node& value) {
  Finish(Begin(std::move(path), nullptr), value);
}

absl::Status DocumentEdits::Error(std::string_view path, std::string_view problem) {
  return absl::FailedPreconditionError(label() + ": " + std::string(path) + ": " +
                                       std::string(problem));
}

absl::Status DocumentEdits::SetIn(Node& root, std::string_view root_path,
                                  std::initializer_list<std::string_view> keys, Node value) {
  // Check the whole way first, so that a refusal changes nothing.
  std::string path(root_path);
  const Node* probe = &root;
  for (std::string_view key : keys) {
    if (probe != nullptr && !probe->IsMapping() && !probe->IsNull()) {
      return Error(path, "expected a mapping, got " + DescribeValue(*probe));
    }
    AppendKey(&path, key);
    probe = probe == nullptr ? nullptr : probe->Find(key);
  }
  Node* node = &root;
  const std::string_view* last = keys.end() - 1;
  for (const std::string_view* key = keys.begin(); key != last; ++key) {
    Node* child = node->Find(*key);
    node = child != nullptr ? child : &node->Set(*key, Node());
  }
  if (Node* leaf = node->Find(*last)) {
    Assign(*leaf, std::move(value), [&] { return path; });
  } else {
    Added(path, node->Set(*last, std::move(value)));
  }
  return absl::OkStatus();
}

void AddFound(const Node& doc, size_t index, std::string path, const Node& value,
              GetResult* result) {
  FoundValue v;
  v.document = index;
  v.resource = ResourceLabel(doc, index);
  v.path = std::move(path);
  v.value = config::EmitJson(value, false);
  result->values.push_back(std::move(v));
}

}  // namespace cub::functions
