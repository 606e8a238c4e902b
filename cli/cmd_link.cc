// `cub link ...`: create, show and list Links, through which a downstream Unit takes changes
// from an upstream one.
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "cli/commands.h"
#include "cli/space_flag.h"
#include "cub/v1/variant.grpc.pb.h"

namespace cub::cli {
namespace {

using cub::v1::LinkService;

void AddCreate(CLI::App* group, Env& env) {
  struct Opts {
    std::string space, link, from_unit, to_space, to_unit, update_type;
    bool auto_update = false, protect = false, from_stdin = false;
    int merged_through = 0;
  };
  auto o = std::make_shared<Opts>();
  CLI::App* cmd = group->add_subcommand(
      "create", "Link FROM-UNIT (downstream, in --space) to TO-UNIT in TO-SPACE (upstream)");
  AddSpaceOption(cmd, &o->space, "Space of the downstream Unit");
  cmd->add_option("LINK", o->link, "Slug of the new Link; - lets the server name it")->required();
  cmd->add_option("FROM-UNIT", o->from_unit, "Downstream Unit, which takes the changes")
      ->required();
  cmd->add_option("TO-UNIT", o->to_unit, "Upstream Unit, where changes come from")->required();
  cmd->add_option("TO-SPACE", o->to_space,
                  "Space of the upstream Unit (default: the downstream Unit's Space)");
  cmd->add_option("--update-type", o->update_type,
                  "How changes are taken: UpgradeUnit (default), MergeUnits, TransformPaths, "
                  "Insert or Upsert");
  cmd->add_flag("--auto-update", o->auto_update, "Take upstream changes as soon as they are made");
  cmd->add_flag("--protect", o->protect, "Keep values written through this Link from upgrades");
  cmd->add_option("--upstream-revision-num", o->merged_through,
                  "Upstream revision the downstream Unit already has (the merge cursor; 0: none)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_flag("--from-stdin", o->from_stdin,
                "Read the Link's definition (Protect, AutoUpdate, UpstreamPaths, "
                "DownstreamSetters) as YAML or JSON from stdin");
  OnRun(cmd, env, [&env, o] {
    cub::v1::CreateLinkRequest req;
    if (o->from_stdin) {
      absl::StatusOr<std::string> definition = ReadInput("-");
      if (!definition.ok()) {
        PrintFailure(definition.status().message());
        return kExitFailed;
      }
      req.set_definition(*std::move(definition));
    }
    req.set_space(o->space);
    req.set_slug(o->link == "-" ? "" : o->link);
    req.set_from_unit(o->from_unit);
    req.set_to_space(o->to_space);
    req.set_to_unit(o->to_unit);
    req.set_update_type(o->update_type);
    req.set_auto_update(o->auto_update);
    req.set_protect(o->protect);
    req.set_upstream_revision_num(o->merged_through);
    cub::v1::Link link;
    if (!CallCubd(env, &LinkService::Stub::CreateLink, req, &link)) return kExitFailed;
    return env.printer().Confirm(
        link, absl::StrCat("Link ", link.slug(), " created", IdSuffix(link.link_id())));
  });
}

void AddGet(CLI::App* group, Env& env) {
  struct Opts {
    std::string space, link;
  };
  auto o = std::make_shared<Opts>();
  CLI::App* cmd = group->add_subcommand("get", "Show a Link");
  AddSpaceOption(cmd, &o->space, "Space slug or ID");
  cmd->add_option("LINK", o->link, "Link slug or ID")->required();
  OnRun(cmd, env, [&env, o] {
    cub::v1::GetLinkRequest req;
    req.set_space(o->space);
    req.set_link(o->link);
    cub::v1::Link link;
    if (!CallCubd(env, &LinkService::Stub::GetLink, req, &link)) return kExitFailed;
    return env.printer().Fields(link);
  });
}

void AddList(CLI::App* group, Env& env) {
  struct Opts {
    std::string space, where;
  };
  auto o = std::make_shared<Opts>();
  CLI::App* cmd = group->add_subcommand("list", "List the Links of a Space, or of all (\"*\")");
  AddSpaceOption(cmd, &o->space, "Space slug or ID, or \"*\" for every Space you can see");
  cmd->add_option("--where", o->where, "Where expression over Links");
  OnRun(cmd, env, [&env, o] {
    cub::v1::ListLinksRequest req;
    req.set_space(o->space);
    req.mutable_options()->set_where(o->where);
    cub::v1::ListLinksResponse resp;
    if (!CallCubd(env, &LinkService::Stub::ListLinks, req, &resp)) return kExitFailed;
    return env.printer().List<cub::v1::Link>(
        resp.links(),
        {"NAME", "FROM-UNIT", "TO-SPACE", "TO-UNIT", "UPDATE-TYPE", "AUTO", "MERGED", "ID"},
        [](const cub::v1::Link& l) -> std::vector<std::string> {
          return {l.slug(),
                  l.from_unit_slug(),
                  l.to_space_slug(),
                  l.to_unit_slug(),
                  l.update_type(),
                  l.auto_update() ? "true" : "false",
                  absl::StrCat(l.upstream_revision_num()),
                  l.link_id()};
        });
  });
}

}  // namespace

void AddLinkCommands(CLI::App& app, Env& env) {
  CLI::App* group = app.add_subcommand("link", "Manage Links between Units");
  AddCreate(group, env);
  AddGet(group, env);
  AddList(group, env);
}

}  // namespace cub::cli
