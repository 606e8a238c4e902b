// The syntax tree of a where expression, as Parse produces it. It records what the user
// wrote (field names as written, literals as typed, 1-based character positions for error
// messages) and knows nothing of any Schema: resolving fields and checking types happen when
// the tree is compiled to SQL or prepared for in-memory matching.
//
// Plain values: copyable, and immutable once shared by Parse.

#ifndef CUB_LIB_WHERE_AST_H_
#define CUB_LIB_WHERE_AST_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace cub::where {

enum class Op {
  kEq,         // =
  kNe,         // != or <>
  kLt,         // <
  kLe,         // <=
  kGt,         // >
  kGe,         // >=
  kIn,         // IN (v, ...)
  kNotIn,      // NOT IN (v, ...)
  kIsNull,     // IS NULL
  kIsNotNull,  // IS NOT NULL
  kContains,   // ?   (a list field contains the value)
  kLike,       // LIKE
  kNotLike,    // NOT LIKE
  kILike,      // ILIKE
  kNotILike,   // NOT ILIKE
  kRegex,      // ~   (regular expression search)
  kIRegex,     // ~*  (the same, ignoring case)
  kNotRegex,   // !~  (no match)
  kNotIRegex,  // !~* (no match, ignoring case)
};

// The operator as canonical text writes it (a static string): "=", "!=", "NOT IN", "IS NULL",
// "?", "~" ...
const char* OpText(Op op);

// A literal: 'string' (quotes undone), integer, true/false.
struct Literal {
  std::variant<std::string, int64_t, bool> value;
  int pos = 0;  // of its first character
};

// The left side of a predicate: a field, or LEN(field).
struct Operand {
  std::string field;  // dotted name as written, e.g. "Labels.tier"
  bool len = false;   // LEN(field)
  int pos = 0;        // of the field name
};

struct Predicate {
  Operand operand;
  Op op = Op::kEq;
  int op_pos = 0;
  // None for IS [NOT] NULL; one or more for [NOT] IN; exactly one otherwise.
  std::vector<Literal> values;
};

struct Expr {
  enum class Kind {
    kTrue,  // blank text: matches everything
    kAnd,   // children: two or more
    kOr,    // children: two or more
    kNot,   // children: exactly one
    kPredicate,
  };
  Kind kind = Kind::kTrue;
  std::vector<Expr> children;
  Predicate predicate;  // kPredicate only
  int pos = 1;          // of the expression's first character
};

// The field names `e` uses, as written ("Labels.tier"), each once, in order of appearance.
std::vector<std::string> FieldsUsed(const Expr& e);

// Canonical where text for `e`: keywords upper case, every AND, OR and NOT parenthesized,
// literals re-quoted. Parsing it gives back an equal tree (positions aside). kTrue gives "".
std::string ToString(const Expr& e);

}  // namespace cub::where

#endif  // CUB_LIB_WHERE_AST_H_
