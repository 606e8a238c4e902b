#include "lib/where/lexer.h"

#include "absl/strings/numbers.h"
#include "lib/util/utf8.h"
#include "lib/where/error.h"

namespace cub::where::internal {
namespace {

bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsAlpha(char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'); }
bool IsIdentStart(char c) { return IsAlpha(c) || c == '_'; }
// A segment after a '.' may start with a digit: map keys such as "Labels.8x" are fine.
bool IsSegmentStart(char c) { return IsIdentStart(c) || IsDigit(c); }
bool IsIdentChar(char c) { return IsSegmentStart(c) || c == '-' || c == '/'; }
bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

// Maps byte offsets of `text` to 1-based character positions, validating it on the way.
absl::Status CharPositions(std::string_view text, std::vector<int>* pos_of) {
  pos_of->assign(text.size() + 1, 0);
  int chars = 0;
  for (size_t i = 0; i < text.size();) {
    const size_t start = i;
    char32_t cp;
    const bool ok = NextCodePoint(text, &i, &cp);
    ++chars;
    if (!ok) return ErrorAt(chars, "malformed UTF-8");
    if (cp == 0) return ErrorAt(chars, "unexpected NUL character");
    for (size_t b = start; b < i; ++b) (*pos_of)[b] = chars;
  }
  (*pos_of)[text.size()] = chars + 1;
  return absl::OkStatus();
}

// The lexer's state over one text; each Scan* reads one token starting at i_ and appends it.
class Lexer {
 public:
  Lexer(std::string_view text, const std::vector<int>& pos_of) : text_(text), pos_of_(pos_of) {}

  absl::StatusOr<std::vector<Token>> Run() && {
    const size_t n = text_.size();
    while (true) {
      while (i_ < n && IsSpace(text_[i_])) ++i_;
      if (i_ == n) break;
      const char c = text_[i_];
      absl::Status s;
      if (IsIdentStart(c)) {
        s = ScanIdent();
      } else if (IsDigit(c) || (c == '-' && i_ + 1 < n && IsDigit(text_[i_ + 1]))) {
        s = ScanNumber();
      } else if (c == '\'') {
        s = ScanString();
      } else {
        s = ScanPunct();
      }
      if (!s.ok()) return s;
    }
    out_.push_back(Token{TokenKind::kEnd, "", 0, pos_of_[n]});
    return std::move(out_);
  }

 private:
  void Emit(TokenKind kind, size_t start) {
    out_.push_back(Token{kind, std::string(text_.substr(start, i_ - start)), 0, pos_of_[start]});
  }

  // A name, with '.'-separated segments: Labels.app, Data.spec.replicas.
  absl::Status ScanIdent() {
    const size_t start = i_, n = text_.size();
    ++i_;
    while (i_ < n) {
      if (IsIdentChar(text_[i_])) {
        ++i_;
      } else if (text_[i_] == '.' && i_ + 1 < n && IsSegmentStart(text_[i_ + 1])) {
        i_ += 2;
      } else if (text_[i_] == '.') {
        return ErrorAt(pos_of_[i_], "expected a name after '.'");
      } else {
        break;
      }
    }
    Emit(TokenKind::kIdent, start);
    return absl::OkStatus();
  }

  // A decimal integer, perhaps negative, that fits an int64.
  absl::Status ScanNumber() {
    const size_t start = i_, n = text_.size();
    const int pos = pos_of_[i_];
    ++i_;
    while (i_ < n && IsDigit(text_[i_])) ++i_;
    if (i_ < n && (IsIdentChar(text_[i_]) || text_[i_] == '.')) {
      return ErrorAt(pos, "malformed number");
    }
    Emit(TokenKind::kInt, start);
    if (!absl::SimpleAtoi(out_.back().text, &out_.back().number)) {
      return ErrorAt(pos, "integer %s is out of range", out_.back().text);
    }
    return absl::OkStatus();
  }

  // A string in single quotes, '' standing for one quote.
  absl::Status ScanString() {
    const size_t n = text_.size();
    const int pos = pos_of_[i_];
    std::string value;
    ++i_;
    while (true) {
      if (i_ == n) return ErrorAt(pos, "unterminated string");
      if (text_[i_] == '\'') {
        if (i_ + 1 < n && text_[i_ + 1] == '\'') {
          value += '\'';
          i_ += 2;
          continue;
        }
        ++i_;
        break;
      }
      value += text_[i_++];
    }
    out_.push_back(Token{TokenKind::kString, std::move(value), 0, pos});
    return absl::OkStatus();
  }

  // An operator or punctuation mark.
  absl::Status ScanPunct() {
    const size_t start = i_;
    const char c = text_[i_];
    const char next = i_ + 1 < text_.size() ? text_[i_ + 1] : '\0';
    TokenKind kind;
    size_t len = 1;
    switch (c) {
      case '(':
        kind = TokenKind::kLParen;
        break;
      case ')':
        kind = TokenKind::kRParen;
        break;
      case ',':
        kind = TokenKind::kComma;
        break;
      case '=':
        kind = TokenKind::kEq;
        break;
      case '?':
        kind = TokenKind::kQuestion;
        break;
      case '~':
        kind = next == '*' ? TokenKind::kTildeStar : TokenKind::kTilde;
        len = kind == TokenKind::kTilde ? 1 : 2;
        break;
      case '<':
        kind = next == '=' ? TokenKind::kLe : next == '>' ? TokenKind::kNe : TokenKind::kLt;
        len = kind == TokenKind::kLt ? 1 : 2;
        break;
      case '>':
        kind = next == '=' ? TokenKind::kGe : TokenKind::kGt;
        len = kind == TokenKind::kGe ? 2 : 1;
        break;
      case '!':
        if (next == '=') {
          kind = TokenKind::kNe;
          len = 2;
          break;
        }
        if (next == '~') {
          const bool star = i_ + 2 < text_.size() && text_[i_ + 2] == '*';
          kind = star ? TokenKind::kNotTildeStar : TokenKind::kNotTilde;
          len = star ? 3 : 2;
          break;
        }
        [[fallthrough]];
      default: {
        size_t end = i_;
        char32_t cp;
        NextCodePoint(text_, &end, &cp);
        return ErrorAt(pos_of_[i_], "unexpected character '%s'", text_.substr(i_, end - i_));
      }
    }
    i_ += len;
    Emit(kind, start);
    return absl::OkStatus();
  }

  const std::string_view text_;
  const std::vector<int>& pos_of_;  // byte offset -> character position
  size_t i_ = 0;
  std::vector<Token> out_;
};

}  // namespace

absl::StatusOr<std::vector<Token>> Lex(std::string_view text) {
  std::vector<int> pos_of;
  if (absl::Status st = CharPositions(text, &pos_of); !st.ok()) return st;
  return Lexer(text, pos_of).Run();
}

}  // namespace cub::where::internal
