#include "lib/cel/lexer.h"

#include <cstdint>
#include <string_view>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "lib/cel/absl_compat.h"
#include "lib/util/utf8.h"

namespace cub::cel::internal {

namespace {

bool IsIdentStart(char c) { return absl::ascii_isalpha(c) || c == '_'; }
bool IsIdentChar(char c) { return absl::ascii_isalnum(c) || c == '_'; }

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

class Lexer {
 public:
  explicit Lexer(const Source& source) : source_(source), s_(source.text()) {}

  absl::StatusOr<std::vector<Token>> Run() {
    size_t bad = FindInvalidUtf8(s_);
    if (bad != std::string_view::npos) {
      return source_.Error(static_cast<int>(bad), "invalid UTF-8");
    }
    std::vector<Token> out;
    while (true) {
      SkipSpaceAndComments();
      Token t;
      t.offset = static_cast<int>(pos_);
      if (pos_ >= s_.size()) {
        out.push_back(std::move(t));
        return out;
      }
      absl::Status st = Next(&t);
      if (!st.ok()) return st;
      out.push_back(std::move(t));
    }
  }

 private:
  void SkipSpaceAndComments() {
    while (pos_ < s_.size()) {
      char c = s_[pos_];
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f') {
        ++pos_;
      } else if (c == '/' && pos_ + 1 < s_.size() && s_[pos_ + 1] == '/') {
        while (pos_ < s_.size() && s_[pos_] != '\n') ++pos_;
      } else {
        return;
      }
    }
  }

  absl::Status Error(size_t at, std::string_view msg) {
    return source_.Error(static_cast<int>(at), msg);
  }

  char Peek(size_t ahead = 0) const { return pos_ + ahead < s_.size() ? s_[pos_ + ahead] : '\0'; }

  absl::Status Next(Token* t) {
    char c = s_[pos_];
    if (absl::ascii_isdigit(c) || (c == '.' && absl::ascii_isdigit(Peek(1)))) {
      return Number(t);
    }
    if (IsIdentStart(c)) {
      size_t start = pos_;
      while (pos_ < s_.size() && IsIdentChar(s_[pos_])) ++pos_;
      std::string_view word = s_.substr(start, pos_ - start);
      char q = Peek();
      if ((q == '\'' || q == '"') && word.size() <= 2) {
        bool raw = false, bytes = false, ok = true;
        for (char p : word) {
          char l = absl::ascii_tolower(p);
          if (l == 'r' && !raw) {
            raw = true;
          } else if (l == 'b' && !bytes) {
            bytes = true;
          } else {
            ok = false;
          }
        }
        if (ok) return StringLiteral(t, raw, bytes);
      }
      t->kind = Tok::kIdent;
      t->text = std::string(word);
      return absl::OkStatus();
    }
    if (c == '\'' || c == '"') return StringLiteral(t, false, false);
    if (c == '`') {
      size_t start = ++pos_;
      while (pos_ < s_.size() && s_[pos_] != '`') {
        char d = s_[pos_];
        if (!(absl::ascii_isalnum(d) || d == '_' || d == '.' || d == '-' || d == '/' || d == ' ')) {
          return Error(pos_, "invalid character in quoted identifier");
        }
        ++pos_;
      }
      if (pos_ >= s_.size()) return Error(t->offset, "unterminated quoted identifier");
      if (pos_ == start) return Error(t->offset, "empty quoted identifier");
      t->kind = Tok::kQuotedIdent;
      t->text = std::string(s_.substr(start, pos_ - start));
      ++pos_;
      return absl::OkStatus();
    }
    struct Op {
      const char* text;
      Tok kind;
    };
    static const Op kOps[] = {
        {"==", Tok::kEq},      {"!=", Tok::kNe},      {"<=", Tok::kLe},      {">=", Tok::kGe},
        {"&&", Tok::kAnd},     {"||", Tok::kOr},      {"<", Tok::kLt},       {">", Tok::kGt},
        {"!", Tok::kNot},      {"+", Tok::kPlus},     {"-", Tok::kMinus},    {"*", Tok::kStar},
        {"/", Tok::kSlash},    {"%", Tok::kPercent},  {"?", Tok::kQuestion}, {":", Tok::kColon},
        {".", Tok::kDot},      {",", Tok::kComma},    {"(", Tok::kLParen},   {")", Tok::kRParen},
        {"[", Tok::kLBracket}, {"]", Tok::kRBracket}, {"{", Tok::kLBrace},   {"}", Tok::kRBrace},
    };
    for (const Op& op : kOps) {
      std::string_view text(op.text);
      if (s_.substr(pos_, text.size()) == text) {
        t->kind = op.kind;
        pos_ += text.size();
        return absl::OkStatus();
      }
    }
    if (c == '=') return Error(pos_, "unexpected '=' (use == to compare)");
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
      return Error(pos_, absl::StrCat("unexpected control character 0x",
                                      absl::Hex(static_cast<unsigned char>(c))));
    }
    size_t len = 1;
    while (pos_ + len < s_.size() && (static_cast<unsigned char>(s_[pos_ + len]) & 0xC0) == 0x80) {
      ++len;
    }
    return Error(pos_, absl::StrCat("unexpected character '", Sv(s_.substr(pos_, len)), "'"));
  }

  absl::Status Number(Token* t) {
    size_t start = pos_;
    if (s_[pos_] == '0' && (Peek(1) == 'x' || Peek(1) == 'X') && HexValue(Peek(2)) >= 0) {
      pos_ += 2;
      while (pos_ < s_.size() && HexValue(s_[pos_]) >= 0) ++pos_;
      t->text = std::string(s_.substr(start, pos_ - start));
      t->kind = Tok::kInt;
      if (Peek() == 'u' || Peek() == 'U') {
        ++pos_;
        t->kind = Tok::kUint;
      }
      return absl::OkStatus();
    }
    bool is_double = false;
    while (pos_ < s_.size() && absl::ascii_isdigit(s_[pos_])) ++pos_;
    if (Peek() == '.' && absl::ascii_isdigit(Peek(1))) {
      is_double = true;
      ++pos_;
      while (pos_ < s_.size() && absl::ascii_isdigit(s_[pos_])) ++pos_;
    }
    if (Peek() == 'e' || Peek() == 'E') {
      size_t k = 1;
      if (Peek(k) == '+' || Peek(k) == '-') ++k;
      if (absl::ascii_isdigit(Peek(k))) {
        is_double = true;
        pos_ += k;
        while (pos_ < s_.size() && absl::ascii_isdigit(s_[pos_])) ++pos_;
      }
    }
    t->text = std::string(s_.substr(start, pos_ - start));
    t->kind = is_double ? Tok::kDouble : Tok::kInt;
    if (!is_double && (Peek() == 'u' || Peek() == 'U')) {
      ++pos_;
      t->kind = Tok::kUint;
    }
    return absl::OkStatus();
  }

  // At the opening quote; `raw` and `bytes` from the prefix already consumed.
  absl::Status StringLiteral(Token* t, bool raw, bool bytes) {
    char q = s_[pos_];
    bool triple = Peek(1) == q && Peek(2) == q;
    size_t open = pos_;
    pos_ += triple ? 3 : 1;
    std::string out;
    while (true) {
      if (pos_ >= s_.size()) return Error(open, "unterminated string literal");
      char c = s_[pos_];
      if (c == q && (!triple || (Peek(1) == q && Peek(2) == q))) {
        pos_ += triple ? 3 : 1;
        break;
      }
      if (!triple && (c == '\n' || c == '\r')) {
        return Error(open, "unterminated string literal (use ''' or \"\"\" for several lines)");
      }
      if (c != '\\' || raw) {
        out.push_back(c);
        ++pos_;
        continue;
      }
      absl::Status st = Escape(bytes, &out);
      if (!st.ok()) return st;
    }
    t->kind = bytes ? Tok::kBytes : Tok::kString;
    t->text = std::move(out);
    return absl::OkStatus();
  }

  // At a backslash in a non-raw literal.
  absl::Status Escape(bool bytes, std::string* out) {
    size_t at = pos_;
    char e = Peek(1);
    pos_ += 2;
    switch (e) {
      case 'a':
        out->push_back('\a');
        return absl::OkStatus();
      case 'b':
        out->push_back('\b');
        return absl::OkStatus();
      case 'f':
        out->push_back('\f');
        return absl::OkStatus();
      case 'n':
        out->push_back('\n');
        return absl::OkStatus();
      case 'r':
        out->push_back('\r');
        return absl::OkStatus();
      case 't':
        out->push_back('\t');
        return absl::OkStatus();
      case 'v':
        out->push_back('\v');
        return absl::OkStatus();
      case '\\':
      case '\'':
      case '"':
      case '`':
      case '?':
        out->push_back(e);
        return absl::OkStatus();
      default:
        break;
    }
    uint32_t value = 0;
    int digits = 0, base = 16;
    if (e == 'x' || e == 'X') {
      digits = 2;
    } else if (e == 'u' || e == 'U') {
      if (bytes) return Error(at, "\\u escapes are not allowed in bytes literals");
      digits = e == 'u' ? 4 : 8;
    } else if (e >= '0' && e <= '3') {
      base = 8;
      digits = 2;
      value = e - '0';
    } else {
      return Error(at, "invalid escape sequence");
    }
    for (int i = 0; i < digits; ++i) {
      int d = pos_ < s_.size() ? HexValue(s_[pos_]) : -1;
      if (d < 0 || d >= base) return Error(at, "invalid escape sequence");
      value = value * base + d;
      ++pos_;
    }
    if (bytes) {
      out->push_back(static_cast<char>(value));
    } else if (!AppendUtf8(value, out)) {
      return Error(at, "invalid Unicode code point in escape");
    }
    return absl::OkStatus();
  }

  const Source& source_;
  std::string_view s_;
  size_t pos_ = 0;
};

}  // namespace

absl::StatusOr<std::vector<Token>> Lex(const Source& source) { return Lexer(source).Run(); }

}  // namespace cub::cel::internal
