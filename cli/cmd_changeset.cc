// `cub changeset ...`: create, show, list and close ChangeSets, the named bounds of a change
// within one Space. Writes join one with `cub unit update --changeset SPACE/NAME`.
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "cli/commands.h"
#include "cli/count.h"
#include "cli/space_flag.h"
#include "cub/v1/unit.grpc.pb.h"

namespace cub::cli {
namespace {

using cub::v1::ChangeSetService;

void AddCreate(CLI::App* group, Env& env) {
  struct Opts {
    std::string space, name, description;
  };
  auto o = std::make_shared<Opts>();
  CLI::App* cmd =
      group->add_subcommand("create", "Create a ChangeSet, with its NAME-start and NAME-end Tags");
  AddSpaceOption(cmd, &o->space, "Space slug or ID");
  cmd->add_option("NAME", o->name, "Slug of the new ChangeSet")->required();
  cmd->add_option("--description", o->description, "What the change is for");
  OnRun(cmd, env, [&env, o] {
    cub::v1::CreateChangeSetRequest req;
    req.set_space(o->space);
    req.set_slug(o->name);
    req.set_description(o->description);
    cub::v1::ChangeSet cs;
    if (!CallCubd(env, &ChangeSetService::Stub::CreateChangeSet, req, &cs)) return kExitFailed;
    return env.printer().Confirm(
        cs, absl::StrCat("ChangeSet ", cs.slug(), " created", IdSuffix(cs.change_set_id())));
  });
}

void AddGet(CLI::App* group, Env& env) {
  struct Opts {
    std::string space, name;
  };
  auto o = std::make_shared<Opts>();
  CLI::App* cmd = group->add_subcommand("get", "Show a ChangeSet and the Units it holds");
  AddSpaceOption(cmd, &o->space, "Space slug or ID");
  cmd->add_option("NAME", o->name, "ChangeSet slug or ID (or SPACE/NAME)")->required();
  OnRun(cmd, env, [&env, o] {
    cub::v1::GetChangeSetRequest req;
    req.set_space(o->space);
    req.set_change_set(o->name);
    cub::v1::ChangeSet cs;
    if (!CallCubd(env, &ChangeSetService::Stub::GetChangeSet, req, &cs)) return kExitFailed;
    return env.printer().Fields(cs);
  });
}

void AddList(CLI::App* group, Env& env) {
  struct Opts {
    std::string space, where;
  };
  auto o = std::make_shared<Opts>();
  CLI::App* cmd = group->add_subcommand("list", "List the ChangeSets of a Space");
  AddSpaceOption(cmd, &o->space, "Space slug or ID");
  cmd->add_option("--where", o->where, "Where expression over ChangeSets (e.g. State = 'Open')");
  OnRun(cmd, env, [&env, o] {
    cub::v1::ListChangeSetsRequest req;
    req.set_space(o->space);
    req.mutable_options()->set_where(o->where);
    cub::v1::ListChangeSetsResponse resp;
    if (!CallCubd(env, &ChangeSetService::Stub::ListChangeSets, req, &resp)) return kExitFailed;
    return env.printer().List<cub::v1::ChangeSet>(
        resp.change_sets(), {"NAME", "STATE", "UNITS", "DESCRIPTION", "ID"},
        [](const cub::v1::ChangeSet& c) -> std::vector<std::string> {
          return {c.slug(), c.state(), absl::StrJoin(c.unit_slugs(), ","), c.description(),
                  c.change_set_id()};
        });
  });
}

void AddClose(CLI::App* group, Env& env) {
  struct Opts {
    std::string space, name;
  };
  auto o = std::make_shared<Opts>();
  CLI::App* cmd = group->add_subcommand(
      "close", "Close a ChangeSet: its end Tag marks each of its Units where it stands");
  AddSpaceOption(cmd, &o->space, "Space slug or ID");
  cmd->add_option("NAME", o->name, "ChangeSet slug or ID")->required();
  OnRun(cmd, env, [&env, o] {
    cub::v1::CloseChangeSetRequest req;
    req.set_space(o->space);
    req.set_change_set(o->name);
    cub::v1::ChangeSet cs;
    if (!CallCubd(env, &ChangeSetService::Stub::CloseChangeSet, req, &cs)) return kExitFailed;
    return env.printer().Confirm(cs, absl::StrCat("ChangeSet ", cs.slug(), " closed on ",
                                                  Count(cs.unit_slugs_size(), "unit")));
  });
}

}  // namespace

void AddChangeSetCommands(CLI::App& app, Env& env) {
  CLI::App* group =
      app.add_subcommand("changeset", "Manage ChangeSets, the named bounds of a change");
  AddCreate(group, env);
  AddGet(group, env);
  AddList(group, env);
  AddClose(group, env);
}

}  // namespace cub::cli
