#include "cli/flag_names.h"

#include <cctype>

namespace cub::cli {
namespace {

struct Name {
  std::string_view api;  // as cubd writes it
  std::string_view cli;  // as the CLI prints it
  bool leading = false;  // only at the start of a message
};

// Every name lib/ops puts in a message for a request field (or a method) that a flag of this
// CLI fills. A phrase stands where the bare name would also match something else.
constexpr Name kNames[] = {
    // Fields whose names occur in no other kind of message.
    {"ForceReason", "--force-reason"},
    {"PriorRevisions", "--prior-revisions"},
    {"MergeSource", "--merge-source"},
    {"MergeBase", "--merge-base"},
    {"MergeEnd", "--merge-end"},
    {"ReleaseTarget", "--release-target"},
    {"ExpiresIn", "--expires-in"},
    {"WhereUnit", "--where-unit"},
    {"UnitFilter", "--unit-filter"},
    {"InScopeSpaces", "--in-scope-space"},
    {"WhereSpaceField", "--where-space-field"},
    {"SpaceFilter", "--space-filter"},
    {"WhereField", "--where-field"},
    {"EndTag", "--end-tag"},
    {"TargetStage", "--target-stage"},
    {"Queue", "--queue"},
    {"AfterID", "--after-id"},
    // Fields that open the message about them.
    {"Force needs", "--force needs", true},
    {"ChangeOrder supplies", "--change-order supplies", true},
    {"ChangeOrder and PriorRevisions go with Upgrade",
     "--change-order and --prior-revisions go with --upgrade", true},
    {"WhereSpace:", "--where-space:", true},
    {"Where:", "--where:", true},
    {"Limit ", "--limit ", true},
    {"Stage goes with ChangeOrder", "--stage goes with --change-order", true},
    {"Patch resolves Links: pass Resolve", "--patch resolves Links: pass --resolve", true},
    {"ChangeSet goes with a write of data (Data, Restore, Upgrade, Resolve or Revert)",
     "--changeset goes with a write of data (FILE, --restore, --upgrade, --resolve or --revert)",
     true},
    {"Revert '", "--revert '", true},
    {"UpdateType ", "--update-type ", true},
    {"UpdateType Invoke needs Invocation", "--update-type Invoke needs --invocation", true},
    {"Invocation goes with UpdateType", "--invocation goes with --update-type", true},
    {"Params goes with Invocation", "--param goes with --invocation", true},
    {"Params, WhereUnit and UnitFilter go with UpdateType",
     "--param, --where-unit and --unit-filter go with --update-type", true},
    {"ChangeWorkflow '", "--change-workflow '", true},
    {"Sync '", "--sync '", true},
    {"Health '", "--health '", true},
    {"Operation '", "--operation '", true},
    {"Vulnerabilities: ", "--vulnerabilities: ", true},
    {"AutoUpdate contradicts", "--auto-update contradicts", true},
    {"Protect contradicts", "--protect contradicts", true},
    // `cub freeze create`.
    {"From '", "--from '", true},
    {"Until '", "--until '", true},
    {"a freeze window needs both From and Until; From is missing",
     "a freeze window needs both --from and --until; --from is missing", true},
    {"a freeze window needs both From and Until; Until is missing",
     "a freeze window needs both --from and --until; --until is missing", true},
    {"give a window (From and Until) or a recurring one (Cron, Duration, TimeZone), not both",
     "give a window (--from and --until) or a recurring one (--cron, --duration, --time-zone), "
     "not both",
     true},
    {"Cron: ", "--cron: ", true},
    {"Cron needs Duration", "--cron needs --duration", true},
    {"Duration '", "--duration '", true},
    {"Duration is for a recurring window: give Cron",
     "--duration is for a recurring window: give --cron", true},
    {"TimeZone '", "--time-zone '", true},
    {"TimeZone is for a recurring window: give Cron",
     "--time-zone is for a recurring window: give --cron", true},
    {"Reason is required", "--reason is required", true},
    {"Reason: at most", "--reason: at most", true},
    {"Stages: ", "--stage: ", true},
    {"Stages are Stages of a workflow: give ChangeWorkflow (SPACE/NAME) as well",
     "--stage names Stages of a workflow: give --change-workflow (SPACE/NAME) as well", true},
    {"ChangeWorkflow: ", "--change-workflow: ", true},
    {"Block and Unblock exclude", "--block and --unblock exclude", true},
    {"Block needs AbortedReason", "--block needs --aborted-reason", true},
    {"Unblock: ", "--unblock: ", true},
    {"AbortedReason: change order", "--aborted-reason: change order", true},
    // Fields in the middle of a message.
    {"MergeEnd and Squash", "--merge-end and --squash"},
    {"give WhereSpace or ChangeOrder", "give --where-space or --change-order"},
    {"pass All to approve", "pass --all to approve"},
    {"new data, Restore, Upgrade, Resolve and Revert",
     "new data, --restore, --upgrade, --resolve and --revert"},
    {"pass Move to move it", "pass --move to move it"},
    {"a space is required (Space)", "a space is required (--space)"},
    {"pass Params", "pass --param"},
    {"declared (Parameters", "declared (--parameter"},
    {"with Where, not both", "with --where, not both"},
    {"name it with ChangeSet", "name it with --changeset"},
    {"out with ChangeSet", "out with --changeset"},
    {"give Definition or Flags with Stages", "give --filename or --stage flags"},
    {"give Definition or Flags", "give --filename or flags"},
    {"a promotion without ChangeOrder", "a promotion without --change-order"},
    {"give Revision or Release, not both", "give --revision or --release, not both"},
    {"by Release N or by BundleDigest", "by --release N or by --digest"},
    {"give Sync and Health (a live status), Vulnerabilities (scan findings)",
     "give --sync and --health (a live status), --vulnerabilities (scan findings)"},
    {"give Component", "give --component"},
    {"is not after From '", "is not after --from '"},
    // Methods, with the fields to give them: the command and its flags.
    {"UpdateUnit, giving Upgrade and ChangeOrder", "cub unit update --upgrade --change-order"},
    {"UpdateUnit, giving Upgrade and MergeSource", "cub unit update --upgrade --merge-source"},
    {"UpdateChangeOrder, giving an AbortedReason",
     "cub changeorder update --aborted-reason REASON"},
    {"UpdateSpace, giving ReleaseTarget", "cub space update --release-target"},
    {"InvokeFunction, giving Kind", "cub function"},
    {"the Promote method", "cub variant promote"},
    {"the ListFunctions method", "cub function list"},
    {"send one as \"authorization: Bearer TOKEN\"", "log in with `cub auth login` or pass --token"},
};

bool IsWordChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }

// Whether `name` stands at `at` in `message` as a whole (see WithFlagNames).
bool MatchesAt(std::string_view message, size_t at, const Name& name) {
  if (name.leading && at != 0) return false;
  if (message.compare(at, name.api.size(), name.api) != 0) return false;
  if (IsWordChar(name.api.front()) && at > 0 && message[at - 1] != ' ' && message[at - 1] != '(') {
    return false;
  }
  const size_t end = at + name.api.size();
  if (IsWordChar(name.api.back()) && end < message.size()) {
    const char next = message[end];
    const bool colon = next == ':' && (end + 1 == message.size() || message[end + 1] == ' ');
    if (next != ' ' && next != ',' && next != ')' && !colon) return false;
  }
  return true;
}

}  // namespace

std::string WithFlagNames(std::string_view message) {
  std::string out;
  out.reserve(message.size());
  size_t i = 0;
  while (i < message.size()) {
    const Name* best = nullptr;
    for (const Name& name : kNames) {
      if ((best == nullptr || name.api.size() > best->api.size()) && MatchesAt(message, i, name)) {
        best = &name;
      }
    }
    if (best == nullptr) {
      out.push_back(message[i++]);
    } else {
      out.append(best->cli);
      i += best->api.size();
    }
  }
  return out;
}

}  // namespace cub::cli
