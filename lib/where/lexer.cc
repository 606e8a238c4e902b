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

}  // namespace

absl::StatusOr<std::vector<Token>> Lex(std::string_view text) {
  std::vector<int> pos_of;
  if (absl::Status st = CharPositions(text, &pos_of); !st.ok()) return st;
  const size_t n = text.size();
  std::vector<Token> out;
  size_t i = 0;
  auto emit = [&](TokenKind kind, size_t start, size_t end) {
    out.push_back(Token{kind, std::string(text.substr(start, end - start)), 0, pos_of[start]});
  };
  while (true) {
    while (i < n && IsSpace(text[i])) ++i;
    if (i == n) break;
    const size_t start = i;
    const int pos = pos_of[i];
    const char c = text[i];
    if (IsIdentStart(c)) {
      ++i;
      while (i < n) {
        if (IsIdentChar(text[i])) {
          ++i;
        } else if (text[i] == '.' && i + 1 < n && IsSegmentStart(text[i + 1])) {
          i += 2;
        } else if (text[i] == '.') {
          return ErrorAt(pos_of[i], "expected a name after '.'");
        } else {
          break;
        }
      }
      emit(TokenKind::kIdent, start, i);
    } else if (IsDigit(c) || (c == '-' && i + 1 < n && IsDigit(text[i + 1]))) {
      ++i;
      while (i < n && IsDigit(text[i])) ++i;
      if (i < n && (IsIdentChar(text[i]) || text[i] == '.')) {
        return ErrorAt(pos, "malformed number");
      }
      emit(TokenKind::kInt, start, i);
      if (!absl::SimpleAtoi(out.back().text, &out.back().number)) {
        return ErrorAt(pos, "integer %s is out of range", out.back().text);
      }
    } else if (c == '\'') {
      std::string value;
      ++i;
      while (true) {
        if (i == n) return ErrorAt(pos, "unterminated string");
        if (text[i] == '\'') {
          if (i + 1 < n && text[i + 1] == '\'') {
            value += '\'';
            i += 2;
            continue;
          }
          ++i;
          break;
        }
        value += text[i++];
      }
      out.push_back(Token{TokenKind::kString, std::move(value), 0, pos});
    } else {
      TokenKind kind;
      size_t len = 1;
      const char next = i + 1 < n ? text[i + 1] : '\0';
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
          kind = TokenKind::kTilde;
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
          [[fallthrough]];
        default: {
          size_t end = i;
          char32_t cp;
          NextCodePoint(text, &end, &cp);
          return ErrorAt(pos, "unexpected character '%s'", text.substr(i, end - i));
        }
      }
      i += len;
      emit(kind, start, i);
    }
  }
  out.push_back(Token{TokenKind::kEnd, "", 0, pos_of[n]});
  return out;
}

}  // namespace cub::where::internal
