// Whether a ChangeWorkflow definition is usable: the checks the server runs before it stores
// one (create, update, clone), and the extra check a ChangeOrder's update type imposes.
//
// Every problem names where it is: the Stage ("stage 'prod': ..."; "Stages[2]: ..." while the
// Stage has no usable name), "Final.Prerequisites", or the declaration
// ("CustomPrerequisites 'not-frozen': ...", "AttestationPrerequisites 'two-approvers': ...").
//
// Pure; thread-safe. Compiles WhereSpace and CEL expressions, so costs a few microseconds per
// Stage and expression.

#ifndef CUB_LIB_WORKFLOW_VALIDATE_H_
#define CUB_LIB_WORKFLOW_VALIDATE_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "lib/where/schema.h"
#include "lib/workflow/model.h"

namespace cub::workflow {

// Every problem of `w`, in order: the Stages (each Stage's name, WhereSpace, Prerequisites,
// ReleasePrerequisites), Final, then the declarations. Empty when `w` is usable. The checks:
//   - at least one Stage;
//   - Stage names valid (IsValidName), not "Completed" (what a ChangeOrder's Stage reads once
//     its rollout is done), unique ignoring case;
//   - WhereSpace present, and compiling against `space_schema` (where::CompileToSql): "stage
//     'prod': WhereSpace: where: unknown field 'Lables' at 1";
//   - every name in Prerequisites and Final.Prerequisites built in or declared; every name in
//     ReleasePrerequisites an attestation prerequisite; no name listed twice in one list;
//   - declaration names valid, unique across both kinds, and not a built-in's (ignoring case);
//   - custom: Expression compiles (CompileExpression): "CustomPrerequisites 'not-frozen': cel:
//     1:14: ...";
//   - attestation: Type a valid name; Count >= 1; FromUserIDs UUIDs and FromGroups valid
//     names, neither repeating one; MaxAge a positive duration (ParseMaxAge); DistinctGroups
//     only with FromGroups, and Count no more than its groups (nor, with FromUserIDs alone,
//     than its users), since more could never be satisfied.
// `space_schema` is the where schema of Spaces (lib/store's SpaceSchema()).
std::vector<std::string> Problems(const Workflow& w, const where::Schema& space_schema);

// OK, or InvalidArgument with ALL of Problems() joined by "; ".
absl::Status Validate(const Workflow& w, const where::Schema& space_schema);

// Whether a ChangeOrder of `update_type` may be governed by `w`. Invoke and the link-following
// types (TransformPaths, Insert, Upsert) start with the change in no Space, so nothing exists
// to evaluate a first Stage's Prerequisites over: for those, InvalidArgument "update type
// Invoke cannot use a workflow whose first stage 'dev' has prerequisites (Validated): its
// change is in no Space before it is promoted into one". Other update types (UpgradeUnit,
// MergeUnits), and a workflow without Stages, are OK.
absl::Status ValidateForUpdateType(const Workflow& w, std::string_view update_type);

}  // namespace cub::workflow

#endif  // CUB_LIB_WORKFLOW_VALIDATE_H_
