// The ChangeWorkflow definition as a plain value: the ordered Stages a change moves through,
// what must hold before it enters each one (Prerequisites) or is released in it
// (ReleasePrerequisites), what says the rollout is done (Final), and the custom (CEL) and
// attestation prerequisites the workflow declares for those lists to name.
//
// Field names follow the API's PascalCase JSON (Stages[].WhereSpace ...), see emit.h. Nothing
// here checks anything: parse.h reads a definition, validate.h says whether it is usable, and
// flags.h builds or edits one from command-line flags.
//
// Plain value types: copyable, comparable, no invariants; thread-compatible.

#ifndef CUB_LIB_WORKFLOW_MODEL_H_
#define CUB_LIB_WORKFLOW_MODEL_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace cub::workflow {

// The built-in prerequisites, which every workflow may name without declaring them.
inline constexpr std::string_view kValidated = "Validated";
inline constexpr std::string_view kReleased = "Released";
inline constexpr std::string_view kHealthy = "Healthy";
// Holds over a Space once the Release there carrying the change has been reported Healthy,
// without a Degraded report since, for the SoakTime of the Stage whose Prerequisites name it.
inline constexpr std::string_view kSoaked = "Soaked";

// The attestation type an AttestationPrerequisite requires when it names none.
inline constexpr std::string_view kDefaultAttestationType = "Approval";

// Who moves a change into a Stage. Not part of a change's intent: the server reads it from the
// workflow as it is now, never from a ChangeOrder's copy, so a switch takes effect at once.
enum class StageMode {
  kManual,     // someone promotes (or queues a promotion) into it
  kAutomatic,  // the server promotes the newest ChangeOrder once its entry gates hold
};

// "Manual", "Automatic": the spelling in the workflow file and the API.
std::string_view StageModeName(StageMode mode);
std::optional<StageMode> ParseStageMode(std::string_view text);

struct Stage {
  std::string name;
  // A where expression over Spaces selecting the Stage's members among the ChangeOrder's
  // in-scope Spaces.
  std::string where_space;
  // Entry gates, evaluated over the Stage before (the first Stage's over the base): built-in,
  // custom or attestation prerequisite names.
  std::vector<std::string> prerequisites;
  // Gates on publishing a Release for the ChangeOrder in this Stage's own Spaces: attestation
  // prerequisite names only.
  std::vector<std::string> release_prerequisites;
  StageMode mode = StageMode::kManual;
  // Whether the server publishes a Release in each Space of the Stage that has taken a change
  // once that Space's release gates hold.
  bool auto_release = false;
  // How long the Release carrying the change must have been Healthy in each Space of the Stage
  // before, for this Stage's `Soaked` prerequisite; as ParseSoakTime reads it ("24h", "90m"),
  // empty for none. Kept as written, like MaxAge.
  std::string soak_time;
};

struct Final {
  // What must hold in the last Stage for the rollout to read as completed.
  std::vector<std::string> prerequisites;
};

struct CustomPrerequisite {
  std::string name;
  // "cel:" followed by a bool CEL expression over Space, ChangeOrder, Release and now
  // (custom_gate.h).
  std::string expression;
  std::string description;
};

struct AttestationPrerequisite {
  std::string name;
  std::string type = std::string(kDefaultAttestationType);
  // Distinct eligible attesters required for every revision the requirement reads.
  int count = 1;
  // Who is eligible: users listed here or members of a group listed in from_groups; both
  // empty means anyone with the Approve permission on the Space.
  std::vector<std::string> from_user_ids;
  std::vector<std::string> from_groups;
  // The `count` attesters must come from `count` different groups of from_groups.
  bool distinct_groups = false;
  // How old an attestation may be, as ParseMaxAge reads it ("72h", "1h30m"); empty for no
  // limit. Kept as written so that a definition prints back as the user gave it.
  std::string max_age;
  // Count the change's authors too (they are excluded by default).
  bool allow_authors = false;
  // Count approvals only; rejections do not block.
  bool ignore_fail = false;
  std::string description;
};

struct Workflow {
  std::vector<Stage> stages;
  Final final;
  std::vector<CustomPrerequisite> custom_prerequisites;
  std::vector<AttestationPrerequisite> attestation_prerequisites;
};

bool operator==(const Stage& a, const Stage& b);
bool operator==(const Final& a, const Final& b);
bool operator==(const CustomPrerequisite& a, const CustomPrerequisite& b);
bool operator==(const AttestationPrerequisite& a, const AttestationPrerequisite& b);
bool operator==(const Workflow& a, const Workflow& b);
inline bool operator!=(const Workflow& a, const Workflow& b) { return !(a == b); }

// Whether `name` is Validated, Released, Healthy or Soaked (exactly; names are case-sensitive).
bool IsBuiltinPrerequisite(std::string_view name);

// Lookups by exact name; nullptr when absent. Pointers are valid until `w` changes.
const Stage* FindStage(const Workflow& w, std::string_view name);
const CustomPrerequisite* FindCustomPrerequisite(const Workflow& w, std::string_view name);
const AttestationPrerequisite* FindAttestationPrerequisite(const Workflow& w,
                                                           std::string_view name);

// Whether a gate of `w` (a Stage's Prerequisites or ReleasePrerequisites, or Final's) names an
// attestation prerequisite: a name that is neither built in nor a custom prerequisite (those
// are looked up first) and that AttestationPrerequisites declares. Without one, no evaluation
// of `w` can ask anybody for an approval.
bool GatesOnAttestation(const Workflow& w);

// Reads a MaxAge: an Abseil duration ("72h", "90m", "1h30m", "3600s"), positive and finite.
// Empty text gives absl::InfiniteDuration() (no limit). InvalidArgument otherwise, e.g.
// "MaxAge '3d' is not a duration: use a number with a unit h, m or s, such as 72h".
absl::StatusOr<absl::Duration> ParseMaxAge(std::string_view text);

// Reads a SoakTime by the same rule as MaxAge ("24h", "90m", "30s"), positive and finite.
// Empty text gives absl::ZeroDuration() (no soak declared). InvalidArgument otherwise, e.g.
// "SoakTime '1d' is not a duration: use a number with a unit h, m or s, such as 24h".
absl::StatusOr<absl::Duration> ParseSoakTime(std::string_view text);

}  // namespace cub::workflow

#endif  // CUB_LIB_WORKFLOW_MODEL_H_
