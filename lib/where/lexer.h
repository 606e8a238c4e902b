// Splits where text into tokens. Identifiers cover whole dotted field names, including map
// keys ("Labels.app.kubernetes.io/name"); keywords are identifiers too and are told apart by
// the parser, so a keyword's case does not matter. String literals come out with their
// quotes undone ('it''s' -> it's).
//
// Internal to lib/where. Pure function; thread-safe.

#ifndef CUB_LIB_WHERE_LEXER_H_
#define CUB_LIB_WHERE_LEXER_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace cub::where::internal {

enum class TokenKind {
  kIdent,   // [A-Za-z_][A-Za-z0-9_/-]* segments joined by '.'
  kString,  // 'text'
  kInt,     // -?[0-9]+, fits int64
  kLParen,
  kRParen,
  kComma,
  kEq,            // =
  kNe,            // != or <>
  kLt,            // <
  kLe,            // <=
  kGt,            // >
  kGe,            // >=
  kQuestion,      // ?
  kTilde,         // ~
  kTildeStar,     // ~*
  kNotTilde,      // !~
  kNotTildeStar,  // !~*
  kEnd,           // after the last token
};

struct Token {
  TokenKind kind;
  std::string text;  // identifier, string contents, or the source text of the token
  int64_t number = 0;
  int pos = 0;  // 1-based character position; for kEnd, one past the last character
};

// The tokens of `text`, always ending with one kEnd. Errors: malformed UTF-8, NUL characters,
// unterminated strings, integers out of range, and characters outside the language (';', '"',
// ...), each with its position.
absl::StatusOr<std::vector<Token>> Lex(std::string_view text);

}  // namespace cub::where::internal

#endif  // CUB_LIB_WHERE_LEXER_H_
