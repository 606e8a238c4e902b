#include "lib/workflow/model.h"

#include <algorithm>
#include <tuple>

#include "absl/strings/str_cat.h"

namespace cub::workflow {

std::string_view StageModeName(StageMode mode) {
  return mode == StageMode::kAutomatic ? "Automatic" : "Manual";
}

std::optional<StageMode> ParseStageMode(std::string_view text) {
  if (text == "Manual") return StageMode::kManual;
  if (text == "Automatic") return StageMode::kAutomatic;
  return std::nullopt;
}

bool operator==(const Stage& a, const Stage& b) {
  return std::tie(a.name, a.where_space, a.prerequisites, a.release_prerequisites, a.mode,
                  a.auto_release, a.soak_time) == std::tie(b.name, b.where_space, b.prerequisites,
                                                           b.release_prerequisites, b.mode,
                                                           b.auto_release, b.soak_time);
}

bool operator==(const Final& a, const Final& b) { return a.prerequisites == b.prerequisites; }

bool operator==(const CustomPrerequisite& a, const CustomPrerequisite& b) {
  return std::tie(a.name, a.expression, a.description) ==
         std::tie(b.name, b.expression, b.description);
}

bool operator==(const AttestationPrerequisite& a, const AttestationPrerequisite& b) {
  return std::tie(a.name, a.type, a.count, a.from_user_ids, a.from_groups, a.distinct_groups,
                  a.max_age, a.allow_authors, a.ignore_fail, a.description) ==
         std::tie(b.name, b.type, b.count, b.from_user_ids, b.from_groups, b.distinct_groups,
                  b.max_age, b.allow_authors, b.ignore_fail, b.description);
}

bool operator==(const Workflow& a, const Workflow& b) {
  return a.stages == b.stages && a.final == b.final &&
         a.custom_prerequisites == b.custom_prerequisites &&
         a.attestation_prerequisites == b.attestation_prerequisites;
}

bool IsBuiltinPrerequisite(std::string_view name) {
  return name == kValidated || name == kReleased || name == kHealthy || name == kSoaked;
}

const Stage* FindStage(const Workflow& w, std::string_view name) {
  for (const Stage& s : w.stages) {
    if (s.name == name) return &s;
  }
  return nullptr;
}

const CustomPrerequisite* FindCustomPrerequisite(const Workflow& w, std::string_view name) {
  for (const CustomPrerequisite& c : w.custom_prerequisites) {
    if (c.name == name) return &c;
  }
  return nullptr;
}

const AttestationPrerequisite* FindAttestationPrerequisite(const Workflow& w,
                                                           std::string_view name) {
  for (const AttestationPrerequisite& a : w.attestation_prerequisites) {
    if (a.name == name) return &a;
  }
  return nullptr;
}

bool GatesOnAttestation(const Workflow& w) {
  const auto attestation = [&w](const std::string& name) {
    return !IsBuiltinPrerequisite(name) && FindCustomPrerequisite(w, name) == nullptr &&
           FindAttestationPrerequisite(w, name) != nullptr;
  };
  const auto any = [&](const std::vector<std::string>& names) {
    return std::any_of(names.begin(), names.end(), attestation);
  };
  if (any(w.final.prerequisites)) return true;
  return std::any_of(w.stages.begin(), w.stages.end(), [&](const Stage& s) {
    return any(s.prerequisites) || any(s.release_prerequisites);
  });
}

namespace {

// A positive, finite Abseil duration; `field` and `example` name it in the refusal.
absl::StatusOr<absl::Duration> ParsePositiveDuration(const std::string& field,
                                                     std::string_view text,
                                                     const std::string& example) {
  absl::Duration d;
  if (!absl::ParseDuration(absl::string_view(text.data(), text.size()), &d)) {
    return absl::InvalidArgumentError(absl::StrCat(
        field, " '", std::string(text), "' is not a duration: use a number with a unit h, m or s,",
        " such as ", example));
  }
  if (d <= absl::ZeroDuration() || d == absl::InfiniteDuration()) {
    return absl::InvalidArgumentError(
        absl::StrCat(field, " '", std::string(text),
                     "' must be a positive, finite duration, such as ", example));
  }
  return d;
}

}  // namespace

absl::StatusOr<absl::Duration> ParseMaxAge(std::string_view text) {
  if (text.empty()) return absl::InfiniteDuration();
  return ParsePositiveDuration("MaxAge", text, "72h");
}

absl::StatusOr<absl::Duration> ParseSoakTime(std::string_view text) {
  if (text.empty()) return absl::ZeroDuration();
  return ParsePositiveDuration("SoakTime", text, "24h");
}

}  // namespace cub::workflow
