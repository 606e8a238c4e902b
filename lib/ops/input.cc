#include "lib/ops/input.h"

#include <cctype>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace cub::ops {

absl::Status ValidateSlug(const std::string& kind, const std::string& slug) {
  bool ok =
      !slug.empty() && slug.size() <= 128 && std::isalnum(static_cast<unsigned char>(slug[0]));
  for (char c : slug) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_' && c != '.') {
      ok = false;
    }
  }
  if (!ok) {
    return absl::InvalidArgumentError(absl::StrCat(
        kind, " name '", slug,
        "' is not valid: use 1-128 letters, digits, '-', '_' or '.', starting with a letter or "
        "digit"));
  }
  return absl::OkStatus();
}

absl::Status ValidateKeys(const char* what,
                          const google::protobuf::Map<std::string, std::string>& m) {
  for (const auto& [k, v] : m) {
    if (k.empty() || k.find_first_of(" \t\r\n=") != std::string::npos) {
      return absl::InvalidArgumentError(absl::StrCat(what, " key '", k, "' is not valid"));
    }
  }
  return absl::OkStatus();
}

absl::Status AlreadyExistsAs(const absl::Status& s, const std::string& what) {
  // Only the database's own wording; refusals written here already say what exists.
  if (s.code() != absl::StatusCode::kAlreadyExists ||
      !absl::StartsWith(s.message(), "duplicate key")) {
    return s;
  }
  return absl::AlreadyExistsError(absl::StrCat(what, " already exists"));
}

absl::StatusOr<std::optional<domain::PriorRevisions>> PriorRevisionsField(const std::string& text,
                                                                          const char* field) {
  if (text.empty()) return std::nullopt;
  if (auto p = domain::ParsePriorRevisions(text)) return p;
  return absl::InvalidArgumentError(
      absl::StrCat(field, " '", text, "' is not one of ",
                   domain::JoinNames(domain::kAllPriorRevisions, domain::PriorRevisionsName)));
}

absl::StatusOr<std::optional<domain::UpdateType>> UpdateTypeField(const std::string& text,
                                                                  const char* field) {
  if (text.empty()) return std::nullopt;
  if (auto t = domain::ParseUpdateType(text)) return t;
  return absl::InvalidArgumentError(
      absl::StrCat(field, " '", text, "' is not one of ",
                   domain::JoinNames(domain::kAllUpdateTypes, domain::UpdateTypeName)));
}

std::map<std::string, std::string> ToMap(const google::protobuf::Map<std::string, std::string>& m) {
  return std::map<std::string, std::string>(m.begin(), m.end());
}

}  // namespace cub::ops
