// Unit tests for cli/flag_names: cubd's messages name request fields as the API spells them,
// and the CLI prints its own flags in their place. Every message of lib/ops that names a field
// a flag fills is listed with the text the CLI printed before the messages changed, which it
// must still print; messages about other things with the same names must print unchanged.
#include "cli/flag_names.h"

#include <catch2/catch.hpp>
#include <string>
#include <utility>
#include <vector>

namespace cub::cli {
namespace {

TEST_CASE("WithFlagNames gives every ops message its CLI wording", "[cli][flag_names]") {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"Vulnerabilities: unknown severity 'Critical' (use critical, high, medium or low)",
       "--vulnerabilities: unknown severity 'Critical' (use critical, high, medium or low)"},
      {"nothing to record: give Sync and Health (a live status), Vulnerabilities (scan findings), "
       "or both",
       "nothing to record: give --sync and --health (a live status), --vulnerabilities (scan "
       "findings), or both"},
      {"Force needs ForceReason, which is recorded",
       "--force needs --force-reason, which is recorded"},
      {"Force needs the editor role on the base: user 'x' may not change space 'b'",
       "--force needs the editor role on the base: user 'x' may not change space 'b'"},
      {"PriorRevisions 'Most' is not one of Include, Skip, Error, All",
       "--prior-revisions 'Most' is not one of Include, Skip, Error, All"},
      {"ChangeOrder supplies the range to merge: drop MergeSource, MergeBase, MergeEnd and Squash",
       "--change-order supplies the range to merge: drop --merge-source, --merge-base, "
       "--merge-end and --squash"},
      {"WhereSpace: where: unknown field 'Nope' at 1",
       "--where-space: where: unknown field 'Nope' at 1"},
      {"change order 'v2' is of type Invoke: there is no upstream revision to merge; promote it "
       "into the Space with the Promote method",
       "change order 'v2' is of type Invoke: there is no upstream revision to merge; promote it "
       "into the Space with cub variant promote"},
      {"'prod' takes changes from several Spaces (a, b); upgrade its Units one by one with "
       "UpdateUnit, giving Upgrade and ChangeOrder",
       "'prod' takes changes from several Spaces (a, b); upgrade its Units one by one with cub "
       "unit update --upgrade --change-order"},
      {"it follows 2 UpgradeUnit links; upgrade it with UpdateUnit, giving Upgrade and "
       "MergeSource",
       "it follows 2 UpgradeUnit links; upgrade it with cub unit update --upgrade --merge-source"},
      {"created upstream after the change order was fixed; a promotion without ChangeOrder adds "
       "it",
       "created upstream after the change order was fixed; a promotion without --change-order "
       "adds it"},
      {"Stage goes with ChangeOrder and no Spaces named",
       "--stage goes with --change-order and no Spaces named"},
      {"no Space selected: name Spaces, or give WhereSpace or ChangeOrder",
       "no Space selected: name Spaces, or give --where-space or --change-order"},
      {"ExpiresIn 'soon' is not a duration: use a number with a unit h, m or s, such as 72h",
       "--expires-in 'soon' is not a duration: use a number with a unit h, m or s, such as 72h"},
      {"the space has no release Target; pass All to approve its units",
       "the space has no release Target; pass --all to approve its units"},
      {"give only one of new data, Restore, Upgrade, Resolve and Revert",
       "give only one of new data, --restore, --upgrade, --resolve and --revert"},
      {"Patch resolves Links: pass Resolve \"Link:*\" (or Link:<where>)",
       "--patch resolves Links: pass --resolve \"Link:*\" (or Link:<where>)"},
      {"ChangeSet goes with a write of data (Data, Restore, Upgrade, Resolve or Revert)",
       "--changeset goes with a write of data (FILE, --restore, --upgrade, --resolve or "
       "--revert)"},
      {"ChangeOrder and PriorRevisions go with Upgrade",
       "--change-order and --prior-revisions go with --upgrade"},
      {"the release tag of change order 'v2' is placed by promotion; pass Move to move it",
       "the release tag of change order 'v2' is placed by promotion; pass --move to move it"},
      {"tag 't' already marks revision 2 of unit 'web'; pass Move to move it",
       "tag 't' already marks revision 2 of unit 'web'; pass --move to move it"},
      {"a space is required (Space)", "a space is required (--space)"},
      {"no bearer token: send one as \"authorization: Bearer TOKEN\"",
       "no bearer token: log in with `cub auth login` or pass --token"},
      {"MergeEnd must be a revision number", "--merge-end must be a revision number"},
      {"Block and Unblock exclude each other: give one",
       "--block and --unblock exclude each other: give one"},
      {"Block needs AbortedReason: change order 'v2' is not aborted, and a change order is "
       "blocked as it is aborted",
       "--block needs --aborted-reason: change order 'v2' is not aborted, and a change order is "
       "blocked as it is aborted"},
      {"Unblock: change order 'v2' is not blocked", "--unblock: change order 'v2' is not blocked"},
      {"AbortedReason: change order 'v2' is blocked, so its abort cannot be cleared; unblock it "
       "first",
       "--aborted-reason: change order 'v2' is blocked, so its abort cannot be cleared; unblock "
       "it first"},
      {"invocation 'set-image' needs parameter 'tag' (string): pass Params tag=VALUE",
       "invocation 'set-image' needs parameter 'tag' (string): pass --param tag=VALUE"},
      {"argument 'x' uses parameter 'n', which is not declared (Parameters n:string:true)",
       "argument 'x' uses parameter 'n', which is not declared (--parameter n:string:true)"},
      {"Params goes with Invocation", "--param goes with --invocation"},
      {"select Units with a unit or with Where, not both",
       "select Units with a unit or with --where, not both"},
      {"no function named 'nope'; see the ListFunctions method",
       "no function named 'nope'; see cub function list"},
      {"get-replicas is a get function; run it with InvokeFunction, giving Kind get",
       "get-replicas is a get function; run it with cub function get"},
      {"change order 'v2' has not been aborted: abort it first with UpdateChangeOrder, giving an "
       "AbortedReason",
       "change order 'v2' has not been aborted: abort it first with cub changeorder update "
       "--aborted-reason REASON"},
      {"unit 'a' is in open changeset 'r1': name it with ChangeSet r1, or take the unit out with "
       "ChangeSet -",
       "unit 'a' is in open changeset 'r1': name it with --changeset r1, or take the unit out with "
       "--changeset -"},
      {"unit 'a' is in changeset 'r1'; close it or take the unit out with ChangeSet - first",
       "unit 'a' is in changeset 'r1'; close it or take the unit out with --changeset - first"},
      {"unit 'web' has no UpgradeUnit or MergeUnits links to upgrade from; name the source with "
       "MergeSource",
       "unit 'web' has no UpgradeUnit or MergeUnits links to upgrade from; name the source with "
       "--merge-source"},
      {"Revert '3..1' is not a range of revisions of unit 'web': use N..M with 1 <= N <= M <= 4",
       "--revert '3..1' is not a range of revisions of unit 'web': use N..M with 1 <= N <= M <= 4"},
      {"a workflow needs stages: give Definition or Flags with Stages",
       "a workflow needs stages: give --filename or --stage flags"},
      {"nothing to update: give Definition or Flags",
       "nothing to update: give --filename or flags"},
      {"UpdateType MergeUnits differs from the definition's UpdateType UpgradeUnit",
       "--update-type MergeUnits differs from the definition's UpdateType UpgradeUnit"},
      {"AutoUpdate contradicts the definition's AutoUpdate: false",
       "--auto-update contradicts the definition's AutoUpdate: false"},
      {"Protect contradicts the definition's Protect: false",
       "--protect contradicts the definition's Protect: false"},
      {"a filter needs a where expression (WhereField)",
       "a filter needs a where expression (--where-field)"},
      {"give Revision or Release, not both", "give --revision or --release, not both"},
      {"space 'dev' has no release Target: set one with UpdateSpace, giving ReleaseTarget "
       "SPACE/TARGET",
       "space 'dev' has no release Target: set one with cub space update --release-target "
       "SPACE/TARGET"},
      {"Sync 'Fine' is not one of Synced, OutOfSync, Unknown",
       "--sync 'Fine' is not one of Synced, OutOfSync, Unknown"},
      {"Health 'Fine' is not one of Healthy, Progressing, Degraded, Suspended, Missing, Unknown",
       "--health 'Fine' is not one of Healthy, Progressing, Degraded, Suspended, Missing, "
       "Unknown"},
      {"Operation 'Done' is not one of Running, Succeeded, Failed",
       "--operation 'Done' is not one of Running, Succeeded, Failed"},
      {"name the release by Release N or by BundleDigest, not both",
       "name the release by --release N or by --digest, not both"},
      {"ReleaseTarget 'local': name it as SPACE/TARGET",
       "--release-target 'local': name it as SPACE/TARGET"},
      {"UpdateType Invoke needs Invocation SPACE/NAME",
       "--update-type Invoke needs --invocation SPACE/NAME"},
      {"Invocation goes with UpdateType Invoke", "--invocation goes with --update-type Invoke"},
      {"Params, WhereUnit and UnitFilter go with UpdateType Invoke",
       "--param, --where-unit and --unit-filter go with --update-type Invoke"},
      {"UpdateType 'Merge' is not one of UpgradeUnit, MergeUnits, Invoke, TransformPaths, Insert, "
       "Upsert",
       "--update-type 'Merge' is not one of UpgradeUnit, MergeUnits, Invoke, TransformPaths, "
       "Insert, Upsert"},
      {"a TransformPaths change order needs its Spaces in scope: give Component, InScopeSpaces, "
       "WhereSpaceField or SpaceFilter",
       "a TransformPaths change order needs its Spaces in scope: give --component, "
       "--in-scope-space, --where-space-field or --space-filter"},
      {"PriorRevisions does not apply to a Insert change order",
       "--prior-revisions does not apply to a Insert change order"},
      {"ChangeWorkflow 'flow': name it as SPACE/WORKFLOW",
       "--change-workflow 'flow': name it as SPACE/WORKFLOW"},
      {"WhereUnit: where: unknown field 'Nope' at 1",
       "--where-unit: where: unknown field 'Nope' at 1"},
      // Queued promotions and the event log.
      {"Where: unknown field 'Nope' at 1", "--where: unknown field 'Nope' at 1"},
      {"TargetStage is required: the Stage the promotion was queued into",
       "--target-stage is required: the Stage the promotion was queued into"},
      {"Limit 5000 is out of range: give 1 to 1000 (or 0 for 100)",
       "--limit 5000 is out of range: give 1 to 1000 (or 0 for 100)"},
      {"AfterID -1 is negative: event IDs start at 1",
       "--after-id -1 is negative: event IDs start at 1"},
      {"Queue goes with a Stage, not with Force", "--queue goes with a Stage, not with Force"},
      {"unit 'web' is in changeset 'r1', which is still open: close it and pass its end tag with "
       "EndTag",
       "unit 'web' is in changeset 'r1', which is still open: close it and pass its end tag with "
       "--end-tag"},
  };
  for (const auto& [api, cli] : cases) {
    INFO(api);
    CHECK(WithFlagNames(api) == cli);
  }
}

TEST_CASE("WithFlagNames leaves the same names alone where they mean something else",
          "[cli][flag_names]") {
  const std::vector<std::string> unchanged = {
      // A workflow's and a Link definition's own fields, as written in their files.
      "stage 'prod': WhereSpace: where: unknown field 'Nope' at 1",
      "stage 'prod': WhereSpace is required: a where expression over Spaces, such as "
      "Labels.Stage = 'prod'",
      "'Completed' is reserved: a ChangeOrder's Stage reads Completed once the last stage is done",
      "UpdateType: must be a string",
      "only TransformPaths links have UpstreamPaths and DownstreamSetters; this one is MergeUnits",
      "'p' is not used by any DownstreamSetter (list it in a setter's Parameters)",
      // A block's refusal already names the command that lifts it.
      "unable to promote to stage 'prod': Variant 'prod-eu', unit 'deployment': its content is "
      "blocked by change order 'acme-base/bad-rollout' (reason: crashloop in staging); unblock "
      "it with cub changeorder update --space acme-base bad-rollout --unblock",
      // Selectors, quoted names and values.
      "use HeadRevisionNum, Tag:T, Before:Tag:T, ChangeSet:C, Before:ChangeSet:C, "
      "ChangeOrder:BASE/NAME or Before:ChangeOrder:BASE/NAME",
      "where: unknown field 'PriorRevisions' at 1",
      "field 'Stage' is a string",
      "upgrade the Units with UpdateType MergeUnits",
      // Words that only start like a name, and a message that does not start with one.
      "Forced promotions are recorded",
      "Where change order 'v2' stands",
      "Queued promotion of app/v2 into stage prod",
      "where: unknown field 'TargetStage' at 1",
      "the Limit of 3 was reached",
      "cannot write: Operation not permitted",
      "unit 'web': Revert '3..1' is not a range",
      "",
  };
  for (const auto& m : unchanged) {
    INFO(m);
    CHECK(WithFlagNames(m) == m);
  }
}

}  // namespace
}  // namespace cub::cli
