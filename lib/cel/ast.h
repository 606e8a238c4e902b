// The syntax tree of a CEL expression, as the parser builds it and the resolver and checker
// annotate it. Operators are calls with CEL's internal names ("_+_", "_&&_", "!_", "-_",
// "_?_:_", "_[_]", "@in", "_==_" ...); the macros has(), all(), exists(), exists_one(),
// map() and filter() are expanded by the parser into test-only selects and comprehension
// nodes.
//
// Internal to lib/cel. Built and annotated once by Program::Compile, then only read:
// evaluation never mutates it, so one tree serves concurrent evaluations.

#ifndef CUB_LIB_CEL_AST_H_
#define CUB_LIB_CEL_AST_H_

#include <memory>
#include <string>
#include <vector>

#include "lib/cel/type.h"
#include "lib/cel/value.h"

namespace re2 {
class RE2;
}

namespace cub::cel::internal {

// Deeper trees are refused by the parser, so that checking and evaluation, which recurse
// over the tree, need bounded stack.
inline constexpr int kMaxDepth = 100;

struct Expr {
  enum class Kind {
    kLiteral,        // literal
    kIdent,          // name
    kSelect,         // args[0].name; test_only for has(args[0].name)
    kCall,           // name(args...) or, with receiver, args[0].name(args[1...])
    kList,           // [args...]
    kMap,            // {args[0]: args[1], args[2]: args[3], ...}
    kComprehension,  // args[0].macro(iter_var, args[1] [, args[2]])
  };
  // What an identifier names, decided by the resolver.
  enum class Ref { kUnresolved, kLocal, kVariable, kTypeName };
  enum class Macro { kAll, kExists, kExistsOne, kMap, kFilter };

  Kind kind = Kind::kLiteral;
  int offset = 0;  // byte offset in the source, for messages
  int depth = 1;   // height of this subtree

  Value literal;
  std::string name;
  std::vector<std::unique_ptr<Expr>> args;
  bool receiver = false;     // kCall
  bool test_only = false;    // kSelect
  bool root_scoped = false;  // kIdent written with a leading '.'

  Ref ref = Ref::kUnresolved;  // kIdent
  Type declared_type;          // kIdent with kVariable: the declared type

  Macro macro = Macro::kAll;  // kComprehension
  std::string iter_var;       // kComprehension
  // kComprehension kMap with three arguments, list.map(x, filter, transform): args[1] is the
  // transform and args[2] the filter.

  std::shared_ptr<const re2::RE2> regex;  // kCall "matches" with a literal pattern

  Type type;  // set by the checker (Dyn when checking is off)
};

}  // namespace cub::cel::internal

#endif  // CUB_LIB_CEL_AST_H_
