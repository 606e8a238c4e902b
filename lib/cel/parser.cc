#include "lib/cel/parser.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "lib/cel/lexer.h"
#include "lib/cel/numbers.h"

namespace cub::cel::internal {

namespace {

using ExprPtr = std::unique_ptr<Expr>;

bool IsReserved(const std::string& word) {
  static const char* const kReserved[] = {
      "in",     "as",  "break", "const",   "continue",  "else",   "for", "function", "if",
      "import", "let", "loop",  "package", "namespace", "return", "var", "void",     "while"};
  return std::find(std::begin(kReserved), std::end(kReserved), word) != std::end(kReserved);
}

const char* TokText(Tok k) {
  switch (k) {
    case Tok::kEnd:
      return "end of expression";
    case Tok::kIdent:
      return "identifier";
    case Tok::kQuotedIdent:
      return "quoted identifier";
    case Tok::kInt:
    case Tok::kUint:
    case Tok::kDouble:
      return "number";
    case Tok::kString:
      return "string";
    case Tok::kBytes:
      return "bytes";
    case Tok::kLParen:
      return "'('";
    case Tok::kRParen:
      return "')'";
    case Tok::kLBracket:
      return "'['";
    case Tok::kRBracket:
      return "']'";
    case Tok::kLBrace:
      return "'{'";
    case Tok::kRBrace:
      return "'}'";
    case Tok::kDot:
      return "'.'";
    case Tok::kComma:
      return "','";
    case Tok::kColon:
      return "':'";
    case Tok::kQuestion:
      return "'?'";
    case Tok::kPlus:
      return "'+'";
    case Tok::kMinus:
      return "'-'";
    case Tok::kStar:
      return "'*'";
    case Tok::kSlash:
      return "'/'";
    case Tok::kPercent:
      return "'%'";
    case Tok::kNot:
      return "'!'";
    case Tok::kEq:
      return "'=='";
    case Tok::kNe:
      return "'!='";
    case Tok::kLt:
      return "'<'";
    case Tok::kLe:
      return "'<='";
    case Tok::kGt:
      return "'>'";
    case Tok::kGe:
      return "'>='";
    case Tok::kAnd:
      return "'&&'";
    case Tok::kOr:
      return "'||'";
  }
  return "token";
}

// Integer literal text (decimal or 0x hex, no sign) as a magnitude; false on overflow.
bool Magnitude(const std::string& text, uint64_t* out) {
  uint64_t v = 0;
  bool hex = text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X');
  uint64_t base = hex ? 16 : 10;
  for (size_t i = hex ? 2 : 0; i < text.size(); ++i) {
    char c = text[i];
    uint64_t d = c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10;
    if (v > (UINT64_MAX - d) / base) return false;
    v = v * base + d;
  }
  *out = v;
  return true;
}

class Parser {
 public:
  Parser(const Source& source, std::vector<Token> tokens)
      : source_(source), toks_(std::move(tokens)) {}

  absl::StatusOr<ExprPtr> Run() {
    ExprPtr e = ParseExpr();
    if (e != nullptr && Cur().kind != Tok::kEnd) Unexpected();
    if (!error_.ok()) return error_;
    return e;
  }

 private:
  // Counts nesting of the recursive productions (every Expr, which parentheses, brackets,
  // braces and calls go through, and every run of unary operators); refuses more than
  // kMaxDepth.
  class DepthGuard {
   public:
    explicit DepthGuard(Parser* p) : p_(p) { ++p_->nesting_; }
    ~DepthGuard() { --p_->nesting_; }
    bool ok() const {
      if (p_->nesting_ <= kMaxDepth) return true;
      p_->Fail(p_->Cur().offset, TooDeep());
      return false;
    }

   private:
    Parser* p_;
  };
  static std::string TooDeep() {
    return absl::StrCat("expression nested too deeply (more than ", kMaxDepth, " levels)");
  }

  const Token& Cur() const { return toks_[i_]; }
  const Token& PeekTok(size_t ahead) const { return toks_[std::min(i_ + ahead, toks_.size() - 1)]; }
  bool At(Tok k) const { return Cur().kind == k; }
  const Token& Advance() {
    const Token& t = toks_[i_];
    if (i_ + 1 < toks_.size()) ++i_;
    return t;
  }

  void Fail(int offset, std::string_view msg) {
    if (error_.ok()) error_ = source_.Error(offset, msg);
  }
  std::nullptr_t Unexpected() {
    Fail(Cur().offset, absl::StrCat("syntax error: unexpected ", TokText(Cur().kind),
                                    At(Tok::kIdent) ? absl::StrCat(" '", Cur().text, "'") : ""));
    return nullptr;
  }
  bool Expect(Tok k) {
    if (At(k)) {
      Advance();
      return true;
    }
    Fail(Cur().offset,
         absl::StrCat("syntax error: expected ", TokText(k), ", got ", TokText(Cur().kind)));
    return false;
  }

  ExprPtr Node(Expr::Kind kind, int offset) {
    auto e = std::make_unique<Expr>();
    e->kind = kind;
    e->offset = offset;
    return e;
  }
  // Appends `child` to `parent->args` and updates the depth; false when too deep.
  bool Adopt(Expr* parent, ExprPtr child) {
    parent->depth = std::max(parent->depth, child->depth + 1);
    parent->args.push_back(std::move(child));
    if (parent->depth > kMaxDepth) {
      Fail(parent->offset, TooDeep());
      return false;
    }
    return true;
  }
  ExprPtr Call(std::string fn, int offset, std::vector<ExprPtr> args, bool receiver = false) {
    ExprPtr e = Node(Expr::Kind::kCall, offset);
    e->name = std::move(fn);
    e->receiver = receiver;
    for (ExprPtr& a : args) {
      if (!Adopt(e.get(), std::move(a))) return nullptr;
    }
    return e;
  }
  ExprPtr Call2(const char* fn, int offset, ExprPtr a, ExprPtr b) {
    std::vector<ExprPtr> args;
    args.push_back(std::move(a));
    args.push_back(std::move(b));
    return Call(fn, offset, std::move(args));
  }

  ExprPtr ParseExpr() {
    DepthGuard guard(this);
    if (!guard.ok()) return nullptr;
    ExprPtr cond = ParseLogical(Tok::kOr);
    if (cond == nullptr || !At(Tok::kQuestion)) return cond;
    int offset = Advance().offset;
    ExprPtr yes = ParseLogical(Tok::kOr);
    if (yes == nullptr || !Expect(Tok::kColon)) return nullptr;
    ExprPtr no = ParseExpr();
    if (no == nullptr) return nullptr;
    std::vector<ExprPtr> args;
    args.push_back(std::move(cond));
    args.push_back(std::move(yes));
    args.push_back(std::move(no));
    return Call("_?_:_", offset, std::move(args));
  }

  // `||` chains (op kOr) of `&&` chains (op kAnd) of relations, built balanced.
  ExprPtr ParseLogical(Tok op) {
    std::vector<ExprPtr> operands;
    std::vector<int> offsets;
    auto operand = [&] { return op == Tok::kOr ? ParseLogical(Tok::kAnd) : ParseRelation(); };
    ExprPtr first = operand();
    if (first == nullptr) return nullptr;
    operands.push_back(std::move(first));
    while (At(op)) {
      offsets.push_back(Advance().offset);
      ExprPtr next = operand();
      if (next == nullptr) return nullptr;
      operands.push_back(std::move(next));
    }
    return Balance(op == Tok::kOr ? "_||_" : "_&&_", operands, offsets, 0, operands.size() - 1);
  }
  ExprPtr Balance(const char* fn, std::vector<ExprPtr>& operands, const std::vector<int>& offsets,
                  size_t lo, size_t hi) {
    if (lo == hi) return std::move(operands[lo]);
    size_t mid = (lo + hi) / 2;
    ExprPtr left = Balance(fn, operands, offsets, lo, mid);
    ExprPtr right = left ? Balance(fn, operands, offsets, mid + 1, hi) : nullptr;
    if (right == nullptr) return nullptr;
    return Call2(fn, offsets[mid], std::move(left), std::move(right));
  }

  ExprPtr ParseRelation() {
    ExprPtr left = ParseAddition();
    while (left != nullptr) {
      const char* fn = nullptr;
      switch (Cur().kind) {
        case Tok::kLt:
          fn = "_<_";
          break;
        case Tok::kLe:
          fn = "_<=_";
          break;
        case Tok::kGt:
          fn = "_>_";
          break;
        case Tok::kGe:
          fn = "_>=_";
          break;
        case Tok::kEq:
          fn = "_==_";
          break;
        case Tok::kNe:
          fn = "_!=_";
          break;
        case Tok::kIdent:
          if (Cur().text == "in") fn = "@in";
          break;
        default:
          break;
      }
      if (fn == nullptr) break;
      int offset = Advance().offset;
      ExprPtr right = ParseAddition();
      if (right == nullptr) return nullptr;
      left = Call2(fn, offset, std::move(left), std::move(right));
    }
    return left;
  }

  ExprPtr ParseAddition() {
    ExprPtr left = ParseMultiplication();
    while (left != nullptr && (At(Tok::kPlus) || At(Tok::kMinus))) {
      const char* fn = At(Tok::kPlus) ? "_+_" : "_-_";
      int offset = Advance().offset;
      ExprPtr right = ParseMultiplication();
      if (right == nullptr) return nullptr;
      left = Call2(fn, offset, std::move(left), std::move(right));
    }
    return left;
  }

  ExprPtr ParseMultiplication() {
    ExprPtr left = ParseUnary();
    while (left != nullptr && (At(Tok::kStar) || At(Tok::kSlash) || At(Tok::kPercent))) {
      const char* fn = At(Tok::kStar) ? "_*_" : At(Tok::kSlash) ? "_/_" : "_%_";
      int offset = Advance().offset;
      ExprPtr right = ParseUnary();
      if (right == nullptr) return nullptr;
      left = Call2(fn, offset, std::move(left), std::move(right));
    }
    return left;
  }

  ExprPtr ParseUnary() {
    if (!At(Tok::kNot) && !At(Tok::kMinus)) return ParseMember();
    DepthGuard guard(this);
    if (!guard.ok()) return nullptr;
    Tok op = Cur().kind;
    int offset = Cur().offset;
    int count = 0;
    while (At(op)) {
      Advance();
      ++count;
    }
    if (op == Tok::kMinus && count == 1 && (At(Tok::kInt) || At(Tok::kDouble))) {
      ExprPtr lit = Literal(/*negative=*/true);
      if (lit == nullptr) return nullptr;
      lit->offset = offset;
      return ParseMemberSuffix(std::move(lit));
    }
    ExprPtr operand = ParseUnary();
    if (operand == nullptr || count % 2 == 0) return operand;
    std::vector<ExprPtr> args;
    args.push_back(std::move(operand));
    return Call(op == Tok::kNot ? "!_" : "-_", offset, std::move(args));
  }

  ExprPtr ParseMember() {
    ExprPtr e = ParsePrimary();
    if (e == nullptr) return nullptr;
    return ParseMemberSuffix(std::move(e));
  }

  ExprPtr ParseMemberSuffix(ExprPtr e) {
    while (e != nullptr) {
      if (At(Tok::kDot)) {
        Advance();
        if (!At(Tok::kIdent) && !At(Tok::kQuotedIdent)) {
          Fail(Cur().offset, absl::StrCat("syntax error: expected a field name after '.', got ",
                                          TokText(Cur().kind)));
          return nullptr;
        }
        bool quoted = At(Tok::kQuotedIdent);
        const Token& name = Advance();
        if (!quoted && At(Tok::kLParen)) {
          e = MemberCall(std::move(e), name);
          continue;
        }
        ExprPtr sel = Node(Expr::Kind::kSelect, name.offset);
        sel->name = name.text;
        if (!Adopt(sel.get(), std::move(e))) return nullptr;
        e = std::move(sel);
      } else if (At(Tok::kLBracket)) {
        int offset = Advance().offset;
        ExprPtr index = ParseExpr();
        if (index == nullptr || !Expect(Tok::kRBracket)) return nullptr;
        e = Call2("_[_]", offset, std::move(e), std::move(index));
      } else if (At(Tok::kLBrace) &&
                 (e->kind == Expr::Kind::kIdent || e->kind == Expr::Kind::kSelect)) {
        Fail(Cur().offset, "message construction (Name{...}) is not supported");
        return nullptr;
      } else {
        break;
      }
    }
    return e;
  }

  // At '(' after `receiver.name`.
  ExprPtr MemberCall(ExprPtr receiver, const Token& name) {
    std::vector<ExprPtr> args;
    if (!ParseArgs(Tok::kLParen, Tok::kRParen, &args)) return nullptr;
    static const struct {
      const char* name;
      Expr::Macro macro;
      size_t min_args, max_args;
    } kMacros[] = {
        {"all", Expr::Macro::kAll, 2, 2},
        {"exists", Expr::Macro::kExists, 2, 2},
        {"exists_one", Expr::Macro::kExistsOne, 2, 2},
        {"map", Expr::Macro::kMap, 2, 3},
        {"filter", Expr::Macro::kFilter, 2, 2},
    };
    for (const auto& m : kMacros) {
      if (name.text != m.name || args.size() < m.min_args || args.size() > m.max_args) continue;
      const Expr& var = *args[0];
      if (var.kind != Expr::Kind::kIdent || var.root_scoped) {
        Fail(var.offset, absl::StrCat("argument 1 of ", m.name, "() must be a simple name"));
        return nullptr;
      }
      ExprPtr c = Node(Expr::Kind::kComprehension, name.offset);
      c->macro = m.macro;
      c->iter_var = var.name;
      if (!Adopt(c.get(), std::move(receiver))) return nullptr;
      if (args.size() == 3) {  // map(x, filter, transform): store transform first
        std::swap(args[1], args[2]);
      }
      for (size_t i = 1; i < args.size(); ++i) {
        if (!Adopt(c.get(), std::move(args[i]))) return nullptr;
      }
      return c;
    }
    args.insert(args.begin(), std::move(receiver));
    return Call(name.text, name.offset, std::move(args), /*receiver=*/true);
  }

  // Comma-separated expressions between `open` and `close`; a trailing comma is allowed
  // except in calls.
  bool ParseArgs(Tok open, Tok close, std::vector<ExprPtr>* out) {
    if (!Expect(open)) return false;
    while (!At(close)) {
      ExprPtr e = ParseExpr();
      if (e == nullptr) return false;
      out->push_back(std::move(e));
      if (!At(Tok::kComma)) break;
      Advance();
      if (close == Tok::kRParen && At(close)) {
        Unexpected();
        return false;
      }
    }
    return Expect(close);
  }

  ExprPtr Literal(bool negative) {
    const Token& t = Advance();
    ExprPtr e = Node(Expr::Kind::kLiteral, t.offset);
    switch (t.kind) {
      case Tok::kInt: {
        uint64_t mag;
        bool ok = Magnitude(t.text, &mag);
        if (ok && negative && mag <= (uint64_t{1} << 63)) {
          e->literal = Value::Int(static_cast<int64_t>(0 - mag));
        } else if (ok && !negative && mag <= static_cast<uint64_t>(INT64_MAX)) {
          e->literal = Value::Int(static_cast<int64_t>(mag));
        } else {
          Fail(t.offset, "integer literal out of range");
          return nullptr;
        }
        return e;
      }
      case Tok::kUint: {
        uint64_t mag;
        if (!Magnitude(t.text, &mag)) {
          Fail(t.offset, "unsigned integer literal out of range");
          return nullptr;
        }
        e->literal = Value::Uint(mag);
        return e;
      }
      case Tok::kDouble: {
        std::optional<double> d = ParseDouble(t.text);
        if (!d.has_value()) {
          Fail(t.offset, "invalid number");
          return nullptr;
        }
        e->literal = Value::Double(negative ? -*d : *d);
        return e;
      }
      case Tok::kString:
        e->literal = Value::String(t.text);
        return e;
      case Tok::kBytes:
        e->literal = Value::Bytes(t.text);
        return e;
      default:
        return Unexpected();
    }
  }

  ExprPtr ParsePrimary() {
    switch (Cur().kind) {
      case Tok::kInt:
      case Tok::kUint:
      case Tok::kDouble:
      case Tok::kString:
      case Tok::kBytes:
        return Literal(/*negative=*/false);
      case Tok::kLParen: {
        Advance();
        ExprPtr e = ParseExpr();
        if (e == nullptr || !Expect(Tok::kRParen)) return nullptr;
        return e;
      }
      case Tok::kLBracket: {
        ExprPtr list = Node(Expr::Kind::kList, Cur().offset);
        std::vector<ExprPtr> elems;
        if (!ParseArgs(Tok::kLBracket, Tok::kRBracket, &elems)) return nullptr;
        for (ExprPtr& el : elems) {
          if (!Adopt(list.get(), std::move(el))) return nullptr;
        }
        return list;
      }
      case Tok::kLBrace:
        return ParseMap();
      case Tok::kDot:
        if (PeekTok(1).kind == Tok::kIdent) {
          Advance();
          return Identifier(/*root_scoped=*/true);
        }
        return Unexpected();
      case Tok::kIdent:
        return Identifier(/*root_scoped=*/false);
      case Tok::kQuotedIdent:
        Fail(Cur().offset, "quoted identifiers are only allowed after '.'");
        return nullptr;
      default:
        return Unexpected();
    }
  }

  ExprPtr ParseMap() {
    ExprPtr map = Node(Expr::Kind::kMap, Advance().offset);
    while (!At(Tok::kRBrace)) {
      ExprPtr key = ParseExpr();
      if (key == nullptr || !Expect(Tok::kColon)) return nullptr;
      ExprPtr value = ParseExpr();
      if (value == nullptr) return nullptr;
      if (!Adopt(map.get(), std::move(key)) || !Adopt(map.get(), std::move(value))) {
        return nullptr;
      }
      if (!At(Tok::kComma)) break;
      Advance();
    }
    if (!Expect(Tok::kRBrace)) return nullptr;
    return map;
  }

  ExprPtr Identifier(bool root_scoped) {
    const Token& t = Advance();
    if (!root_scoped && (t.text == "true" || t.text == "false")) {
      ExprPtr e = Node(Expr::Kind::kLiteral, t.offset);
      e->literal = Value::Bool(t.text == "true");
      return e;
    }
    if (!root_scoped && t.text == "null") return Node(Expr::Kind::kLiteral, t.offset);
    if (IsReserved(t.text) || t.text == "true" || t.text == "false" || t.text == "null") {
      Fail(t.offset, absl::StrCat("reserved word '", t.text, "' cannot be used as a name"));
      return nullptr;
    }
    if (!At(Tok::kLParen)) {
      ExprPtr e = Node(Expr::Kind::kIdent, t.offset);
      e->name = t.text;
      e->root_scoped = root_scoped;
      return e;
    }
    std::vector<ExprPtr> args;
    if (!ParseArgs(Tok::kLParen, Tok::kRParen, &args)) return nullptr;
    if (t.text == "has" && !root_scoped) {
      if (args.size() != 1 || args[0]->kind != Expr::Kind::kSelect || args[0]->test_only) {
        Fail(t.offset, "has() takes one field selection, e.g. has(Space.Labels.tier)");
        return nullptr;
      }
      args[0]->test_only = true;
      return std::move(args[0]);
    }
    return Call(t.text, t.offset, std::move(args));
  }

  const Source& source_;
  std::vector<Token> toks_;
  size_t i_ = 0;
  int nesting_ = 0;
  absl::Status error_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<Expr>> Parse(const Source& source) {
  absl::StatusOr<std::vector<Token>> tokens = Lex(source);
  if (!tokens.ok()) return tokens.status();
  return Parser(source, *std::move(tokens)).Run();
}

}  // namespace cub::cel::internal
