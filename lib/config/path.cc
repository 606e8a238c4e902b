#include "lib/config/path.h"

#include <charconv>
#include <cstdint>

#include "absl/strings/str_cat.h"

namespace cub::config {
namespace {

// Debian's abseil has its own string_view type, which StrCat needs.
absl::string_view Sv(std::string_view s) { return absl::string_view(s.data(), s.size()); }

bool ParseIndex(std::string_view s, size_t* index) {
  if (s.empty()) return false;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), *index);
  return ec == std::errc() && ptr == s.data() + s.size();
}

}  // namespace

absl::StatusOr<std::vector<std::string>> SplitPath(std::string_view path) {
  std::vector<std::string> segments;
  if (path.empty()) return segments;
  std::string current;
  for (size_t i = 0; i < path.size(); ++i) {
    const char c = path[i];
    if (c == '\\') {
      if (i + 1 == path.size() || (path[i + 1] != '.' && path[i + 1] != '\\')) {
        return absl::InvalidArgumentError(
            absl::StrCat("path \"", Sv(path), "\": bad escape at offset ", i));
      }
      current.push_back(path[++i]);
    } else if (c == '.') {
      segments.push_back(std::move(current));
      current.clear();
    } else {
      current.push_back(c);
    }
  }
  segments.push_back(std::move(current));
  return segments;
}

const Node* GetPath(const Node& root, std::string_view path) {
  absl::StatusOr<std::vector<std::string>> segments = SplitPath(path);
  if (!segments.ok()) return nullptr;
  const Node* node = &root;
  for (const std::string& segment : *segments) {
    if (node->IsMapping()) {
      node = node->Find(segment);
    } else if (size_t index; node->IsSequence() && ParseIndex(segment, &index) &&
                             index < node->AsSequence().size()) {
      node = &node->AsSequence()[index];
    } else {
      return nullptr;
    }
    if (node == nullptr) return nullptr;
  }
  return node;
}

absl::Status SetPath(Node& root, std::string_view path, Node value) {
  absl::StatusOr<std::vector<std::string>> segments = SplitPath(path);
  if (!segments.ok()) return segments.status();
  Node* node = &root;
  for (size_t i = 0; i < segments->size(); ++i) {
    const std::string& segment = (*segments)[i];
    if (node->IsMapping() || node->IsNull()) {
      Node* child = node->Find(segment);
      node = child != nullptr ? child : &node->Set(segment, Node());
    } else if (node->IsSequence()) {
      size_t index;
      if (!ParseIndex(segment, &index) || index >= node->AsSequence().size()) {
        return absl::InvalidArgumentError(absl::StrCat(
            "path \"", Sv(path), "\": no index ", segment, " in a sequence of ", node->size()));
      }
      node = &node->MutableSequence()[index];
    } else {
      return absl::FailedPreconditionError(absl::StrCat("path \"", Sv(path), "\": segment \"",
                                                        segment, "\" is under a ",
                                                        KindName(node->kind())));
    }
  }
  *node = std::move(value);
  return absl::OkStatus();
}

}  // namespace cub::config
