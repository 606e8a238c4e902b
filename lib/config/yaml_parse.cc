// ParseYaml (declared in yaml.h): builds Nodes straight from libfyaml's event stream, so each
// document is parsed once and no intermediate libfyaml document tree is built.
//
// Comments are recovered from the source text rather than from libfyaml (whose comment support
// is experimental in 0.7.12 and attaches some comments to the wrong token): the text between
// the end of one event's token and the start of the next holds no scalar content, so every '#'
// there that starts a line or follows whitespace begins a comment. Each comment is then
// attached as Comments (node.h) describes: whole-line comments wait for the next mapping key or
// sequence item ("head"), a comment after a value on its line goes to that value ("line"), and
// one after "key:", "-" or a block scalar header goes to the node that starts next. A text
// without '#' skips all of this.

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
#include "lib/config/scalar_text.h"
#include "lib/config/yaml.h"
#include "lib/util/status_macros.h"
#include "lib/util/utf8.h"

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

bool IsBlank(char c) { return c == ' ' || c == '\t'; }

// Appends `line` to a '\n'-separated list of comment lines.
void AppendLine(std::string* lines, std::string_view line) {
  if (!lines->empty()) lines->push_back('\n');
  lines->append(line);
}

// Assembles documents from parser events, one container per stack frame.
class Builder {
 public:
  Builder(std::string_view text, size_t alias_budget)
      : text_(text),
        scan_comments_(text.find('#') != std::string_view::npos),
        next_hash_(text.find('#')),
        alias_budget_(alias_budget) {}

  absl::Status OnEvent(fy_event* event) {
    if (scan_comments_) ScanCommentsBefore(event);
    switch (event->type) {
      case FYET_DOCUMENT_START:
        FlushFootComments();
        anchors_.clear();
        root_ = Node();
        empty_document_ = false;
        last_value_ = nullptr;
        return absl::OkStatus();
      case FYET_DOCUMENT_END:
        document_closed_ = true;
        if (empty_document_) {
          last_value_ = nullptr;
          return absl::OkStatus();
        }
        docs_.push_back(std::move(root_));
        // An implicit end has no position, so a comment after a root scalar or flow
        // collection on its line is only found at the next event.
        if (last_value_ == &root_) last_value_ = &docs_.back();
        closed_document_kept_ = true;
        return absl::OkStatus();
      case FYET_STREAM_END:
        FlushFootComments();
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
        return OnContainerEnd(event);
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
    bool flow = false;      // written [...] or {...}
    int indent = -1;        // the column it starts at
    std::string key;
    std::string key_comments;  // mappings: head comments of the entry whose key is `key`
    std::unordered_set<std::string> keys;  // mappings above kSmallMapping entries
  };

  // Finds the comments in the text between the previous event's token and `event`'s start.
  void ScanCommentsBefore(fy_event* event) {
    const fy_mark* mark = fy_event_start_mark(event);
    if (mark == nullptr) return;
    const size_t start = std::min(mark->input_pos, text_.size());
    if (start <= scan_pos_) return;
    size_t pos = scan_pos_;
    scan_pos_ = start;
    while (true) {
      // next_hash_ is the first '#' at or after some offset <= pos; each stretch of text is
      // searched once.
      if (next_hash_ < pos) next_hash_ = text_.find('#', pos);
      const size_t hash = next_hash_;
      if (hash == std::string_view::npos || hash >= start) return;
      if (hash > 0 && !IsBlank(text_[hash - 1]) && text_[hash - 1] != '\n' &&
          text_[hash - 1] != '\r') {
        pos = hash + 1;  // part of a token (an anchor, a tag), not a comment
        continue;
      }
      size_t eol = text_.find_first_of("\r\n", hash);
      if (eol == std::string_view::npos) eol = text_.size();
      size_t end = eol;
      while (end > hash && IsBlank(text_[end - 1])) --end;
      OnComment(hash, text_.substr(hash, end - hash));
      pos = eol;
    }
  }

  void OnComment(size_t at, std::string_view comment) {
    size_t line_start = at;
    while (line_start > 0 && text_[line_start - 1] != '\n' && text_[line_start - 1] != '\r') {
      --line_start;
    }
    bool whole_line = true;
    for (size_t i = line_start; i < at && whole_line; ++i) whole_line = IsBlank(text_[i]);
    if (whole_line) {
      // Below a trailing comment that waits for its node ("key: # c", "- # c"), whole-line
      // comments come after that node's first line: they belong to its first entry or item.
      AppendLine(pending_line_.empty() ? &pending_head_ : &pending_inner_head_, comment);
      return;
    }
    const bool same_line_as_value =
        last_value_ != nullptr &&
        text_.substr(last_value_end_, at - last_value_end_).find_first_of("\r\n") ==
            std::string_view::npos;
    if (same_line_as_value) {
      const Comments* old = last_value_->comments();
      Comments c = old != nullptr ? *old : Comments();
      if (!c.line.empty()) c.line.push_back(' ');
      c.line.append(comment);
      last_value_->set_comments(std::move(c));
    } else {
      if (!pending_line_.empty()) pending_line_.push_back(' ');
      pending_line_.append(comment);
    }
  }

  // A key takes the whole-line comments above it (and, oddly placed, a pending line comment).
  void TakeKeyComments() {
    if (pending_head_.empty() && pending_line_.empty()) return;
    std::string& head = stack_.back().key_comments;
    for (std::string* pending : {&pending_head_, &pending_line_, &pending_inner_head_}) {
      if (!pending->empty()) AppendLine(&head, *pending);
      pending->clear();
    }
  }

  // Gives a node that starts now (a value, an item or a root) its head and line comments:
  // a mapping value takes its key's head comments, an item or root the pending ones.
  // Whole-line comments that followed the node's pending line comment go to its first entry or
  // item (to the node's own head if it is a scalar).
  void AttachStartComments(Node* node) {
    const bool own_key = !stack_.empty() && stack_.back().node.IsMapping();
    if (pending_line_.empty() &&
        (own_key ? stack_.back().key_comments.empty() : pending_head_.empty())) {
      return;
    }
    const bool collection = node->IsMapping() || node->IsSequence();
    Comments c;
    if (!stack_.empty() && stack_.back().node.IsMapping()) {
      c.head = std::move(stack_.back().key_comments);
      stack_.back().key_comments.clear();
    } else {
      c.head = std::move(pending_head_);
      pending_head_.clear();
    }
    c.line = std::move(pending_line_);
    pending_line_.clear();
    if (!pending_inner_head_.empty()) {
      if (collection) {
        AppendLine(&pending_head_, pending_inner_head_);
      } else {
        AppendLine(&c.head, pending_inner_head_);
      }
      pending_inner_head_.clear();
    }
    if (!c.empty()) node->set_comments(std::move(c));
  }

  // Comments left over when a document has ended belong to its foot; those before the first
  // document, or after an empty one, wait for the next document.
  void FlushFootComments() {
    if (document_closed_ && closed_document_kept_ && !docs_.empty() &&
        !(pending_head_.empty() && pending_line_.empty())) {
      const Comments* old = docs_.back().comments();
      Comments c = old != nullptr ? *old : Comments();
      for (std::string* pending : {&pending_head_, &pending_line_, &pending_inner_head_}) {
        if (!pending->empty()) AppendLine(&c.foot, *pending);
        pending->clear();
      }
      docs_.back().set_comments(std::move(c));
    }
    document_closed_ = false;
    closed_document_kept_ = false;
  }

  // Records the node just delivered as the one a comment later on its line belongs to.
  // A value without a position (libfyaml gives none to the empty scalar of "key:") is taken
  // to end where the scan stands, just after its key.
  void SetLastValue(Node* node, fy_event* event) {
    last_value_ = node;
    const fy_mark* end = fy_event_end_mark(event);
    if (end == nullptr) {
      last_value_end_ = scan_pos_;
      return;
    }
    last_value_end_ = std::min(end->input_pos, text_.size());
    scan_pos_ = std::max(scan_pos_, last_value_end_);
  }

  absl::Status OnScalar(fy_event* event) {
    fy_token* token = event->scalar.value;
    std::string read;  // the value, when read from the source rather than from libfyaml
    std::string_view text;
    CUB_RETURN_IF_ERROR(ReadFromSource(token, &read));
    if (fy_token_scalar_style(token) == FYSS_SINGLE_QUOTED ||
        fy_token_scalar_style(token) == FYSS_LITERAL ||
        fy_token_scalar_style(token) == FYSS_FOLDED) {
      text = read;
    } else {
      text = TokenText(token);
    }
    fy_token* tag = event->scalar.tag;
    fy_token* anchor = event->scalar.anchor;
    const Position pos = PositionOf(event);
    const bool is_key = ExpectingKey();
    if (is_key && scan_comments_) {
      TakeKeyComments();
      SkipToEnd(event);
    }
    if (is_key && tag == nullptr && anchor == nullptr) return AcceptKey(std::string(text), pos);
    Node value;
    if (tag != nullptr) {
      CUB_RETURN_IF_ERROR(ApplyScalarTag(TokenText(tag), text, token, pos, &value));
    } else if (fy_token_scalar_style(token) == FYSS_PLAIN) {
      // An empty document reads as an untagged, unanchored empty plain scalar at the root.
      if (text.empty() && stack_.empty() && anchor == nullptr) empty_document_ = true;
      value = ResolvePlainScalar(text);
    } else {
      value = Node::String(std::string(text), StyleOf(token));
    }
    if (anchor != nullptr) anchors_[std::string(TokenText(anchor))] = Subtree{value, 1, 0};
    if (is_key) return AcceptKey(std::string(text), pos);
    if (scan_comments_ && !empty_document_) AttachStartComments(&value);
    Node* stored = Deliver(Subtree{std::move(value), 1, 0});
    if (scan_comments_) SetLastValue(stored, event);
    return absl::OkStatus();
  }

  // Reads the value of a single-quoted or block scalar from the source (see scalar_text.h).
  // A block scalar that libfyaml delimits otherwise than the YAML spec does is refused:
  // libfyaml's view of what follows it is then wrong too.
  absl::Status ReadFromSource(fy_token* token, std::string* value) const {
    const enum fy_scalar_style style = fy_token_scalar_style(token);
    if (style != FYSS_SINGLE_QUOTED && style != FYSS_LITERAL && style != FYSS_FOLDED) {
      return absl::OkStatus();
    }
    const fy_mark* start = fy_token_start_mark(token);
    const fy_mark* end = fy_token_end_mark(token);
    const bool marked = start != nullptr && end != nullptr && start->input_pos <= end->input_pos &&
                        end->input_pos <= text_.size();
    if (style == FYSS_SINGLE_QUOTED && marked) {
      *value = SingleQuotedValue(text_.substr(start->input_pos, end->input_pos - start->input_pos));
      return absl::OkStatus();
    }
    BlockScalar block;
    if (style != FYSS_SINGLE_QUOTED && marked &&
        ReadBlockScalar(text_, start->input_pos, ParentIndent(), &block)) {
      if (!SameExtent(block.content_end, end->input_pos)) {
        return ErrorAt(Position{start->line + 1, 1},
                       "unsupported block scalar layout: a line below it is indented as if it "
                       "were part of it");
      }
      *value = std::move(block.value);
      return absl::OkStatus();
    }
    *value = std::string(TokenText(token));  // not found in the source: take libfyaml's
    return absl::OkStatus();
  }

  // The indentation of the block collection being filled; -1 at a document's root.
  int ParentIndent() const { return stack_.empty() ? -1 : stack_.back().indent; }

  // Whether a block scalar ending at `mine` (by the spec) and at `theirs` (by libfyaml) is the
  // same: only empty lines, or comment lines libfyaml took for content, between them.
  bool SameExtent(size_t mine, size_t theirs) const {
    if (theirs <= mine) {
      return text_.substr(theirs, mine - theirs).find_first_not_of(" \t\r\n") ==
             std::string_view::npos;
    }
    std::string_view between = text_.substr(mine, theirs - mine);
    while (!between.empty()) {
      size_t eol = between.find_first_of("\r\n");
      if (eol == std::string_view::npos) eol = between.size();
      const std::string_view line = between.substr(0, eol);
      const size_t first = line.find_first_not_of(" \t");
      if (first != std::string_view::npos && line[first] != '#') return false;
      between.remove_prefix(std::min(between.size(), eol + 1));
    }
    return true;
  }

  // Moves the comment scan past a key's token.
  void SkipToEnd(fy_event* event) {
    if (const fy_mark* end = fy_event_end_mark(event)) {
      scan_pos_ = std::max(scan_pos_, std::min(end->input_pos, text_.size()));
    }
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
      if (scan_comments_) {
        TakeKeyComments();
        SkipToEnd(event);
      }
      return AcceptKey(KeyText(target.node), pos);
    }
    if (!scan_comments_) {
      Deliver(target);
      return absl::OkStatus();
    }
    Subtree copy = target;
    AttachStartComments(&copy.node);
    SetLastValue(Deliver(std::move(copy)), event);
    return absl::OkStatus();
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
    Node node = mapping ? Node::Map() : Node::Seq();
    if (scan_comments_) AttachStartComments(&node);
    Frame& frame = stack_.emplace_back();
    frame.node = std::move(node);
    frame.flow = fy_event_get_node_style(event) == FYNS_FLOW;
    if (const fy_mark* start = fy_event_start_mark(event)) frame.indent = start->column;
    if (fy_token* anchor = fy_event_get_anchor_token(event)) frame.anchor = TokenText(anchor);
    return absl::OkStatus();
  }

  absl::Status OnContainerEnd(fy_event* event) {
    Frame frame = std::move(stack_.back());
    stack_.pop_back();
    if (scan_comments_ && !frame.key_comments.empty()) {
      AppendLine(&pending_head_, frame.key_comments);  // a key without a value: keep them
    }
    Subtree done{std::move(frame.node), frame.node_count, frame.height};
    if (!frame.anchor.empty()) anchors_[frame.anchor] = done;
    Node* stored = Deliver(std::move(done));
    if (scan_comments_) {
      // Only a flow collection ends on a line of its own content; a block collection's end
      // event is positioned at the next token.
      if (frame.flow) {
        SetLastValue(stored, event);
      } else {
        last_value_ = nullptr;
      }
    }
    return absl::OkStatus();
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

  // Hands a complete value to its parent (or makes it the document root). Returns where it is
  // stored, valid until the next value is delivered to the same parent.
  Node* Deliver(Subtree value) {
    if (stack_.empty()) {
      root_ = std::move(value.node);
      return &root_;
    }
    Frame& parent = stack_.back();
    parent.node_count += value.count;
    parent.height = std::max(parent.height, value.height + 1);
    if (parent.node.IsSequence()) {
      return &parent.node.MutableSequence().emplace_back(std::move(value.node));
    }
    parent.has_key = false;
    return &parent.node.MutableMapping()
                .emplace_back(std::move(parent.key), std::move(value.node))
                .second;
  }

  const std::string_view text_;
  const bool scan_comments_;
  size_t next_hash_;     // see ScanCommentsBefore
  size_t scan_pos_ = 0;  // comments before this offset have been found
  // The value whose line a trailing comment at or after last_value_end_ belongs to.
  Node* last_value_ = nullptr;
  size_t last_value_end_ = 0;
  std::string pending_head_;           // whole-line comments not yet attached
  std::string pending_line_;           // a trailing comment waiting for the node that starts next
  std::string pending_inner_head_;     // whole-line comments below pending_line_
  bool document_closed_ = false;       // a document ended and the next has not started
  bool closed_document_kept_ = false;  // ... and it was not empty
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
  CUB_RETURN_IF_ERROR(CheckCharacters(text));
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

  Builder builder(text, /*alias_budget=*/100000 + 10 * text.size());
  Position last{1, 1};
  auto free_event = [p = parser.get()](fy_event* e) { fy_parser_event_free(p, e); };
  while (true) {
    std::unique_ptr<fy_event, decltype(free_event)> event(fy_parser_parse(parser.get()),
                                                          free_event);
    if (event == nullptr) break;
    if (Position p = PositionOf(event.get()); p.line > 0) last = p;
    CUB_RETURN_IF_ERROR(builder.OnEvent(event.get()));
  }
  if (fy_parser_get_stream_error(parser.get()) || fy_diag_got_error(diag.get())) {
    return DiagnosticError(diag.get(), last);
  }
  return builder.TakeDocuments();
}

}  // namespace cub::config
