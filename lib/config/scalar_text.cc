#include "lib/config/scalar_text.h"

#include <algorithm>

namespace cub::config {
namespace {

bool IsBlank(char c) { return c == ' ' || c == '\t'; }
bool IsBreak(char c) { return c == '\n' || c == '\r'; }

enum class Chomping { kStrip, kClip, kKeep };

struct Header {
  bool folded = false;
  int increment = 0;  // explicit indentation indicator, 0 if none
  Chomping chomping = Chomping::kClip;
};

// Parses `rest`, what follows an indicator: at most one digit 1-9 and one of "+-", in either
// order, then white space, then the end or a comment.
bool ParseIndicators(std::string_view rest, Header* header) {
  size_t i = 0;
  bool digit = false, chomp = false;
  for (; i < rest.size() && i < 2; ++i) {
    const char c = rest[i];
    if (c >= '1' && c <= '9' && !digit) {
      digit = true;
      header->increment = c - '0';
    } else if ((c == '+' || c == '-') && !chomp) {
      chomp = true;
      header->chomping = c == '+' ? Chomping::kKeep : Chomping::kStrip;
    } else {
      break;
    }
  }
  const size_t blanks = i;
  while (i < rest.size() && IsBlank(rest[i])) ++i;
  return i == rest.size() || (rest[i] == '#' && i > blanks);
}

// Finds the block scalar header that ends `line`: the first '|' or '>' that starts a word, is
// outside quotes and before any comment, and is followed only by indicators, white space and a
// comment. From the left, so that a '|' or '>' in that comment ("- |- # a |") is not taken for
// the header, and skipping quoted scalars and comments, so that one in a quoted key
// ("'a | # b': |") is not either. A quote opens a quoted scalar only where one may start: at
// the start of a word or after '[', '{' or ','; elsewhere (it's: |) it is a plain character.
bool ParseHeader(std::string_view line, Header* header) {
  char quote = 0;  // the quote of the quoted scalar the scan is in, or 0
  for (size_t p = 0; p < line.size(); ++p) {
    const char c = line[p];
    const bool word_start = p == 0 || IsBlank(line[p - 1]);
    if (quote != 0) {
      if (quote == '"' && c == '\\') {
        ++p;  // an escape: the next character does not close
      } else if (quote == '\'' && c == '\'' && p + 1 < line.size() && line[p + 1] == '\'') {
        ++p;  // '' is a quote inside single quotes
      } else if (c == quote) {
        quote = 0;
      }
      continue;
    }
    if ((c == '\'' || c == '"') &&
        (word_start || line[p - 1] == '[' || line[p - 1] == '{' || line[p - 1] == ',')) {
      quote = c;
      continue;
    }
    if (c == '#' && word_start) return false;  // the rest is a comment
    if ((c != '|' && c != '>') || !word_start) continue;
    Header h;
    h.folded = c == '>';
    if (ParseIndicators(line.substr(p + 1), &h)) {
      *header = h;
      return true;
    }
  }
  return false;
}

// A cursor over the source that knows its column, as PyYAML's scanner does (whose block scalar
// rules this follows step by step).
class Reader {
 public:
  Reader(std::string_view text, size_t pos) : text_(text), pos_(pos), line_start_(pos) {}

  size_t pos() const { return pos_; }
  int column() const { return static_cast<int>(pos_ - line_start_); }
  bool AtEnd() const { return pos_ >= text_.size(); }
  char Peek() const { return AtEnd() ? '\0' : text_[pos_]; }
  bool AtBreak() const { return !AtEnd() && IsBreak(text_[pos_]); }
  void Forward() { ++pos_; }

  // Consumes a line break ("\r\n", "\r" or "\n"); returns it as "\n", or "" if there is none.
  std::string_view LineBreak() {
    if (!AtBreak()) return "";
    if (text_[pos_] == '\r' && pos_ + 1 < text_.size() && text_[pos_ + 1] == '\n') ++pos_;
    ++pos_;
    line_start_ = pos_;
    return "\n";
  }

  // The rest of the current line, consumed.
  std::string_view RestOfLine() {
    const size_t start = pos_;
    while (!AtEnd() && !IsBreak(text_[pos_])) ++pos_;
    return text_.substr(start, pos_ - start);
  }

  // Empty lines up to the next line indented `indent` or less: their breaks, appended to
  // `breaks`; stops in that line after at most `indent` spaces.
  void Breaks(int indent, std::string* breaks) {
    while (column() < indent && Peek() == ' ') Forward();
    while (AtBreak()) {
      breaks->append(LineBreak());
      while (column() < indent && Peek() == ' ') Forward();
    }
  }

 private:
  std::string_view text_;
  size_t pos_;
  size_t line_start_;
};

}  // namespace

std::string SingleQuotedValue(std::string_view raw) {
  std::string out;
  out.reserve(raw.size());
  size_t blank_lines = 0;
  bool first = true;
  size_t pos = 0;
  while (true) {
    size_t end = raw.find_first_of("\r\n", pos);
    const bool last = end == std::string_view::npos;
    if (last) end = raw.size();
    std::string_view line = raw.substr(pos, end - pos);
    if (!first) {
      while (!line.empty() && IsBlank(line.front())) line.remove_prefix(1);
    }
    if (!last) {
      while (!line.empty() && IsBlank(line.back())) line.remove_suffix(1);
    }
    if (!first) {
      if (line.empty() && !last) {
        ++blank_lines;
      } else if (blank_lines == 0) {
        out.push_back(' ');
      } else {
        out.append(blank_lines, '\n');
        blank_lines = 0;
      }
    }
    for (size_t i = 0; i < line.size(); ++i) {
      out.push_back(line[i]);
      if (line[i] == '\'' && i + 1 < line.size() && line[i + 1] == '\'') ++i;
    }
    first = false;
    if (last) break;
    pos = end + (raw[end] == '\r' && end + 1 < raw.size() && raw[end + 1] == '\n' ? 2 : 1);
  }
  return out;
}

bool ReadBlockScalar(std::string_view text, size_t content_start, int parent_indent,
                     BlockScalar* out) {
  // The header line: from the previous line break (exclusive) to the one ending at
  // content_start.
  if (content_start == 0 || content_start > text.size() || !IsBreak(text[content_start - 1])) {
    return false;
  }
  size_t header_end = content_start - 1;
  if (text[header_end] == '\n' && header_end > 0 && text[header_end - 1] == '\r') --header_end;
  size_t header_start = header_end;
  while (header_start > 0 && !IsBreak(text[header_start - 1])) --header_start;
  Header header;
  if (!ParseHeader(text.substr(header_start, header_end - header_start), &header)) return false;

  Reader r(text, content_start);
  const int min_indent = std::max(parent_indent + 1, 1);
  int indent;
  std::string breaks;
  if (header.increment == 0) {
    int max_indent = 0;
    while (r.Peek() == ' ' || r.AtBreak()) {
      if (r.Peek() != ' ') {
        breaks.append(r.LineBreak());
      } else {
        r.Forward();
        max_indent = std::max(max_indent, r.column());
      }
    }
    indent = std::max(min_indent, max_indent);
  } else {
    indent = min_indent + header.increment - 1;
    r.Breaks(indent, &breaks);
  }

  std::string& value = out->value;
  value.clear();
  out->content_end = content_start;
  std::string_view line_break;
  while (r.column() == indent && !r.AtEnd()) {
    value.append(breaks);
    breaks.clear();
    const bool leading_non_space = !IsBlank(r.Peek());
    value.append(r.RestOfLine());
    line_break = r.LineBreak();
    out->content_end = r.pos();
    r.Breaks(indent, &breaks);
    if (r.column() != indent || r.AtEnd()) break;
    if (header.folded && !line_break.empty() && leading_non_space && !IsBlank(r.Peek())) {
      if (breaks.empty()) value.push_back(' ');
    } else {
      value.append(line_break);
    }
  }
  if (header.chomping != Chomping::kStrip) value.append(line_break);
  if (header.chomping == Chomping::kKeep) value.append(breaks);
  return true;
}

}  // namespace cub::config
