#include "lib/functions/template.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "lib/util/status_macros.h"

namespace cub::functions {
namespace {

// Walks TEXT, calling `literal` for text and `param` for each placeholder's name.
template <typename Literal, typename Param>
absl::Status Walk(std::string_view text, Literal literal, Param param) {
  size_t pos = 0;
  while (pos < text.size()) {
    size_t open = text.find("{{", pos);
    if (open == std::string_view::npos) {
      literal(text.substr(pos));
      break;
    }
    literal(text.substr(pos, open - pos));
    size_t close = text.find("}}", open + 2);
    if (close == std::string_view::npos) {
      return absl::InvalidArgumentError(
          absl::StrCat("template '", std::string(text), "': '{{' without '}}'"));
    }
    absl::string_view inner(text.data() + open + 2, close - open - 2);
    inner = absl::StripAsciiWhitespace(inner);
    if (!absl::ConsumePrefix(&inner, ".Params.") || inner.empty() ||
        inner.find_first_of(" \t{}") != absl::string_view::npos) {
      return absl::InvalidArgumentError(
          absl::StrCat("template '", std::string(text), "': use {{ .Params.NAME }}, not {{",
                       std::string(text.substr(open + 2, close - open - 2)), "}}"));
    }
    CUB_RETURN_IF_ERROR(param(std::string(inner)));
    pos = close + 2;
  }
  return absl::OkStatus();
}

// Splits "template:TEXT", "--name=template:TEXT" or "name=template:TEXT" into the part kept
// as is ("", "--name=", "name=") and TEXT; false for a plain argument.
bool SplitTemplate(std::string_view argument, std::string_view* keep, std::string_view* text) {
  size_t at = 0;
  if (argument.substr(0, kTemplatePrefix.size()) != kTemplatePrefix) {
    size_t eq = argument.find('=');
    if (eq == std::string_view::npos ||
        argument.substr(eq + 1, kTemplatePrefix.size()) != kTemplatePrefix ||
        argument.substr(0, eq).find_first_of(" \t") != std::string_view::npos) {
      return false;
    }
    at = eq + 1;
  }
  *keep = argument.substr(0, at);
  *text = argument.substr(at + kTemplatePrefix.size());
  return true;
}

}  // namespace

absl::StatusOr<std::vector<std::string>> TemplateParams(std::string_view argument) {
  std::vector<std::string> names;
  std::string_view keep, text;
  if (!SplitTemplate(argument, &keep, &text)) return names;
  absl::Status s = Walk(
      text, [](std::string_view) {},
      [&names](const std::string& name) {
        names.push_back(name);
        return absl::OkStatus();
      });
  if (!s.ok()) return s;
  return names;
}

absl::StatusOr<std::string> ExpandTemplate(std::string_view argument,
                                           const std::map<std::string, std::string>& params) {
  std::string_view keep, text;
  if (!SplitTemplate(argument, &keep, &text)) return std::string(argument);
  std::string out(keep);
  absl::Status s = Walk(
      text, [&out](std::string_view text) { out.append(text.data(), text.size()); },
      [&out, &params](const std::string& name) -> absl::Status {
        auto it = params.find(name);
        if (it == params.end()) {
          return absl::InvalidArgumentError(
              absl::StrCat("parameter '", name, "' has no value: pass --param ", name, "=VALUE"));
        }
        out += it->second;
        return absl::OkStatus();
      });
  if (!s.ok()) return s;
  return out;
}

}  // namespace cub::functions
