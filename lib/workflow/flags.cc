#include "lib/workflow/flags.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "lib/util/status_macros.h"
#include "lib/workflow/flag_declarations.h"
#include "lib/workflow/flag_values.h"
#include "lib/workflow/names.h"

namespace cub::workflow {
namespace {

using internal::CheckOnce;
using internal::FlagError;
using internal::NameValue;
using internal::ParseList;
using internal::SplitNameValue;

std::string DefaultWhereSpace(const std::string& stage) {
  return absl::StrCat("Labels.Stage = '", stage, "'");  // names hold no quotes (IsValidName)
}

// The Stages named with --stage, in that order, each the existing Stage of that name or a new
// one selecting Labels.Stage = '<name>'.
absl::StatusOr<std::vector<Stage>> NamedStages(const std::vector<std::string>& names,
                                               const Workflow& existing) {
  std::vector<Stage> stages;
  for (const std::string& raw : names) {
    CUB_ASSIGN_OR_RETURN(NameValue nv, SplitNameValue("--stage", raw, "stage", false));
    if (nv.has_value) {
      return FlagError("--stage", raw,
                       "give the stage's name alone; set what it selects with "
                       "--stage-where-space STAGE=EXPR");
    }
    for (const Stage& s : stages) {
      if (EqualsIgnoreCase(s.name, nv.name)) {
        return FlagError("--stage", raw, absl::StrCat("stage '", s.name, "' is given twice"));
      }
    }
    if (const Stage* old = FindStage(existing, nv.name)) {
      stages.push_back(*old);
    } else {
      stages.push_back(Stage{nv.name, DefaultWhereSpace(nv.name), {}, {}});
    }
  }
  return stages;
}

// Applies a per-Stage flag (STAGE=VALUE) with `set`.
template <typename Set>
absl::Status ApplyStageFlag(std::string_view flag, const std::vector<std::string>& values,
                            Workflow* w, Set set) {
  std::vector<std::string> seen;
  for (const std::string& raw : values) {
    CUB_ASSIGN_OR_RETURN(NameValue nv, SplitNameValue(flag, raw, "stage", true));
    CUB_RETURN_IF_ERROR(CheckOnce(flag, raw, nv.name, &seen));
    Stage* stage = nullptr;
    for (Stage& s : w->stages) {
      if (s.name == nv.name) stage = &s;
    }
    if (stage == nullptr) {
      std::vector<std::string> names;
      for (const Stage& s : w->stages) names.push_back(s.name);
      return FlagError(flag, raw,
                       absl::StrCat("no stage '", nv.name, "' (stages: ",
                                    names.empty() ? "none" : absl::StrJoin(names, ", "), ")"));
    }
    CUB_RETURN_IF_ERROR(set(raw, nv.value, stage));
  }
  return absl::OkStatus();
}

absl::Status ApplyStageFlags(const WorkflowFlags& flags, Workflow* w) {
  CUB_RETURN_IF_ERROR(ApplyStageFlag(
      "--stage-where-space", flags.stage_where_space, w,
      [](const std::string& raw, const std::string& value, Stage* stage) -> absl::Status {
        if (value.find_first_not_of(" \t\r\n") == std::string::npos) {
          return FlagError("--stage-where-space", raw, "the where expression is empty");
        }
        stage->where_space = value;
        return absl::OkStatus();
      }));
  CUB_RETURN_IF_ERROR(ApplyStageFlag(
      "--stage-prerequisites", flags.stage_prerequisites, w,
      [](const std::string& raw, const std::string& value, Stage* stage) -> absl::Status {
        CUB_ASSIGN_OR_RETURN(std::vector<std::string> names,
                             ParseList("--stage-prerequisites", raw, value, "prerequisite"));
        stage->prerequisites = std::move(names);
        return absl::OkStatus();
      }));
  CUB_RETURN_IF_ERROR(ApplyStageFlag(
      "--stage-release-prerequisites", flags.stage_release_prerequisites, w,
      [](const std::string& raw, const std::string& value, Stage* stage) -> absl::Status {
        CUB_ASSIGN_OR_RETURN(
            std::vector<std::string> names,
            ParseList("--stage-release-prerequisites", raw, value, "prerequisite"));
        stage->release_prerequisites = std::move(names);
        return absl::OkStatus();
      }));
  CUB_RETURN_IF_ERROR(ApplyStageFlag(
      "--stage-mode", flags.stage_mode, w,
      [](const std::string& raw, const std::string& value, Stage* stage) -> absl::Status {
        std::optional<StageMode> mode = ParseStageMode(value);
        if (!mode) return FlagError("--stage-mode", raw, "the mode is Manual or Automatic");
        stage->mode = *mode;
        return absl::OkStatus();
      }));
  CUB_RETURN_IF_ERROR(ApplyStageFlag(
      "--stage-auto-release", flags.stage_auto_release, w,
      [](const std::string& raw, const std::string& value, Stage* stage) -> absl::Status {
        CUB_ASSIGN_OR_RETURN(stage->auto_release, internal::ParseBool("--stage-auto-release", raw,
                                                                      {stage->name, value, true}));
        return absl::OkStatus();
      }));
  return ApplyStageFlag(
      "--stage-soak-time", flags.stage_soak_time, w,
      [](const std::string& raw, const std::string& value, Stage* stage) -> absl::Status {
        if (absl::StatusOr<absl::Duration> d = ParseSoakTime(value); !d.ok()) {
          return FlagError("--stage-soak-time", raw, std::string(d.status().message()));
        }
        stage->soak_time = value;
        return absl::OkStatus();
      });
}

}  // namespace

bool WorkflowFlags::empty() const {
  return stages.empty() && !prerequisites && !final_prerequisites && stage_where_space.empty() &&
         stage_prerequisites.empty() && stage_release_prerequisites.empty() && stage_mode.empty() &&
         stage_auto_release.empty() && stage_soak_time.empty() && custom_prerequisites.empty() &&
         custom_prerequisite_descriptions.empty() && attestation_prerequisites.empty() &&
         attestation_prerequisite_types.empty() && attestation_prerequisite_counts.empty() &&
         attestation_prerequisite_from_user_ids.empty() &&
         attestation_prerequisite_from_groups.empty() &&
         attestation_prerequisite_distinct_groups.empty() &&
         attestation_prerequisite_max_ages.empty() &&
         attestation_prerequisite_allow_authors.empty() &&
         attestation_prerequisite_ignore_fail.empty() &&
         attestation_prerequisite_descriptions.empty() && delete_prerequisites.empty();
}

absl::StatusOr<Workflow> FromFlags(const WorkflowFlags& flags) {
  if (flags.stages.empty()) {
    return absl::InvalidArgumentError(
        "--stage is required: name each stage, in order (or give the whole workflow with "
        "--filename)");
  }
  return ApplyFlags(Workflow(), flags);
}

absl::StatusOr<Workflow> ApplyFlags(const Workflow& existing, const WorkflowFlags& flags) {
  Workflow w = existing;
  if (!flags.stages.empty()) {
    CUB_ASSIGN_OR_RETURN(std::vector<Stage> stages, NamedStages(flags.stages, existing));
    w.stages = std::move(stages);
  }
  CUB_RETURN_IF_ERROR(internal::ApplyDeclarationFlags(flags, &w));
  if (flags.prerequisites) {
    CUB_ASSIGN_OR_RETURN(
        std::vector<std::string> names,
        ParseList("--prerequisites", *flags.prerequisites, *flags.prerequisites, "prerequisite"));
    for (size_t i = 1; i < w.stages.size(); ++i) w.stages[i].prerequisites = names;
    w.final.prerequisites = names;
  }
  if (flags.final_prerequisites) {
    CUB_ASSIGN_OR_RETURN(std::vector<std::string> names,
                         ParseList("--final-prerequisites", *flags.final_prerequisites,
                                   *flags.final_prerequisites, "prerequisite"));
    w.final.prerequisites = std::move(names);
  }
  CUB_RETURN_IF_ERROR(ApplyStageFlags(flags, &w));
  return w;
}

}  // namespace cub::workflow
