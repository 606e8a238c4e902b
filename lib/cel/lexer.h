// Splits CEL text into tokens. String and bytes literals come out decoded (escapes undone,
// raw and triple-quoted forms handled); numbers come out as their source text for the parser
// to read, because whether "-9223372036854775808" fits depends on the sign before it.
//
// Internal to lib/cel. Pure function; thread-safe.

#ifndef CUB_LIB_CEL_LEXER_H_
#define CUB_LIB_CEL_LEXER_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "lib/cel/source.h"

namespace cub::cel::internal {

enum class Tok {
  kEnd,
  kIdent,        // name, also keywords (true, in, ...): the parser tells them apart
  kQuotedIdent,  // `content-type` (only valid after '.')
  kInt,          // text: digits or 0x..., no sign
  kUint,         // text without the u suffix
  kDouble,       // text
  kString,       // text: decoded UTF-8
  kBytes,        // text: decoded bytes
  kLParen,
  kRParen,
  kLBracket,
  kRBracket,
  kLBrace,
  kRBrace,
  kDot,
  kComma,
  kColon,
  kQuestion,
  kPlus,
  kMinus,
  kStar,
  kSlash,
  kPercent,
  kNot,
  kEq,
  kNe,
  kLt,
  kLe,
  kGt,
  kGe,
  kAnd,
  kOr,
};

struct Token {
  Tok kind = Tok::kEnd;
  int offset = 0;  // byte offset of the token's first character
  std::string text;
};

// All tokens of `source`, ending with one kEnd. Errors (with position): invalid UTF-8,
// unknown characters, unterminated or malformed literals and escapes.
absl::StatusOr<std::vector<Token>> Lex(const Source& source);

}  // namespace cub::cel::internal

#endif  // CUB_LIB_CEL_LEXER_H_
