// Building and editing a ChangeWorkflow from `cub changeworkflow create|update` flags.
//
// The CLI collects each flag's values as the user typed them (repeatable flags in order) into
// WorkflowFlags, and FromFlags / ApplyFlags interpret them, so the rules and the messages live
// here and are the same for every client. Values of the NAME=VALUE flags split at the first
// '=' (names never hold one); list values split at ',' or ';' (the CLI must not split them
// itself), items trimmed, empty items dropped, so an empty list clears.
//
//   --stage NAME                       repeatable, ordered: the Stages the workflow has. A new
//                                      one selects Labels.Stage = 'NAME' and has no gates.
//   --prerequisites A,B                every Stage after the first, and Final
//   --final-prerequisites A,B          Final only (wins over --prerequisites)
//   --stage-where-space STAGE=EXPR     one Stage's WhereSpace
//   --stage-prerequisites STAGE=A;B    one Stage's Prerequisites (wins over --prerequisites)
//   --stage-release-prerequisites STAGE=A;B
//   --stage-mode STAGE=Manual|Automatic
//   --stage-auto-release STAGE=true|false
//   --stage-soak-time STAGE=DURATION   e.g. 24h, for the Stage's Soaked prerequisite; STAGE=
//                                      clears
//   --custom-prerequisite NAME=cel:EXPR                declares NAME, or replaces its Expression
//   --custom-prerequisite-description NAME=TEXT
//   --attestation-prerequisite NAME                    declares NAME (Approval, Count 1); a
//                                                      NAME already declared is left as it is
//   --attestation-prerequisite-type NAME=TYPE
//   --attestation-prerequisite-count NAME=N            N >= 1
//   --attestation-prerequisite-from-user-ids NAME=ID,ID
//   --attestation-prerequisite-from-groups NAME=G,G
//   --attestation-prerequisite-distinct-groups NAME[=true|false]
//   --attestation-prerequisite-max-age NAME=DURATION   e.g. 72h; NAME= clears
//   --attestation-prerequisite-allow-authors NAME[=true|false]
//   --attestation-prerequisite-ignore-fail NAME[=true|false]
//   --attestation-prerequisite-description NAME=TEXT
//   --delete-prerequisite NAME         removes a declared custom or attestation prerequisite
//                                      (the lists naming it must be changed too, or Validate
//                                      refuses the result)
//
// A description, like every declaration field, has a flag of its own,
// --<kind>-prerequisite-description NAME=TEXT, so that each can be changed alone on update.
// A field flag names a prerequisite that is declared, already or by the same command: a
// misspelt name is refused rather than declared.
//
// Pure; thread-safe.

#ifndef CUB_LIB_WORKFLOW_FLAGS_H_
#define CUB_LIB_WORKFLOW_FLAGS_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "lib/workflow/model.h"

namespace cub::workflow {

// Raw flag values, as given. An optional is set when the flag was given at all (even with an
// empty value, which clears).
struct WorkflowFlags {
  std::vector<std::string> stages;
  std::optional<std::string> prerequisites;
  std::optional<std::string> final_prerequisites;
  std::vector<std::string> stage_where_space;
  std::vector<std::string> stage_prerequisites;
  std::vector<std::string> stage_release_prerequisites;
  std::vector<std::string> stage_mode;
  std::vector<std::string> stage_auto_release;
  std::vector<std::string> stage_soak_time;
  std::vector<std::string> custom_prerequisites;
  std::vector<std::string> custom_prerequisite_descriptions;
  std::vector<std::string> attestation_prerequisites;
  std::vector<std::string> attestation_prerequisite_types;
  std::vector<std::string> attestation_prerequisite_counts;
  std::vector<std::string> attestation_prerequisite_from_user_ids;
  std::vector<std::string> attestation_prerequisite_from_groups;
  std::vector<std::string> attestation_prerequisite_distinct_groups;
  std::vector<std::string> attestation_prerequisite_max_ages;
  std::vector<std::string> attestation_prerequisite_allow_authors;
  std::vector<std::string> attestation_prerequisite_ignore_fail;
  std::vector<std::string> attestation_prerequisite_descriptions;
  std::vector<std::string> delete_prerequisites;

  // Whether no flag was given (an update with nothing to change).
  bool empty() const;
};

// A new workflow from flags: ApplyFlags to an empty one. --stage is required.
absl::StatusOr<Workflow> FromFlags(const WorkflowFlags& flags);

// `existing` edited by `flags`. The Stages named with --stage are the Stages the result has,
// in that order: one that existed keeps its other fields, a new one selects Labels.Stage =
// 'NAME', and an existing one not named is removed; without --stage the Stages are unchanged.
// The order of application is: --stage; --delete-prerequisite; declarations and their field
// flags; --prerequisites; --final-prerequisites; the per-Stage flags. So the more specific
// flag wins, whatever the order on the command line.
//
// Refuses (InvalidArgument) a malformed value naming the flag and the value, e.g.
// "--attestation-prerequisite-count 'two-approvers=two': the count must be a whole number of
// at least 1", a Stage or prerequisite the flag names that does not exist ("--stage-prerequisites
// 'Prod=Released': no stage 'Prod' (stages: Development, Staging, Production)"), and a name
// given twice to one flag. The result is not validated: call Validate (validate.h).
absl::StatusOr<Workflow> ApplyFlags(const Workflow& existing, const WorkflowFlags& flags);

}  // namespace cub::workflow

#endif  // CUB_LIB_WORKFLOW_FLAGS_H_
