// EmitYaml (declared in yaml.h): a small block-style writer. Written by hand rather than with
// libfyaml's emitter so that quoting follows our rules (core schema plus YAML 1.1 caution, the
// user's StringStyle kept), comments are written back where ParseYaml found them, and output
// is stable across libfyaml versions.

#include <algorithm>
#include <cmath>
#include <string>
#include <string_view>

#include "lib/config/scalar.h"
#include "lib/config/yaml.h"
#include "lib/util/utf8.h"

namespace cub::config {
namespace {

// Implicit keys are limited to 1024 characters; longer ones use the explicit "? key" form.
constexpr size_t kMaxImplicitKey = 1000;
constexpr int kIndentStep = 2;

// What a string contains, for choosing how to write it.
struct Shape {
  bool multiline = false;  // contains '\n'
  bool escape = false;     // contains a character only double quotes can carry
  bool tab = false;
};

// Characters written raw in any style; the rest need a double-quoted escape. Excludes the
// YAML 1.1 line breaks (U+0085, U+2028, U+2029) and the BOM, which are risky unescaped.
bool PrintableRaw(char32_t c) {
  if (c < 0x80) return c >= 0x20 && c != 0x7f;
  if (c < 0xa0 || c == 0x2028 || c == 0x2029 || c == 0xfeff) return false;
  if (c >= 0xd800 && c <= 0xdfff) return false;
  return c != 0xfffe && c != 0xffff;
}

Shape ShapeOf(std::string_view s) {
  Shape shape;
  size_t pos = 0;
  while (pos < s.size()) {
    const char c = s[pos];
    if (c == '\n') {
      shape.multiline = true;
      ++pos;
    } else if (c == '\t') {
      shape.tab = true;
      ++pos;
    } else if (static_cast<unsigned char>(c) < 0x80) {
      shape.escape = shape.escape || !PrintableRaw(static_cast<unsigned char>(c));
      ++pos;
    } else {
      char32_t cp;
      if (!DecodeUtf8(s, &pos, &cp)) {
        shape.escape = true;
        ++pos;
      } else if (!PrintableRaw(cp)) {
        shape.escape = true;
      }
    }
  }
  return shape;
}

bool IsIndicator(char c) {
  return std::string_view("-?:,[]{}#&*!|>'\"%@`").find(c) != std::string_view::npos;
}

// Whether `s` can be written as a plain scalar and read back as the same string (YAML 1.2).
bool PlainOk(std::string_view s, const Shape& shape) {
  if (s.empty() || shape.multiline || shape.escape || shape.tab) return false;
  if (s.front() == ' ' || s.back() == ' ' || s.back() == ':') return false;
  if (IsIndicator(s[0])) {
    // "-x", "?x", ":x" are plain; the other indicators may never start one.
    const bool dash_like = s[0] == '-' || s[0] == '?' || s[0] == ':';
    if (!dash_like || s.size() == 1 || s[1] == ' ') return false;
  }
  if (s.substr(0, 3) == "---" || s.substr(0, 3) == "...") return false;
  if (s.find(": ") != std::string_view::npos || s.find(" #") != std::string_view::npos) {
    return false;
  }
  return PlainIsString(s);
}

// Whether `s` can be a literal block scalar; `top_level` documents cannot take an
// indentation indicator (their parent indentation is -1).
bool LiteralOk(std::string_view s, const Shape& shape, bool top_level) {
  if (!shape.multiline || shape.escape) return false;
  // Blank content is left to double quotes: libfyaml 0.7.12 reads a literal holding only
  // spaces as "\0".
  if (s.find_first_not_of(" \t\n") == std::string_view::npos) return false;
  const size_t first = s.find_first_not_of('\n');
  const bool needs_indicator = s[first] == ' ' || s[first] == '\t';
  return !(needs_indicator && top_level);
}

enum class Written { kPlain, kSingle, kDouble, kLiteral };

Written ChooseValueStyle(std::string_view s, StringStyle hint, bool top_level) {
  const Shape shape = ShapeOf(s);
  switch (hint) {
    case StringStyle::kDoubleQuoted:
      return Written::kDouble;
    case StringStyle::kSingleQuoted:
      // libfyaml 0.7.12 misreads adjacent escaped quotes: 'a''''b' reads as "a'''".
      if (!shape.multiline && !shape.escape && s.find("''") == std::string_view::npos) {
        return Written::kSingle;
      }
      break;
    case StringStyle::kPlain:
      if (PlainOk(s, shape)) return Written::kPlain;
      break;
    default:
      break;
  }
  if (LiteralOk(s, shape, top_level)) return Written::kLiteral;
  if (PlainOk(s, shape) && !AmbiguousInYaml11(s)) return Written::kPlain;
  return Written::kDouble;
}

void AppendDoubleQuoted(std::string_view s, std::string* out) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  out->push_back('"');
  size_t pos = 0;
  while (pos < s.size()) {
    const size_t start = pos;
    char32_t cp;
    if (!DecodeUtf8(s, &pos, &cp)) {  // not representable; keep the byte (see yaml.h)
      out->push_back(s[pos++]);
      continue;
    }
    switch (cp) {
      case '"':
        out->append("\\\"");
        continue;
      case '\\':
        out->append("\\\\");
        continue;
      case '\0':
        out->append("\\0");
        continue;
      case '\a':
        out->append("\\a");
        continue;
      case '\b':
        out->append("\\b");
        continue;
      case '\t':
        out->append("\\t");
        continue;
      case '\n':
        out->append("\\n");
        continue;
      case '\v':
        out->append("\\v");
        continue;
      case '\f':
        out->append("\\f");
        continue;
      case '\r':
        out->append("\\r");
        continue;
      case 0x1b:
        out->append("\\e");
        continue;
      case 0x85:
        out->append("\\N");
        continue;
      case 0x2028:
        out->append("\\L");
        continue;
      case 0x2029:
        out->append("\\P");
        continue;
      default:
        break;
    }
    if (PrintableRaw(cp)) {
      out->append(s.substr(start, pos - start));
    } else if (cp <= 0xff) {
      out->append("\\x");
      out->push_back(kHex[cp >> 4]);
      out->push_back(kHex[cp & 0xf]);
    } else {
      out->append("\\u");
      for (int shift = 12; shift >= 0; shift -= 4) out->push_back(kHex[(cp >> shift) & 0xf]);
    }
  }
  out->push_back('"');
}

void AppendSingleQuoted(std::string_view s, std::string* out) {
  out->push_back('\'');
  for (char c : s) {
    if (c == '\'') out->push_back('\'');
    out->push_back(c);
  }
  out->push_back('\'');
}

// Appends one comment line: a '#' first, characters that YAML readers could take for a line
// break (or that are not printable) replaced by spaces, so a comment can never turn into
// content, and no trailing white space.
void AppendComment(std::string_view line, std::string* out) {
  const size_t begin = out->size();
  if (line.empty() || line[0] != '#') out->append("# ");
  size_t pos = 0;
  while (pos < line.size()) {
    const size_t start = pos;
    char32_t cp;
    if (!DecodeUtf8(line, &pos, &cp)) {
      out->push_back(' ');
      ++pos;
    } else if (cp == '\t' || PrintableRaw(cp)) {
      out->append(line.substr(start, pos - start));
    } else {
      out->push_back(' ');
    }
  }
  // Trailing white space would not be read back as part of the comment.
  while (out->size() > begin + 1 && (out->back() == ' ' || out->back() == '\t')) out->pop_back();
}

bool HasHead(const Node& n) { return n.comments() != nullptr && !n.comments()->head.empty(); }
bool HasLine(const Node& n) { return n.comments() != nullptr && !n.comments()->line.empty(); }
bool IsBlockCollection(const Node& n) { return (n.IsMapping() || n.IsSequence()) && n.size() > 0; }

class YamlWriter {
 public:
  explicit YamlWriter(std::string* out) : out_(*out) {}

  void Document(const Node& n) {
    const Comments* c = n.comments();
    if (c != nullptr) Lines(c->head, 0);
    if (n.IsMapping() && n.size() > 0) {
      if (c != nullptr) Lines(c->line, 0);
      Mapping(n.AsMapping(), 0, /*first_inline=*/false);
    } else if (n.IsSequence() && n.size() > 0) {
      if (c != nullptr) Lines(c->line, 0);
      Sequence(n.AsSequence(), 0, /*first_inline=*/false);
    } else {
      Scalar(n, 0, /*top_level=*/true);
    }
    if (c != nullptr) Lines(c->foot, 0);
  }

 private:
  void Indent(int n) { out_.append(static_cast<size_t>(n), ' '); }

  // Comment lines ('\n'-separated), each on a line of its own at column `indent`.
  void Lines(std::string_view lines, int indent) {
    while (!lines.empty()) {
      size_t end = lines.find('\n');
      if (end == std::string_view::npos) end = lines.size();
      const std::string_view line = lines.substr(0, end);
      if (line.find_first_not_of(" \t\r") != std::string_view::npos) {
        Indent(indent);
        AppendComment(line, &out_);
        out_.push_back('\n');
      }
      lines.remove_prefix(std::min(lines.size(), end + 1));
    }
  }

  // " # comment" for a node with a line comment; its lines joined into one.
  void LineComment(const Node& n) {
    if (!HasLine(n)) return;
    out_.push_back(' ');
    std::string joined = n.comments()->line;
    for (char& c : joined) {
      if (c == '\n' || c == '\r') c = ' ';
    }
    AppendComment(joined, &out_);
  }

  // The head comments written above an item's "- ": the item's own, and those of the first
  // entry or item that is written on the same line after it.
  void ItemHeads(const Node& item, int indent) {
    if (HasHead(item)) Lines(item.comments()->head, indent);
    if (HasLine(item) || !IsBlockCollection(item)) return;
    if (item.IsMapping()) {
      const Node& first = item.AsMapping().front().second;
      if (HasHead(first)) Lines(first.comments()->head, indent);
    } else {
      ItemHeads(item.AsSequence().front(), indent);
    }
  }

  // Entries at column `indent`; the first one follows a "- " already written if first_inline.
  void Mapping(const Node::Mapping& entries, int indent, bool first_inline) {
    for (size_t i = 0; i < entries.size(); ++i) {
      const Node& value = entries[i].second;
      if (i > 0 || !first_inline) {
        if (HasHead(value)) Lines(value.comments()->head, indent);
        Indent(indent);
      }
      Key(entries[i].first, indent);
      Value(value, indent);
    }
  }

  void Sequence(const Node::Sequence& items, int indent, bool first_inline) {
    for (size_t i = 0; i < items.size(); ++i) {
      const Node& item = items[i];
      if (i > 0 || !first_inline) {
        ItemHeads(item, indent);
        Indent(indent);
      }
      if (IsBlockCollection(item) && HasLine(item)) {
        // "- # comment", then the collection on the lines below.
        out_.push_back('-');
        LineComment(item);
        out_.push_back('\n');
        if (item.IsMapping()) {
          Mapping(item.AsMapping(), indent + kIndentStep, /*first_inline=*/false);
        } else {
          Sequence(item.AsSequence(), indent + kIndentStep, /*first_inline=*/false);
        }
        continue;
      }
      out_.append("- ");
      if (item.IsMapping() && item.size() > 0) {
        Mapping(item.AsMapping(), indent + kIndentStep, /*first_inline=*/true);
      } else if (item.IsSequence() && item.size() > 0) {
        Sequence(item.AsSequence(), indent + kIndentStep, /*first_inline=*/true);
      } else {
        Scalar(item, indent, /*top_level=*/false);
      }
    }
  }

  void Key(const std::string& key, int indent) {
    if (key.size() > kMaxImplicitKey) {
      out_.append("? ");
      AppendDoubleQuoted(key, &out_);
      out_.push_back('\n');
      Indent(indent);
    } else if (PlainOk(key, ShapeOf(key))) {
      out_.append(key);
    } else {
      AppendDoubleQuoted(key, &out_);
    }
    out_.push_back(':');
  }

  // The value after "key:"; `indent` is the key's column.
  void Value(const Node& v, int indent) {
    if (v.IsMapping() && v.size() > 0) {
      LineComment(v);
      out_.push_back('\n');
      Mapping(v.AsMapping(), indent + kIndentStep, /*first_inline=*/false);
    } else if (v.IsSequence() && v.size() > 0) {
      LineComment(v);
      out_.push_back('\n');
      Sequence(v.AsSequence(), indent + kIndentStep, /*first_inline=*/false);
    } else {
      out_.push_back(' ');
      Scalar(v, indent, /*top_level=*/false);
    }
  }

  // A scalar (or empty container) and its line break. `indent` is the column of the key or
  // "-" it belongs to: block scalar content goes two columns further in.
  void Scalar(const Node& n, int indent, bool top_level) {
    switch (n.kind()) {
      case Node::Kind::kNull:
        out_.append("null");
        break;
      case Node::Kind::kBool:
        out_.append(n.AsBool() ? "true" : "false");
        break;
      case Node::Kind::kInt:
        out_.append(std::to_string(n.AsInt()));
        break;
      case Node::Kind::kFloat: {
        const double v = n.AsFloat();
        out_.append(std::isnan(v)   ? ".nan"
                    : std::isinf(v) ? (v < 0 ? "-.inf" : ".inf")
                                    : FormatFloat(v));
        break;
      }
      case Node::Kind::kSequence:
        out_.append("[]");
        break;
      case Node::Kind::kMapping:
        out_.append("{}");
        break;
      case Node::Kind::kString:
        String(n, indent, top_level);
        return;  // a literal ends its own lines
    }
    LineComment(n);
    out_.push_back('\n');
  }

  void String(const Node& n, int indent, bool top_level) {
    const std::string_view s = n.AsString();
    switch (ChooseValueStyle(s, n.string_style(), top_level)) {
      case Written::kPlain:
        out_.append(s);
        break;
      case Written::kSingle:
        AppendSingleQuoted(s, &out_);
        break;
      case Written::kDouble:
        AppendDoubleQuoted(s, &out_);
        break;
      case Written::kLiteral:
        Literal(n, indent);
        return;
    }
    LineComment(n);
    out_.push_back('\n');
  }

  void Literal(const Node& n, int indent) {
    const std::string_view s = n.AsString();
    const size_t body_end = s.find_last_not_of('\n') + 1;
    const size_t trailing_breaks = s.size() - body_end;
    const std::string_view body = s.substr(0, body_end);
    const size_t first = s.find_first_not_of('\n');
    out_.push_back('|');
    if (s[first] == ' ' || s[first] == '\t') out_.push_back('0' + kIndentStep);
    if (trailing_breaks == 0) out_.push_back('-');
    if (trailing_breaks > 1) out_.push_back('+');
    LineComment(n);
    out_.push_back('\n');
    size_t start = 0;
    while (start <= body.size()) {
      size_t end = body.find('\n', start);
      if (end == std::string_view::npos) end = body.size();
      if (end > start) {
        Indent(indent + kIndentStep);
        out_.append(body.substr(start, end - start));
      }
      out_.push_back('\n');
      start = end + 1;
    }
    if (trailing_breaks > 1) out_.append(trailing_breaks - 1, '\n');
  }

  std::string& out_;
};

}  // namespace

std::string EmitYaml(const std::vector<Node>& docs) {
  std::string out;
  out.reserve(512);
  YamlWriter writer(&out);
  for (size_t i = 0; i < docs.size(); ++i) {
    if (i > 0) out.append("---\n");
    writer.Document(docs[i]);
  }
  return out;
}

}  // namespace cub::config
