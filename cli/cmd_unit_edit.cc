// `cub unit edit`: a Unit's head data in the user's editor, written back as a new revision
// when it changed. The update names the head it was edited from (ExpectedHeadRevisionNum), so
// a revision written by someone else meanwhile makes cubd refuse it instead of overwriting it;
// the edit is then kept in its temporary file and the failure says where.
#include <iostream>
#include <memory>
#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "cli/cmd_context.h"
#include "cli/commands.h"
#include "cli/editor.h"
#include "cli/space_flag.h"
#include "cub/v1/unit.grpc.pb.h"

namespace cub::cli {
namespace {

using cub::v1::UnitService;

struct EditOpts {
  std::string space, unit, change_desc;
};

// The temporary file's suffix, so that the editor picks the right syntax.
std::string SuffixFor(const std::string& toolchain) {
  const std::string lower = absl::AsciiStrToLower(toolchain);
  if (absl::StrContains(lower, "yaml")) return ".yaml";
  if (absl::StrContains(lower, "json")) return ".json";
  return ".txt";
}

// The file's text after the editor ran on it; the editor failing is an error (no update).
absl::StatusOr<std::string> EditText(const EditFile& file) {
  if (absl::Status ran = RunEditor(EditorCommand(), file.path()); !ran.ok()) {
    return absl::FailedPreconditionError(absl::StrCat(ran.message(), "; the Unit was not updated"));
  }
  return ReadInput(file.path());
}

int Edit(const Env& env, const EditOpts& o) {
  cub::v1::GetUnitRequest get;
  get.set_space(o.space);
  get.set_unit(o.unit);
  cub::v1::UnitWithData head;
  if (!CallCubd(env, &UnitService::Stub::GetUnit, get, &head)) return kExitFailed;
  absl::StatusOr<EditFile> file =
      EditFile::Create(head.unit().slug(), SuffixFor(head.unit().toolchain_type()), head.data());
  if (!file.ok()) {
    PrintFailure(file.status().message());
    return kExitFailed;
  }
  absl::StatusOr<std::string> edited = EditText(*file);
  if (!edited.ok()) {
    PrintFailure(edited.status().message());
    return kExitFailed;
  }
  if (*edited == head.data())
    return env.printer().Confirm(head.unit(), "Edit cancelled, no changes");

  cub::v1::UpdateUnitRequest req;
  req.set_space(o.space);
  req.set_unit(head.unit().unit_id());
  req.set_data(*edited);
  req.set_change_desc(o.change_desc);
  req.set_expected_head_revision_num(head.unit().head_revision_num());
  cub::v1::UpdateUnitResponse resp;
  if (!CallCubd(env, &UnitService::Stub::UpdateUnit, req, &resp)) {
    std::cerr << "Your edit is kept in " << file->path() << std::endl;
    file->Keep();
    return kExitFailed;
  }
  const cub::v1::Unit& u = resp.unit();
  return env.printer().Confirm(
      resp, resp.unchanged()
                ? absl::StrCat("Unit ", u.slug(), " unchanged at revision ", u.head_revision_num())
                : absl::StrCat("Unit ", u.slug(), " updated to revision ",
                               resp.revision().revision_num()));
}

}  // namespace

void AddUnitEditCommand(CLI::App* unit, Env& env) {
  auto o = std::make_shared<EditOpts>();
  CLI::App* cmd = unit->add_subcommand(
      "edit",
      "Edit a Unit's head data in $VISUAL or $EDITOR (default vi) and write it back as a new "
      "revision if it changed; refused if the head moved meanwhile");
  AddSpaceOption(cmd, &o->space);
  cmd->add_option("UNIT", o->unit, "Unit slug or ID")->required();
  cmd->add_option("--change-desc", o->change_desc, "Description of the new revision");
  OnRun(cmd, env, [&env, o] { return Edit(env, *o); });
}

}  // namespace cub::cli
