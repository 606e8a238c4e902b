// `cub invocation ...`: save a function call with declared parameters, and show saved ones.
// Run one with `cub function set --invocation SPACE/NAME --param NAME=VALUE`.
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "cli/commands.h"
#include "cli/space_flag.h"
#include "cub/v1/function.grpc.pb.h"

namespace cub::cli {
namespace {

using cub::v1::InvocationService;

// NAME:TYPE:REQUIRED, e.g. tag:string:true; TYPE and REQUIRED may be left out.
bool ParseParameter(const std::string& text, cub::v1::InvocationParameter* out) {
  std::vector<std::string> parts = absl::StrSplit(text, ':');
  if (parts.empty() || parts.size() > 3 || parts[0].empty()) return false;
  out->set_name(parts[0]);
  out->set_type(parts.size() > 1 && !parts[1].empty() ? parts[1] : "string");
  if (parts.size() == 3 && parts[2] != "true" && parts[2] != "false") return false;
  out->set_required(parts.size() == 3 && parts[2] == "true");
  return true;
}

void AddCreate(CLI::App* group, Env& env) {
  struct Opts {
    std::string space, name, toolchain;
    std::vector<std::string> parameters, words;
  };
  auto o = std::make_shared<Opts>();
  CLI::App* cmd = group->add_subcommand("create", "Save a function call to run later");
  AddSpaceOption(cmd, &o->space, "Space slug or ID");
  cmd->add_option("NAME", o->name, "Slug of the new Invocation")->required();
  cmd->add_option("TOOLCHAIN", o->toolchain, "Toolchain type, e.g. Kubernetes/YAML")->required();
  cmd->add_option("--parameter", o->parameters,
                  "Declare a parameter NAME:TYPE:REQUIRED (string|int|bool, true|false)")
      ->type_name("PARAM")
      ->allow_extra_args(false);  // one value per flag, so `--` and FUNCTION stay positional
  cmd->add_option("FUNCTION", o->words,
                  "-- FUNCTION ARGS...; an argument 'template:...{{ .Params.NAME }}...' takes "
                  "a parameter's value")
      ->required();
  OnRun(cmd, env, [&env, o] {
    cub::v1::CreateInvocationRequest req;
    req.set_space(o->space);
    req.set_slug(o->name);
    req.set_toolchain_type(o->toolchain);
    req.set_function(o->words[0]);
    for (size_t i = 1; i < o->words.size(); ++i) req.add_arguments(o->words[i]);
    for (const auto& text : o->parameters) {
      if (!ParseParameter(text, req.add_parameters())) {
        return UsageError(
            absl::StrCat("--parameter: expected NAME:TYPE:REQUIRED, got '", text, "'"));
      }
    }
    cub::v1::Invocation inv;
    if (!CallCubd(env, &InvocationService::Stub::CreateInvocation, req, &inv)) return kExitFailed;
    return env.printer().Confirm(
        inv, absl::StrCat("Invocation ", inv.slug(), " created", IdSuffix(inv.invocation_id())));
  });
}

void AddGet(CLI::App* group, Env& env) {
  struct Opts {
    std::string space, name;
  };
  auto o = std::make_shared<Opts>();
  CLI::App* cmd = group->add_subcommand("get", "Show a saved Invocation");
  AddSpaceOption(cmd, &o->space, "Space slug or ID");
  cmd->add_option("NAME", o->name, "Invocation slug or ID")->required();
  OnRun(cmd, env, [&env, o] {
    cub::v1::GetInvocationRequest req;
    req.set_space(o->space);
    req.set_invocation(o->name);
    cub::v1::Invocation inv;
    if (!CallCubd(env, &InvocationService::Stub::GetInvocation, req, &inv)) return kExitFailed;
    return env.printer().Fields(inv);
  });
}

void AddList(CLI::App* group, Env& env) {
  auto space = std::make_shared<std::string>();
  CLI::App* cmd = group->add_subcommand("list", "List the saved Invocations of a Space");
  AddSpaceOption(cmd, space.get(), "Space slug or ID");
  OnRun(cmd, env, [&env, space] {
    cub::v1::ListInvocationsRequest req;
    req.set_space(*space);
    cub::v1::ListInvocationsResponse resp;
    if (!CallCubd(env, &InvocationService::Stub::ListInvocations, req, &resp)) return kExitFailed;
    return env.printer().List<cub::v1::Invocation>(
        resp.invocations(), {"NAME", "TOOLCHAIN", "FUNCTION", "ARGUMENTS", "ID"},
        [](const cub::v1::Invocation& i) -> std::vector<std::string> {
          return {i.slug(), i.toolchain_type(), i.function_name(),
                  absl::StrJoin(i.arguments(), " "), i.invocation_id()};
        });
  });
}

}  // namespace

void AddInvocationCommands(CLI::App& app, Env& env) {
  CLI::App* group = app.add_subcommand("invocation", "Save function calls with parameters");
  AddCreate(group, env);
  AddGet(group, env);
  AddList(group, env);
}

}  // namespace cub::cli
