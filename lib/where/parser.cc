#include "lib/where/parser.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "lib/where/error.h"
#include "lib/where/lexer.h"

namespace cub::where {
namespace {

using internal::ErrorAt;
using internal::Token;
using internal::TokenKind;

bool IsKeyword(const Token& t, const char* keyword) {
  return t.kind == TokenKind::kIdent && absl::EqualsIgnoreCase(t.text, keyword);
}

// Words that cannot name a field. LEN is not among them: it is a keyword only before '('.
bool IsReserved(const Token& t) {
  for (const char* kw :
       {"AND", "OR", "NOT", "IN", "IS", "NULL", "LIKE", "ILIKE", "TRUE", "FALSE"}) {
    if (IsKeyword(t, kw)) return true;
  }
  return false;
}

class Parser {
 public:
  explicit Parser(std::vector<Token> tokens) : tokens_(std::move(tokens)) {}

  absl::StatusOr<Expr> ParseAll() {
    absl::StatusOr<Expr> e = ParseOr();
    if (!e.ok()) return e;
    if (Peek().kind != TokenKind::kEnd) {
      return ErrorAt(Peek().pos, "unexpected %s", Describe(Peek()));
    }
    return e;
  }

 private:
  const Token& Peek(size_t ahead = 0) const {
    return tokens_[std::min(next_ + ahead, tokens_.size() - 1)];
  }
  const Token& Next() {
    const Token& t = Peek();
    if (next_ < tokens_.size() - 1) ++next_;
    return t;
  }

  static std::string Describe(const Token& t) {
    switch (t.kind) {
      case TokenKind::kEnd:
        return "end of input";
      case TokenKind::kString:
        return "string";
      default:
        return "'" + t.text + "'";
    }
  }

  absl::StatusOr<Expr> ParseOr() { return ParseChain(Expr::Kind::kOr, "OR"); }
  absl::StatusOr<Expr> ParseAnd() { return ParseChain(Expr::Kind::kAnd, "AND"); }

  // or := and ('OR' and)* ; and := not ('AND' not)*
  absl::StatusOr<Expr> ParseChain(Expr::Kind kind, const char* keyword) {
    absl::StatusOr<Expr> first = kind == Expr::Kind::kOr ? ParseAnd() : ParseNot();
    if (!first.ok() || !IsKeyword(Peek(), keyword)) return first;
    Expr e;
    e.kind = kind;
    e.pos = first->pos;
    e.children.push_back(*std::move(first));
    while (IsKeyword(Peek(), keyword)) {
      Next();
      absl::StatusOr<Expr> more = kind == Expr::Kind::kOr ? ParseAnd() : ParseNot();
      if (!more.ok()) return more;
      e.children.push_back(*std::move(more));
    }
    return e;
  }

  absl::Status Enter(int pos) {
    if (++depth_ > kMaxNesting) return ErrorAt(pos, "expression nested too deeply");
    return absl::OkStatus();
  }

  // not := 'NOT' not | primary ; primary := '(' expr ')' | predicate
  absl::StatusOr<Expr> ParseNot() {
    const Token& t = Peek();
    const int pos = t.pos;
    if (IsKeyword(t, "NOT")) {
      Next();
      if (absl::Status st = Enter(pos); !st.ok()) return st;
      absl::StatusOr<Expr> inner = ParseNot();
      --depth_;
      if (!inner.ok()) return inner;
      Expr e;
      e.kind = Expr::Kind::kNot;
      e.pos = pos;
      e.children.push_back(*std::move(inner));
      return e;
    }
    if (t.kind == TokenKind::kLParen) {
      Next();
      if (absl::Status st = Enter(pos); !st.ok()) return st;
      absl::StatusOr<Expr> inner = ParseOr();
      --depth_;
      if (!inner.ok()) return inner;
      if (Peek().kind != TokenKind::kRParen) {
        return ErrorAt(Peek().pos, "expected ')', got %s", Describe(Peek()));
      }
      Next();
      inner->pos = pos;
      return inner;
    }
    absl::StatusOr<Predicate> p = ParsePredicate();
    if (!p.ok()) return p.status();
    Expr e;
    e.kind = Expr::Kind::kPredicate;
    e.pos = pos;
    e.predicate = *std::move(p);
    return e;
  }

  absl::StatusOr<Operand> ParseOperand() {
    Operand operand;
    if (IsKeyword(Peek(), "LEN") && Peek(1).kind == TokenKind::kLParen) {
      Next();
      Next();
      operand.len = true;
    }
    const Token& f = Peek();
    if (f.kind != TokenKind::kIdent || IsReserved(f)) {
      return ErrorAt(f.pos, "expected a field, got %s", Describe(f));
    }
    operand.field = f.text;
    operand.pos = f.pos;
    Next();
    if (operand.len) {
      if (Peek().kind != TokenKind::kRParen) {
        return ErrorAt(Peek().pos, "expected ')' after LEN's field");
      }
      Next();
    }
    return operand;
  }

  absl::StatusOr<Predicate> ParsePredicate() {
    Predicate p;
    absl::StatusOr<Operand> operand = ParseOperand();
    if (!operand.ok()) return operand.status();
    p.operand = *std::move(operand);
    const Token& o = Next();
    p.op_pos = o.pos;
    switch (o.kind) {
      case TokenKind::kEq:
        return WithValue(std::move(p), Op::kEq, o);
      case TokenKind::kNe:
        return WithValue(std::move(p), Op::kNe, o);
      case TokenKind::kLt:
        return WithValue(std::move(p), Op::kLt, o);
      case TokenKind::kLe:
        return WithValue(std::move(p), Op::kLe, o);
      case TokenKind::kGt:
        return WithValue(std::move(p), Op::kGt, o);
      case TokenKind::kGe:
        return WithValue(std::move(p), Op::kGe, o);
      case TokenKind::kQuestion:
        return WithValue(std::move(p), Op::kContains, o);
      case TokenKind::kTilde:
        return WithString(std::move(p), Op::kRegex, o);
      case TokenKind::kTildeStar:
        return WithString(std::move(p), Op::kIRegex, o);
      case TokenKind::kNotTilde:
        return WithString(std::move(p), Op::kNotRegex, o);
      case TokenKind::kNotTildeStar:
        return WithString(std::move(p), Op::kNotIRegex, o);
      default:
        break;
    }
    if (IsKeyword(o, "IS")) {
      p.op = Op::kIsNull;
      if (IsKeyword(Peek(), "NOT")) {
        Next();
        p.op = Op::kIsNotNull;
      }
      if (!IsKeyword(Peek(), "NULL")) return ErrorAt(Peek().pos, "expected NULL after IS");
      Next();
      return p;
    }
    bool negated = false;
    const Token* word = &o;
    if (IsKeyword(o, "NOT")) {
      negated = true;
      word = &Next();
    }
    if (IsKeyword(*word, "IN")) return WithList(std::move(p), negated ? Op::kNotIn : Op::kIn);
    if (IsKeyword(*word, "LIKE")) {
      return WithString(std::move(p), negated ? Op::kNotLike : Op::kLike, *word);
    }
    if (IsKeyword(*word, "ILIKE")) {
      return WithString(std::move(p), negated ? Op::kNotILike : Op::kILike, *word);
    }
    if (negated) return ErrorAt(word->pos, "expected IN, LIKE or ILIKE after NOT");
    return ErrorAt(o.pos, "expected an operator after '%s', got %s", p.operand.field, Describe(o));
  }

  absl::StatusOr<Literal> ParseValue(const Token& after) {
    const Token& v = Peek();
    Literal lit;
    lit.pos = v.pos;
    if (v.kind == TokenKind::kString) {
      lit.value = v.text;
    } else if (v.kind == TokenKind::kInt) {
      lit.value = v.number;
    } else if (IsKeyword(v, "TRUE") || IsKeyword(v, "FALSE")) {
      lit.value = IsKeyword(v, "TRUE");
    } else if (IsKeyword(v, "NULL")) {
      return ErrorAt(v.pos, "use IS NULL or IS NOT NULL to test for null");
    } else {
      return ErrorAt(v.pos, "expected a value after '%s'", after.text);
    }
    Next();
    return lit;
  }

  absl::StatusOr<Predicate> WithValue(Predicate p, Op op, const Token& after) {
    p.op = op;
    absl::StatusOr<Literal> v = ParseValue(after);
    if (!v.ok()) return v.status();
    p.values.push_back(*std::move(v));
    return p;
  }

  absl::StatusOr<Predicate> WithString(Predicate p, Op op, const Token& after) {
    if (Peek().kind != TokenKind::kString) {
      return ErrorAt(Peek().pos, "expected a string after '%s'", after.text);
    }
    return WithValue(std::move(p), op, after);
  }

  absl::StatusOr<Predicate> WithList(Predicate p, Op op) {
    p.op = op;
    if (Peek().kind != TokenKind::kLParen) return ErrorAt(Peek().pos, "expected '(' after IN");
    const Token* after = &Next();
    while (true) {
      absl::StatusOr<Literal> v = ParseValue(*after);
      if (!v.ok()) return v.status();
      p.values.push_back(*std::move(v));
      if (Peek().kind == TokenKind::kRParen) {
        Next();
        return p;
      }
      if (Peek().kind != TokenKind::kComma) {
        return ErrorAt(Peek().pos, "expected ',' or ')' in the IN list, got %s", Describe(Peek()));
      }
      after = &Next();
    }
  }

  std::vector<Token> tokens_;
  size_t next_ = 0;
  int depth_ = 0;
};

}  // namespace

absl::StatusOr<std::shared_ptr<const Expr>> Parse(std::string_view text) {
  if (text.size() > kMaxTextBytes) {
    return ErrorAt(1, "expression is %d bytes long; the limit is %d", text.size(), kMaxTextBytes);
  }
  absl::StatusOr<std::vector<Token>> tokens = internal::Lex(text);
  if (!tokens.ok()) return tokens.status();
  if (tokens->front().kind == TokenKind::kEnd) return std::make_shared<const Expr>();
  Parser parser(*std::move(tokens));
  absl::StatusOr<Expr> e = parser.ParseAll();
  if (!e.ok()) return e.status();
  return std::make_shared<const Expr>(*std::move(e));
}

}  // namespace cub::where
