// ParseYaml (declared in yaml.h): builds Nodes straight from libfyaml's event stream, so each
// document is parsed once and no intermediate libfyaml document tree is built.

#include <libfyaml.h>

#include <algorithm>
#include <memory>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "lib/config/scalar.h"
#include "lib/config/utf8.h"
#include "lib/config/yaml.h"

namespace cub::config {
namespace {

// Mappings up to this size are checked for duplicate keys by a linear scan.
constexpr size_t kSmallMapping = 16;
// Deepest nesting of sequences and mappings accepted: the writers, equality and destruction
// of Nodes recurse, and configuration never comes close.
constexpr size_t kMaxDepth = 1000;
constexpr std::string_view kCoreTagPrefix = "tag:yaml.org,2002:";

struct Position {
  int line = 0;  // 1-based
  int column = 0;
};

Position PositionOf(fy_event* event) {
  const fy_mark* m = fy_event_start_mark(event);
  return m == nullptr ? Position{} : Position{m->line + 1, m->column + 1};
}

// Debian's abseil has its own string_view type, which StrCat needs.
absl::string_view Sv(std::string_view s) { return absl::string_view(s.data(), s.size()); }

absl::Status ErrorAt(Position pos, std::string_view what) {
  return absl::InvalidArgumentError(
      absl::StrCat("yaml: line ", pos.line, ", column ", pos.column, ": ", Sv(what)));
}

// "tag:yaml.org,2002:map" as it is usually written, "!!map".
std::string ShortTag(std::string_view tag) {
  if (tag.substr(0, kCoreTagPrefix.size()) != kCoreTagPrefix) return std::string(tag);
  return absl::StrCat("!!", Sv(tag.substr(kCoreTagPrefix.size())));
}

std::string_view TokenText(fy_token* token) {
  size_t len = 0;
  const char* text = fy_token_get_text(token, &len);
  return text == nullptr ? std::string_view() : std::string_view(text, len);
}

StringStyle StyleOf(fy_token* scalar) {
  switch (fy_token_scalar_style(scalar)) {
    case FYSS_PLAIN:
      return StringStyle::kPlain;
    case FYSS_SINGLE_QUOTED:
      return StringStyle::kSingleQuoted;
    case FYSS_DOUBLE_QUOTED:
      return StringStyle::kDoubleQuoted;
    case FYSS_LITERAL:
    case FYSS_FOLDED:
      return StringStyle::kLiteral;
    default:
      return StringStyle::kAuto;
  }
}

// The text a scalar Node stands for as a mapping key (used for aliased keys).
std::string KeyText(const Node& n) {
  switch (n.kind()) {
    case Node::Kind::kNull:
      return "null";
    case Node::Kind::kBool:
      return n.AsBool() ? "true" : "false";
    case Node::Kind::kInt:
      return std::to_string(n.AsInt());
    case Node::Kind::kFloat:
      return FormatFloat(n.AsFloat());
    default:
      return n.AsString();
  }
}

struct DiagDeleter {
  void operator()(fy_diag* d) const { fy_diag_destroy(d); }
};
struct ParserDeleter {
  void operator()(fy_parser* p) const { fy_parser_destroy(p); }
};

void DiscardDiagOutput(fy_diag*, void*, const char*, size_t) {}

// Assembles documents from parser events, one container per stack frame.
class Builder {
 public:
  explicit Builder(size_t alias_budget) : alias_budget_(alias_budget) {}

  absl::Status OnEvent(fy_event* event) {
    switch (event->type) {
      case FYET_DOCUMENT_START:
        anchors_.clear();
        root_ = Node();
        empty_document_ = false;
        return absl::OkStatus();
      case FYET_DOCUMENT_END:
        if (!empty_document_) docs_.push_back(std::move(root_));
        return absl::OkStatus();
      case FYET_SCALAR:
        return OnScalar(event);
      case FYET_ALIAS:
        return OnAlias(event);
      case FYET_SEQUENCE_START:
      case FYET_MAPPING_START:
        return OnContainerStart(event);
      case FYET_SEQUENCE_END:
      case FYET_MAPPING_END:
        return OnContainerEnd();
      default:
        return absl::OkStatus();
    }
  }

  std::vector<Node> TakeDocuments() { return std::move(docs_); }

 private:
  // A complete subtree with the sizes an alias to it would add.
  struct Subtree {
    Node node;
    size_t count = 1;   // nodes, for the alias budget
    size_t height = 0;  // levels of containers, for kMaxDepth
  };

  struct Frame {
    Node node;
    std::string anchor;
    size_t node_count = 1;  // nodes in this subtree so far
    size_t height = 1;      // container levels in this subtree so far
    bool has_key = false;   // mappings: a key is waiting for its value
    std::string key;
    std::unordered_set<std::string> keys;  // mappings above kSmallMapping entries
  };

  absl::Status OnScalar(fy_event* event) {
    fy_token* token = event->scalar.value;
    const std::string_view text = TokenText(token);
    fy_token* tag = event->scalar.tag;
    fy_token* anchor = event->scalar.anchor;
    const Position pos = PositionOf(event);
    const bool is_key = ExpectingKey();
    if (is_key && tag == nullptr && anchor == nullptr) return AcceptKey(std::string(text), pos);
    Node value;
    if (tag != nullptr) {
      absl::Status s = ApplyScalarTag(TokenText(tag), text, token, pos, &value);
      if (!s.ok()) return s;
    } else if (fy_token_scalar_style(token) == FYSS_PLAIN) {
      // An empty document reads as an untagged, unanchored empty plain scalar at the root.
      if (text.empty() && stack_.empty() && anchor == nullptr) empty_document_ = true;
      value = ResolvePlainScalar(text);
    } else {
      value = Node::String(std::string(text), StyleOf(token));
    }
    if (anchor != nullptr) anchors_[std::string(TokenText(anchor))] = Subtree{value, 1, 0};
    if (is_key) return AcceptKey(std::string(text), pos);
    return Deliver(Subtree{std::move(value), 1, 0});
  }

  bool ExpectingKey() const {
    return !stack_.empty() && stack_.back().node.IsMapping() && !stack_.back().has_key;
  }

  absl::Status ApplyScalarTag(std::string_view tag, std::string_view text, fy_token* token,
                              Position pos, Node* value) {
    if (tag == "!" || tag == "tag:yaml.org,2002:str") {
      *value = Node::String(std::string(text), StyleOf(token));
      return absl::OkStatus();
    }
    if (tag.substr(0, kCoreTagPrefix.size()) != kCoreTagPrefix) {
      return ErrorAt(pos, absl::StrCat("unsupported tag ", Sv(tag)));  // a local or URI tag
    }
    const std::string_view type = tag.substr(kCoreTagPrefix.size());
    if (type != "null" && type != "bool" && type != "int" && type != "float") {
      return ErrorAt(pos, absl::StrCat("unsupported tag !!", Sv(type)));
    }
    Node resolved = ResolvePlainScalar(text);
    if (type == "float" && resolved.IsInt()) resolved = Node::Float(resolved.AsInt());
    const bool ok = (type == "null" && resolved.IsNull()) ||
                    (type == "bool" && resolved.IsBool()) || (type == "int" && resolved.IsInt()) ||
                    (type == "float" && resolved.IsFloat());
    if (!ok) {
      return ErrorAt(pos, absl::StrCat("\"", Sv(text), "\" is not a valid !!", Sv(type)));
    }
    *value = std::move(resolved);
    return absl::OkStatus();
  }

  absl::Status OnAlias(fy_event* event) {
    Position pos = PositionOf(event);
    if (pos.column > 1) --pos.column;  // libfyaml marks the name; point at the '*'
    const std::string name(TokenText(event->alias.anchor));
    auto it = anchors_.find(name);
    if (it == anchors_.end()) return ErrorAt(pos, absl::StrCat("unknown alias *", name));
    const Subtree& target = it->second;
    alias_nodes_ += target.count;
    if (alias_nodes_ > alias_budget_) {
      return ErrorAt(pos, "aliases expand to too many nodes");
    }
    if (stack_.size() + target.height > kMaxDepth) {
      return ErrorAt(pos, absl::StrCat("nesting deeper than ", kMaxDepth, " levels"));
    }
    if (ExpectingKey()) {
      if (target.height > 0) return ErrorAt(pos, "only scalar mapping keys are supported");
      return AcceptKey(KeyText(target.node), pos);
    }
    return Deliver(target);
  }

  absl::Status OnContainerStart(fy_event* event) {
    const Position pos = PositionOf(event);
    if (ExpectingKey()) {
      return ErrorAt(pos, "only scalar mapping keys are supported");
    }
    if (stack_.size() >= kMaxDepth) {
      return ErrorAt(pos, absl::StrCat("nesting deeper than ", kMaxDepth, " levels"));
    }
    const bool mapping = event->type == FYET_MAPPING_START;
    if (fy_token* tag = fy_event_get_tag_token(event)) {
      const std::string_view want = mapping ? "tag:yaml.org,2002:map" : "tag:yaml.org,2002:seq";
      if (TokenText(tag) != want) {
        return ErrorAt(pos, absl::StrCat("unsupported tag ", Sv(ShortTag(TokenText(tag)))));
      }
    }
    Frame& frame = stack_.emplace_back();
    frame.node = mapping ? Node::Map() : Node::Seq();
    if (fy_token* anchor = fy_event_get_anchor_token(event)) frame.anchor = TokenText(anchor);
    return absl::OkStatus();
  }

  absl::Status OnContainerEnd() {
    Frame frame = std::move(stack_.back());
    stack_.pop_back();
    Subtree done{std::move(frame.node), frame.node_count, frame.height};
    if (!frame.anchor.empty()) anchors_[frame.anchor] = done;
    return Deliver(std::move(done));
  }

  absl::Status AcceptKey(std::string key, Position pos) {
    Frame& frame = stack_.back();
    const Node::Mapping& entries = frame.node.AsMapping();
    bool duplicate = false;
    if (entries.size() < kSmallMapping) {
      for (const auto& e : entries) duplicate = duplicate || e.first == key;
    } else {
      if (frame.keys.empty()) {
        for (const auto& e : entries) frame.keys.insert(e.first);
      }
      duplicate = !frame.keys.insert(key).second;
    }
    if (duplicate) return ErrorAt(pos, absl::StrCat("duplicate mapping key \"", key, "\""));
    frame.key = std::move(key);
    frame.has_key = true;
    return absl::OkStatus();
  }

  // Hands a complete value to its parent (or makes it the document root).
  absl::Status Deliver(Subtree value) {
    if (stack_.empty()) {
      root_ = std::move(value.node);
      return absl::OkStatus();
    }
    Frame& parent = stack_.back();
    parent.node_count += value.count;
    parent.height = std::max(parent.height, value.height + 1);
    if (parent.node.IsSequence()) {
      parent.node.MutableSequence().push_back(std::move(value.node));
    } else {
      parent.node.MutableMapping().emplace_back(std::move(parent.key), std::move(value.node));
      parent.has_key = false;
    }
    return absl::OkStatus();
  }

  const size_t alias_budget_;
  size_t alias_nodes_ = 0;
  std::vector<Frame> stack_;
  std::unordered_map<std::string, Subtree> anchors_;
  Node root_;
  bool empty_document_ = false;
  std::vector<Node> docs_;
};

// The first error libfyaml collected, with its position. Some errors (an unsupported %YAML
// version) are not collected; they are reported at `fallback`, the last position reached.
absl::Status DiagnosticError(fy_diag* diag, Position fallback) {
  void* iter = nullptr;
  while (fy_diag_error* err = fy_diag_errors_iterate(diag, &iter)) {
    if (err->type < FYET_ERROR) continue;
    return ErrorAt(Position{err->line, err->column},
                   err->msg != nullptr ? err->msg : "syntax error");
  }
  return ErrorAt(fallback, "syntax error");
}

// YAML streams may hold only printable characters (c-printable): tab, line breaks and the
// printable Unicode ranges. Checked up front because libfyaml 0.7.12 silently stops at a NUL
// and yields nothing for some malformed UTF-8.
absl::Status CheckCharacters(std::string_view text) {
  size_t pos = 0;
  size_t line_start = 0;
  int line = 1;
  while (pos < text.size()) {
    const auto c = static_cast<unsigned char>(text[pos]);
    const size_t start = pos;
    std::string what;
    if (c < 0x80) {
      ++pos;
      if (c == '\n') {
        ++line;
        line_start = pos;
      }
      if ((c >= 0x20 && c != 0x7f) || c == '\n' || c == '\t' || c == '\r') continue;
      what = absl::StrFormat("control character U+%04X is not allowed", c);
    } else {
      char32_t cp;
      if (!DecodeUtf8(text, &pos, &cp)) {
        what = "invalid UTF-8";
      } else if ((cp >= 0x80 && cp < 0xa0 && cp != 0x85) || cp == 0xfffe || cp == 0xffff) {
        what = absl::StrFormat("control character U+%04X is not allowed", cp);
      } else {
        continue;
      }
    }
    int column = 1;  // in characters: count the bytes that start one
    for (size_t i = line_start; i < start; ++i) {
      if ((static_cast<unsigned char>(text[i]) & 0xc0) != 0x80) ++column;
    }
    return ErrorAt(Position{line, column}, what);
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::vector<Node>> ParseYaml(std::string_view text) {
  if (absl::Status s = CheckCharacters(text); !s.ok()) return s;
  if (text.empty()) return std::vector<Node>();

  // Errors are collected, never printed: no stream, a discarding callback, collect mode.
  fy_diag_cfg diag_cfg;
  fy_diag_cfg_default(&diag_cfg);
  diag_cfg.fp = nullptr;
  diag_cfg.output_fn = DiscardDiagOutput;
  diag_cfg.colorize = false;
  std::unique_ptr<fy_diag, DiagDeleter> diag(fy_diag_create(&diag_cfg));
  if (diag == nullptr) return absl::ResourceExhaustedError("yaml: cannot create diagnostics");
  fy_diag_set_collect_errors(diag.get(), true);

  fy_parse_cfg parse_cfg{};
  parse_cfg.flags = static_cast<fy_parse_cfg_flags>(FYPCF_QUIET | FYPCF_DEFAULT_VERSION_1_2);
  parse_cfg.diag = diag.get();
  std::unique_ptr<fy_parser, ParserDeleter> parser(fy_parser_create(&parse_cfg));
  if (parser == nullptr) return absl::ResourceExhaustedError("yaml: cannot create parser");
  if (fy_parser_set_string(parser.get(), text.data(), text.size()) != 0) {
    return DiagnosticError(diag.get(), Position{1, 1});
  }

  Builder builder(/*alias_budget=*/100000 + 10 * text.size());
  Position last{1, 1};
  auto free_event = [p = parser.get()](fy_event* e) { fy_parser_event_free(p, e); };
  while (true) {
    std::unique_ptr<fy_event, decltype(free_event)> event(fy_parser_parse(parser.get()),
                                                          free_event);
    if (event == nullptr) break;
    if (Position p = PositionOf(event.get()); p.line > 0) last = p;
    absl::Status s = builder.OnEvent(event.get());
    if (!s.ok()) return s;
  }
  if (fy_parser_get_stream_error(parser.get()) || fy_diag_got_error(diag.get())) {
    return DiagnosticError(diag.get(), last);
  }
  return builder.TakeDocuments();
}

}  // namespace cub::config
