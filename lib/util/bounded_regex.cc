#include "lib/util/bounded_regex.h"

#include <algorithm>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "lib/util/utf8.h"

namespace cub {
namespace {

constexpr size_t kQuotedCodePoints = 40;

const char* ErrorText(RE2::ErrorCode code) {
  switch (code) {
    case RE2::ErrorBadEscape:
      return "invalid escape";
    case RE2::ErrorBadCharClass:
      return "invalid character class";
    case RE2::ErrorBadCharRange:
      return "invalid character class range";
    case RE2::ErrorMissingBracket:
      return "missing ']'";
    case RE2::ErrorMissingParen:
      return "missing ')'";
    case RE2::ErrorUnexpectedParen:
      return "unexpected ')'";
    case RE2::ErrorTrailingBackslash:
      return "trailing '\\'";
    case RE2::ErrorRepeatArgument:
      return "repetition operator with nothing to repeat";
    case RE2::ErrorRepeatSize:
      return "invalid or too large repetition count";
    case RE2::ErrorRepeatOp:
      return "invalid repetition operator";
    case RE2::ErrorBadPerlOp:
      return "invalid group syntax";
    case RE2::ErrorBadUTF8:
      return "invalid UTF-8";
    case RE2::ErrorBadNamedCapture:
      return "invalid named group";
    default:
      return "cannot be compiled";
  }
}

}  // namespace

std::string QuoteForMessage(std::string_view pattern) {
  size_t end = 0;
  for (size_t n = 0; end < pattern.size() && n < kQuotedCodePoints; ++n) {
    char32_t cp;
    if (!DecodeUtf8(pattern, &end, &cp)) ++end;  // a stray byte counts as one
  }
  std::string out = "'";
  out.append(pattern.data(), std::min(end, pattern.size()));
  if (end < pattern.size()) out += "\xE2\x80\xA6";  // U+2026 …
  return out + "'";
}

RE2::Options BudgetedOptions(RE2::Options options, const RegexBudget& budget) {
  options.set_max_mem(budget.max_mem);
  options.set_log_errors(false);
  return options;
}

absl::StatusOr<std::shared_ptr<const RE2>> CompileBoundedRegex(std::string_view pattern,
                                                               const RE2::Options& options,
                                                               const RegexBudget& budget) {
  if (pattern.size() > budget.max_pattern_bytes) {
    return absl::InvalidArgumentError(
        absl::StrCat("regular expression ", QuoteForMessage(pattern), " is ", pattern.size(),
                     " bytes long; the limit is ", budget.max_pattern_bytes));
  }
  auto re = std::make_shared<const RE2>(re2::StringPiece(pattern.data(), pattern.size()),
                                        BudgetedOptions(options, budget));
  if (re->error_code() == RE2::ErrorPatternTooLarge ||
      (re->ok() && re->ProgramSize() > budget.max_program_size)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "regular expression ", QuoteForMessage(pattern), " is too complex: it compiles to ",
        re->ok() ? absl::StrCat(re->ProgramSize(), " instructions") : "more than fits in memory",
        "; the limit is ", budget.max_program_size));
  }
  if (!re->ok()) {
    std::string msg = absl::StrCat("invalid regular expression ", QuoteForMessage(pattern), ": ",
                                   ErrorText(re->error_code()));
    const std::string& arg = re->error_arg();
    if (!arg.empty() && arg != pattern) absl::StrAppend(&msg, " ", QuoteForMessage(arg));
    return absl::InvalidArgumentError(msg);
  }
  return re;
}

}  // namespace cub
