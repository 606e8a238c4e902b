// `cub revision ...`: list the immutable Revisions of a Unit and show one, or just its data.
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "cli/commands.h"
#include "cli/space_flag.h"
#include "cli/paged_list.h"
#include "cub/v1/unit.grpc.pb.h"

namespace cub::cli {
namespace {

using cub::v1::UnitService;

void AddList(CLI::App* group, Env& env) {
  struct Opts {
    std::string space, unit, where;
    PageFlags page;
  };
  auto o = std::make_shared<Opts>();
  CLI::App* cmd = group->add_subcommand("list", "List a Unit's Revisions");
  AddSpaceOption(cmd, &o->space, "Space slug or ID");
  cmd->add_option("--unit", o->unit, "Unit slug or ID")->required();
  cmd->add_option("--where", o->where, "Where expression over Revisions");
  AddPageFlags(cmd, &o->page, "Revisions");
  OnRun(cmd, env, [&env, o] {
    cub::v1::ListRevisionsRequest req;
    req.set_space(o->space);
    req.set_unit(o->unit);
    req.mutable_options()->set_where(o->where);
    return PrintPaged(env, o->page, req, &UnitService::Stub::ListRevisions,
                      &cub::v1::ListRevisionsResponse::revisions,
                      {"NUM", "CREATED", "AUTHOR", "DESCRIPTION", "ID"},
                      [](const cub::v1::Revision& r) -> std::vector<std::string> {
                        return {absl::StrCat(r.revision_num()), r.created_at(), r.author(),
                                r.description(), r.revision_id()};
                      });
  });
}

void AddGet(CLI::App* group, Env& env) {
  struct Opts {
    std::string space, unit, revision = "HeadRevisionNum";
    bool data = false;
  };
  auto o = std::make_shared<Opts>();
  CLI::App* cmd = group->add_subcommand("get", "Show one Revision of a Unit");
  AddSpaceOption(cmd, &o->space, "Space slug or ID");
  cmd->add_option("--unit", o->unit, "Unit slug or ID")->required();
  cmd->add_option("--revision", o->revision,
                  "N, -N (N back), HeadRevisionNum, LastReleasedRevisionNum, Tag:T, Before:Tag:T, "
                  "ChangeSet:C or Before:ChangeSet:C")
      ->type_name("REVISION")
      ->capture_default_str();
  cmd->add_flag("--data", o->data, "Print only the Revision's data, as stored");
  OnRun(cmd, env, [&env, o] {
    cub::v1::GetRevisionRequest req;
    req.set_space(o->space);
    req.set_unit(o->unit);
    req.set_revision(o->revision);
    cub::v1::Revision rev;
    if (!CallCubd(env, &UnitService::Stub::GetRevision, req, &rev)) return kExitFailed;
    if (o->data) return env.printer().Text(rev.data());
    // The data can be long; the table leaves it out (see --data).
    return env.printer().Fields(rev, {"Data"});
  });
}

}  // namespace

void AddRevisionCommands(CLI::App& app, Env& env) {
  CLI::App* group = app.add_subcommand("revision", "Inspect the Revisions of a Unit");
  AddList(group, env);
  AddGet(group, env);
}

}  // namespace cub::cli
