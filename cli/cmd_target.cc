// `cub target ...`: where a Space's Releases go (a directory, a Git repository).
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "cli/commands.h"
#include "cli/paged_list.h"
#include "cli/space_flag.h"
#include "cub/v1/release.grpc.pb.h"

namespace cub::cli {
namespace {

using cub::v1::TargetService;

std::string Params(const google::protobuf::Map<std::string, std::string>& params) {
  std::vector<std::string> out;
  std::map<std::string, std::string> sorted(params.begin(), params.end());
  for (const auto& [k, v] : sorted) out.push_back(absl::StrCat(k, "=", v));
  return absl::StrJoin(out, ",");
}

void AddTargetCreate(CLI::App* group, Env& env) {
  struct Opts {
    std::string space, name, provider;
    std::vector<std::string> params;
  };
  auto o = std::make_shared<Opts>();
  CLI::App* cmd = group->add_subcommand("create", "Create a Target");
  AddSpaceOption(cmd, &o->space, "Space to keep the Target in");
  cmd->add_option("NAME", o->name, "Slug of the new Target")->required();
  cmd->add_option("--provider", o->provider, "Directory, Git or OCI")
      ->required()
      ->check(CLI::IsMember({"Directory", "Git", "OCI"}));
  AddKeyValueFlag(cmd, "--param", &o->params,
                  "Provider parameter: path=DIR (Directory); repository=PATH-OR-URL, branch=B,"
                  " path=TEMPLATE (Git); repository=HOST/PATH, insecure=true, credentials=FILE,"
                  " ca-file=FILE (OCI) (repeatable)");
  OnRun(cmd, env, [&env, o] {
    cub::v1::CreateTargetRequest req;
    req.set_space(o->space);
    req.set_slug(o->name);
    req.set_provider(o->provider);
    PutKeyValues(o->params, req.mutable_params());
    cub::v1::Target t;
    if (!CallCubd(env, &TargetService::Stub::CreateTarget, req, &t)) return kExitFailed;
    return env.printer().Confirm(
        t, absl::StrCat("Target ", t.slug(), " created", IdSuffix(t.target_id())));
  });
}

void AddTargetGet(CLI::App* group, Env& env) {
  struct Opts {
    std::string space, name;
  };
  auto o = std::make_shared<Opts>();
  CLI::App* cmd = group->add_subcommand("get", "Show a Target");
  AddSpaceOption(cmd, &o->space, "Space slug or ID");
  cmd->add_option("NAME", o->name, "Target slug or ID")->required();
  OnRun(cmd, env, [&env, o] {
    cub::v1::GetTargetRequest req;
    req.set_space(o->space);
    req.set_target(o->name);
    cub::v1::Target t;
    if (!CallCubd(env, &TargetService::Stub::GetTarget, req, &t)) return kExitFailed;
    return env.printer().Fields(t);
  });
}

void AddTargetList(CLI::App* group, Env& env) {
  auto space = std::make_shared<std::string>();
  CLI::App* cmd = group->add_subcommand("list", "List the Targets of a Space");
  AddSpaceOption(cmd, space.get(), "Space slug or ID");
  auto page = std::make_shared<PageFlags>();
  AddPageFlags(cmd, page.get(), "Targets");
  OnRun(cmd, env, [&env, space, page] {
    cub::v1::ListTargetsRequest req;
    req.set_space(*space);
    return PrintPaged(env, *page, req, &TargetService::Stub::ListTargets,
                      &cub::v1::ListTargetsResponse::targets, {"NAME", "PROVIDER", "PARAMS", "ID"},
                      [](const cub::v1::Target& t) -> std::vector<std::string> {
                        return {t.slug(), t.provider(), Params(t.params()), t.target_id()};
                      });
  });
}

void AddTargetUpdate(CLI::App* group, Env& env) {
  struct Opts {
    std::string space, name;
    std::vector<std::string> params;
  };
  auto o = std::make_shared<Opts>();
  CLI::App* cmd = group->add_subcommand("update", "Change a Target's parameters");
  AddSpaceOption(cmd, &o->space, "Space slug or ID");
  cmd->add_option("NAME", o->name, "Target slug or ID")->required();
  AddKeyValueFlag(cmd, "--param", &o->params, "Set a parameter; KEY= removes it (repeatable)")
      ->required();
  OnRun(cmd, env, [&env, o] {
    cub::v1::UpdateTargetRequest req;
    req.set_space(o->space);
    req.set_target(o->name);
    PutKeyValues(o->params, req.mutable_params());
    cub::v1::Target t;
    if (!CallCubd(env, &TargetService::Stub::UpdateTarget, req, &t)) return kExitFailed;
    return env.printer().Confirm(t, absl::StrCat("Target ", t.slug(), " updated"));
  });
}

void AddTargetDelete(CLI::App* group, Env& env) {
  struct Opts {
    std::string space, name;
  };
  auto o = std::make_shared<Opts>();
  CLI::App* cmd = group->add_subcommand("delete", "Delete a Target no Space releases to");
  AddSpaceOption(cmd, &o->space, "Space slug or ID");
  cmd->add_option("NAME", o->name, "Target slug or ID")->required();
  OnRun(cmd, env, [&env, o] {
    cub::v1::DeleteTargetRequest req;
    req.set_space(o->space);
    req.set_target(o->name);
    cub::v1::DeleteTargetResponse resp;
    if (!CallCubd(env, &TargetService::Stub::DeleteTarget, req, &resp)) return kExitFailed;
    return env.printer().Confirm(resp, absl::StrCat("Target ", o->name, " deleted"));
  });
}

}  // namespace

void AddTargetCommands(CLI::App& app, Env& env) {
  CLI::App* group = app.add_subcommand("target", "Manage release Targets (where Releases go)");
  AddTargetCreate(group, env);
  AddTargetGet(group, env);
  AddTargetList(group, env);
  AddTargetUpdate(group, env);
  AddTargetDelete(group, env);
}

}  // namespace cub::cli
