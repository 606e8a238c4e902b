#include "lib/config/path.h"

#include <charconv>
#include <cstdint>
#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "lib/util/status_macros.h"

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
  CUB_ASSIGN_OR_RETURN(std::vector<std::string> segments, SplitPath(path));
  Node* node = &root;
  for (size_t i = 0; i < segments.size(); ++i) {
    const std::string& segment = segments[i];
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
  if (value.comments() == nullptr) value.CopyCommentsFrom(*node);  // keep the user's comments
  *node = std::move(value);
  return absl::OkStatus();
}

}  // namespace cub::config

// ---- Merge paths ----

namespace cub::config {
namespace {

constexpr std::string_view kSegmentSpecials = ".[]=\"\\:";
constexpr std::string_view kPartSpecials = "/[]\"\\:";

absl::Status PathError(std::string_view text, size_t offset, std::string_view what) {
  return absl::InvalidArgumentError(
      absl::StrCat("path \"", Sv(text), "\": ", Sv(what), " at offset ", offset));
}

// Whether `name` can be written without quotes, given the characters special where it goes.
bool BareOk(std::string_view name, std::string_view specials) {
  if (name.empty()) return false;
  for (char c : name) {
    const auto u = static_cast<unsigned char>(c);
    if (u <= 0x20 || u == 0x7f || specials.find(c) != std::string_view::npos) return false;
  }
  return true;
}

void AppendQuoted(std::string_view name, std::string* out) {
  out->push_back('"');
  for (char c : name) {
    if (c == '"' || c == '\\') out->push_back('\\');
    out->push_back(c);
  }
  out->push_back('"');
}

void AppendName(std::string_view name, std::string* out) {
  if (BareOk(name, kSegmentSpecials) && name != "*" && name != "**") {
    out->append(name);
  } else {
    AppendQuoted(name, out);
  }
}

void AppendPart(std::string_view part, std::string* out) {
  if (part.empty() || BareOk(part, kPartSpecials)) {
    out->append(part);
  } else {
    AppendQuoted(part, out);
  }
}

class PathParser {
 public:
  explicit PathParser(std::string_view text) : text_(text) {}

  absl::StatusOr<Path> Parse() {
    Path path;
    CUB_ASSIGN_OR_RETURN(size_t colon, FindDocumentSeparator());
    size_t begin = 0;
    if (colon != std::string_view::npos) {
      DocumentRef doc;
      CUB_RETURN_IF_ERROR(ParseDocument(colon, &doc));
      path.document = std::move(doc);
      begin = colon + 1;
    }
    pos_ = begin;
    CUB_RETURN_IF_ERROR(ParseSegments(&path.segments));
    return path;
  }

 private:
  // The offset of the ':' that ends a document prefix, or npos.
  absl::StatusOr<size_t> FindDocumentSeparator() const {
    size_t found = std::string_view::npos;
    bool quoted = false;
    for (size_t i = 0; i < text_.size(); ++i) {
      const char c = text_[i];
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        quoted = !quoted;
      } else if (c == ':' && !quoted) {
        if (found != std::string_view::npos) return PathError(text_, i, "a second ':'");
        found = i;
      }
    }
    return found;
  }

  bool AtEnd() const { return pos_ >= end_; }

  // Reads a quoted or bare name ending before one of `specials` (or the end of the region).
  absl::Status ParseName(std::string_view specials, bool allow_empty, std::string* out) {
    const size_t start = pos_;
    if (!AtEnd() && text_[pos_] == '"') {
      ++pos_;
      while (true) {
        if (AtEnd()) return PathError(text_, start, "unterminated quote");
        const char c = text_[pos_++];
        if (c == '"') break;
        if (c == '\\') {
          if (AtEnd()) return PathError(text_, pos_ - 1, "dangling '\\'");
          out->push_back(text_[pos_++]);
        } else {
          out->push_back(c);
        }
      }
      if (!AtEnd() && specials.find(text_[pos_]) == std::string_view::npos) {
        return PathError(text_, pos_, "unexpected character after a quoted name");
      }
      return absl::OkStatus();
    }
    while (!AtEnd()) {
      const char c = text_[pos_];
      if (c == '\\') {
        if (pos_ + 1 >= end_) return PathError(text_, pos_, "dangling '\\'");
        out->push_back(text_[pos_ + 1]);
        pos_ += 2;
        continue;
      }
      if (specials.find(c) != std::string_view::npos) break;
      out->push_back(c);
      ++pos_;
    }
    if (pos_ == start && !allow_empty) {
      return PathError(text_, pos_, AtEnd() ? "empty name" : "unexpected character");
    }
    if (!AtEnd() && text_[pos_] == '"') return PathError(text_, pos_, "unexpected quote");
    return absl::OkStatus();
  }

  absl::Status ParseDocument(size_t colon, DocumentRef* doc) {
    pos_ = 0;
    end_ = colon;
    if (!AtEnd() && text_[0] == '[') {
      size_t ordinal;
      CUB_RETURN_IF_ERROR(ParseBracketIndex(&ordinal));
      if (!AtEnd()) return PathError(text_, pos_, "unexpected character after a document index");
      doc->ordinal = ordinal;
      return absl::OkStatus();
    }
    std::vector<std::string> parts;
    while (true) {
      std::string part;
      CUB_RETURN_IF_ERROR(ParseName(kPartSpecials, /*allow_empty=*/true, &part));
      parts.push_back(std::move(part));
      if (AtEnd()) break;
      if (text_[pos_] != '/') return PathError(text_, pos_, "unexpected character");
      ++pos_;
    }
    if (parts.size() != 4 && parts.size() != 5) {
      return PathError(text_, 0,
                       "a document is apiVersion/kind/namespace/name (or group/version/...)");
    }
    size_t i = 0;
    doc->api_version = parts[i++];
    if (parts.size() == 5) absl::StrAppend(&doc->api_version, "/", parts[i++]);
    doc->kind = std::move(parts[i++]);
    doc->namespace_name = std::move(parts[i++]);
    doc->name = std::move(parts[i++]);
    return absl::OkStatus();
  }

  // "[" digits "]" at pos_.
  absl::Status ParseBracketIndex(size_t* index) {
    const size_t start = pos_;
    ++pos_;  // '['
    const size_t digits = pos_;
    while (!AtEnd() && text_[pos_] >= '0' && text_[pos_] <= '9') ++pos_;
    if (AtEnd() || text_[pos_] != ']') return PathError(text_, start, "malformed index");
    if (!ParseIndex(text_.substr(digits, pos_ - digits), index)) {
      return PathError(text_, start, "malformed index");
    }
    ++pos_;  // ']'
    return absl::OkStatus();
  }

  bool WildcardAhead(std::string_view token) const {
    if (text_.substr(pos_, token.size()) != token) return false;
    const size_t next = pos_ + token.size();
    return next >= end_ || text_[next] == '.' || text_[next] == '[';
  }

  absl::Status ParseSegment(std::vector<PathSegment>* out) {
    if (WildcardAhead("**")) {
      pos_ += 2;
      out->push_back(PathSegment::AnyDepth());
      return absl::OkStatus();
    }
    if (WildcardAhead("*")) {
      pos_ += 1;
      out->push_back(PathSegment::Any());
      return absl::OkStatus();
    }
    std::string name;
    CUB_RETURN_IF_ERROR(ParseName(kSegmentSpecials, false, &name));
    if (AtEnd() || text_[pos_] != '=') {
      out->push_back(PathSegment::Key(std::move(name)));
      return absl::OkStatus();
    }
    ++pos_;  // '='
    std::string value;
    CUB_RETURN_IF_ERROR(ParseName(kSegmentSpecials, false, &value));
    out->push_back(PathSegment::Selector(std::move(name), std::move(value)));
    return absl::OkStatus();
  }

  absl::Status ParseSegments(std::vector<PathSegment>* out) {
    end_ = text_.size();
    if (AtEnd()) return absl::OkStatus();
    bool first = true;
    while (!AtEnd()) {
      const char c = text_[pos_];
      if (c == '[') {
        size_t index;
        CUB_RETURN_IF_ERROR(ParseBracketIndex(&index));
        out->push_back(PathSegment::Index(index));
      } else if (first || c == '.') {
        if (!first) ++pos_;
        CUB_RETURN_IF_ERROR(ParseSegment(out));
      } else {
        return PathError(text_, pos_, "expected '.' or '['");
      }
      first = false;
    }
    return absl::OkStatus();
  }

  const std::string_view text_;
  size_t pos_ = 0;
  size_t end_ = 0;
};

}  // namespace

PathSegment PathSegment::Key(std::string key) {
  PathSegment s;
  s.kind = Kind::kKey;
  s.key = std::move(key);
  return s;
}

PathSegment PathSegment::Index(size_t index) {
  PathSegment s;
  s.kind = Kind::kIndex;
  s.index = index;
  return s;
}

PathSegment PathSegment::Selector(std::string field, std::string value) {
  PathSegment s;
  s.kind = Kind::kSelector;
  s.key = std::move(field);
  s.value = std::move(value);
  return s;
}

PathSegment PathSegment::Any() {
  PathSegment s;
  s.kind = Kind::kAny;
  return s;
}

PathSegment PathSegment::AnyDepth() {
  PathSegment s;
  s.kind = Kind::kAnyDepth;
  return s;
}

bool operator==(const PathSegment& a, const PathSegment& b) {
  return a.kind == b.kind && a.key == b.key && a.value == b.value && a.index == b.index;
}

bool operator==(const DocumentRef& a, const DocumentRef& b) {
  return a.ordinal == b.ordinal && a.api_version == b.api_version && a.kind == b.kind &&
         a.namespace_name == b.namespace_name && a.name == b.name;
}

bool operator==(const Path& a, const Path& b) {
  return a.document == b.document && a.segments == b.segments;
}

bool Path::HasWildcard() const {
  for (const PathSegment& s : segments) {
    if (s.kind == PathSegment::Kind::kAny || s.kind == PathSegment::Kind::kAnyDepth) return true;
  }
  if (!document.has_value() || document->ordinal.has_value()) return false;
  const DocumentRef& d = *document;
  if (d.kind == "*" || d.namespace_name == "*" || d.name == "*" || d.api_version == "*") {
    return true;
  }
  const size_t slash = d.api_version.find('/');
  return slash != std::string::npos &&
         (d.api_version.substr(0, slash) == "*" || d.api_version.substr(slash + 1) == "*");
}

absl::StatusOr<Path> ParsePath(std::string_view text) { return PathParser(text).Parse(); }

std::string FormatPath(const Path& path) {
  std::string out;
  if (path.document.has_value()) {
    const DocumentRef& d = *path.document;
    if (d.ordinal.has_value()) {
      absl::StrAppend(&out, "[", *d.ordinal, "]");
    } else {
      const size_t slash = d.api_version.find('/');
      const bool split = slash != std::string::npos &&
                         d.api_version.find('/', slash + 1) == std::string::npos &&
                         BareOk(d.api_version.substr(0, slash), kPartSpecials) &&
                         BareOk(d.api_version.substr(slash + 1), kPartSpecials);
      if (split) {
        out.append(d.api_version);
      } else {
        AppendPart(d.api_version, &out);
      }
      for (const std::string* part : {&d.kind, &d.namespace_name, &d.name}) {
        out.push_back('/');
        AppendPart(*part, &out);
      }
    }
    out.push_back(':');
  }
  bool first = true;
  for (const PathSegment& s : path.segments) {
    if (s.kind == PathSegment::Kind::kIndex) {
      absl::StrAppend(&out, "[", s.index, "]");
      first = false;
      continue;
    }
    if (!first) out.push_back('.');
    first = false;
    switch (s.kind) {
      case PathSegment::Kind::kKey:
        AppendName(s.key, &out);
        break;
      case PathSegment::Kind::kSelector:
        AppendName(s.key, &out);
        out.push_back('=');
        AppendName(s.value, &out);
        break;
      case PathSegment::Kind::kAny:
        out.push_back('*');
        break;
      case PathSegment::Kind::kAnyDepth:
        out.append("**");
        break;
      case PathSegment::Kind::kIndex:
        break;
    }
  }
  return out;
}

std::optional<std::string> ScalarText(const Node& n) {
  switch (n.kind()) {
    case Node::Kind::kString:
      return n.AsString();
    case Node::Kind::kInt:
      return std::to_string(n.AsInt());
    case Node::Kind::kBool:
      return std::string(n.AsBool() ? "true" : "false");
    default:
      return std::nullopt;
  }
}

}  // namespace cub::config
