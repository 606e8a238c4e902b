// `cub variant create`: clone an upstream Space, all its Units, into a new Space whose Units
// are linked back to the upstream ones, so later changes there can be promoted down.
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "cli/commands.h"
#include "cub/v1/variant.grpc.pb.h"

namespace cub::cli {
namespace {

using cub::v1::VariantService;

void AddCreate(CLI::App* group, Env& env) {
  struct Opts {
    std::string name, upstream, stage, environment, region;
    std::vector<std::string> labels;
  };
  auto o = std::make_shared<Opts>();
  CLI::App* cmd =
      group->add_subcommand("create", "Create a Space cloned from UPSTREAM-SPACE, Units linked");
  cmd->add_option("NAME", o->name, "Slug of the new Space")->required();
  cmd->add_option("UPSTREAM-SPACE", o->upstream, "Space to clone (slug or ID)")->required();
  cmd->add_option("--stage", o->stage, "Value of the Stage label (what workflows select on)");
  cmd->add_option("--environment", o->environment, "Value of the Environment label");
  cmd->add_option("--region", o->region, "Value of the Region label");
  AddKeyValueFlag(cmd, "--label", &o->labels, "Set another label (repeatable)");
  OnRun(cmd, env, [&env, o] {
    cub::v1::CreateVariantRequest req;
    req.set_slug(o->name);
    req.set_upstream_space(o->upstream);
    req.set_stage(o->stage);
    req.set_environment(o->environment);
    req.set_region(o->region);
    PutKeyValues(o->labels, req.mutable_labels());
    auto client = Connect(env);
    if (!client) return kExitFailed;
    cub::v1::CreateVariantResponse resp;
    if (!client->Call(&VariantService::Stub::CreateVariant, req, &resp)) return kExitFailed;
    const std::string name = resp.space().slug().empty() ? o->name : resp.space().slug();
    return env.printer().Confirm(resp, absl::StrCat("Variant ", name, " created from ", o->upstream,
                                                    " with ", resp.units_size(), " units"));
  });
}

}  // namespace

void AddVariantCommands(CLI::App& app, Env& env) {
  CLI::App* group = app.add_subcommand("variant", "Create variants (Spaces cloned from a base)");
  AddCreate(group, env);
}

}  // namespace cub::cli
