// `cub filter ...`: create, show and list saved Filters, named where expressions over Spaces or
// Units that list commands and ChangeOrders can refer to as SPACE/NAME.
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "cli/commands.h"
#include "cli/space_flag.h"
#include "cub/v1/variant.grpc.pb.h"

namespace cub::cli {
namespace {

using cub::v1::FilterService;

void AddCreate(CLI::App* group, Env& env) {
  struct Opts {
    std::string space, name, from, where;
  };
  auto o = std::make_shared<Opts>();
  CLI::App* cmd = group->add_subcommand("create", "Save a where expression as a Filter");
  AddSpaceOption(cmd, &o->space, "Space to keep the Filter in");
  cmd->add_option("NAME", o->name, "Slug of the new Filter")->required();
  cmd->add_option("FROM", o->from, "Entity the Filter selects")
      ->required()
      ->check(CLI::IsMember({"Space", "Unit"}));
  cmd->add_option("--where-field", o->where, "Where expression over FROM")->required();
  OnRun(cmd, env, [&env, o] {
    cub::v1::CreateFilterRequest req;
    req.set_space(o->space);
    req.set_slug(o->name);
    req.set_from(o->from);
    req.set_where_field(o->where);
    cub::v1::Filter filter;
    if (!CallCubd(env, &FilterService::Stub::CreateFilter, req, &filter)) return kExitFailed;
    return env.printer().Confirm(
        filter, absl::StrCat("Filter ", filter.slug(), " created", IdSuffix(filter.filter_id())));
  });
}

void AddGet(CLI::App* group, Env& env) {
  struct Opts {
    std::string space, name;
  };
  auto o = std::make_shared<Opts>();
  CLI::App* cmd = group->add_subcommand("get", "Show a Filter");
  AddSpaceOption(cmd, &o->space, "Space slug or ID");
  cmd->add_option("NAME", o->name, "Filter slug or ID")->required();
  OnRun(cmd, env, [&env, o] {
    cub::v1::GetFilterRequest req;
    req.set_space(o->space);
    req.set_filter(o->name);
    cub::v1::Filter filter;
    if (!CallCubd(env, &FilterService::Stub::GetFilter, req, &filter)) return kExitFailed;
    return env.printer().Fields(filter);
  });
}

void AddList(CLI::App* group, Env& env) {
  struct Opts {
    std::string space, where;
  };
  auto o = std::make_shared<Opts>();
  CLI::App* cmd = group->add_subcommand("list", "List the Filters of a Space");
  AddSpaceOption(cmd, &o->space, "Space slug or ID");
  cmd->add_option("--where", o->where, "Where expression over Filters");
  OnRun(cmd, env, [&env, o] {
    cub::v1::ListFiltersRequest req;
    req.set_space(o->space);
    req.mutable_options()->set_where(o->where);
    cub::v1::ListFiltersResponse resp;
    if (!CallCubd(env, &FilterService::Stub::ListFilters, req, &resp)) return kExitFailed;
    return env.printer().List<cub::v1::Filter>(
        resp.filters(), {"NAME", "FROM", "WHERE", "ID"},
        [](const cub::v1::Filter& f) -> std::vector<std::string> {
          return {f.slug(), f.from(), f.where_field(), f.filter_id()};
        });
  });
}

}  // namespace

void AddFilterCommands(CLI::App& app, Env& env) {
  CLI::App* group = app.add_subcommand("filter", "Manage saved Filters");
  AddCreate(group, env);
  AddGet(group, env);
  AddList(group, env);
}

}  // namespace cub::cli
