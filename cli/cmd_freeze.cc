// `cub freeze create|get|list|delete`: freezes, which stop promotions and publishes into the
// Spaces they cover while in force; without a schedule, until deleted (stop the line).
#include "cli/cmd_freeze.h"

#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "cli/commands.h"
#include "cli/space_flag.h"
#include "cub/v1/freeze.grpc.pb.h"

namespace cub::cli {
namespace {

using cub::v1::Freeze;
using cub::v1::FreezeService;

// "in force until T", "in force until deleted", "from T", "ended".
std::string StateText(const Freeze& f) {
  if (f.in_force()) {
    return f.in_force_until().empty() ? "in force until deleted"
                                      : absl::StrCat("in force until ", f.in_force_until());
  }
  if (!f.next_start().empty()) return absl::StrCat("not in force; next from ", f.next_start());
  return "not in force; ended";
}

std::string ScopeText(const Freeze& f) {
  if (f.change_workflow().empty()) return "every Space";
  if (f.stages().empty()) return f.change_workflow();
  return absl::StrCat(f.change_workflow(), " stages ", absl::StrJoin(f.stages(), ","));
}

std::string ScheduleText(const Freeze& f) {
  if (f.schedule() == "Window") return absl::StrCat(f.from(), " to ", f.until());
  if (f.schedule() == "Recurring") {
    return absl::StrCat("'", f.cron(), "' ", f.time_zone(), " for ", f.duration());
  }
  return "until deleted";
}

void AddCreate(CLI::App* group, Env& env) {
  auto stages = std::make_shared<std::vector<std::string>>();
  auto o = std::make_shared<cub::v1::CreateFreezeRequest>();
  CLI::App* cmd = group->add_subcommand(
      "create",
      "Freeze the Spaces of a workflow's Stages (or every Space): no promotion or publish into "
      "them while the freeze is in force; without a schedule, until it is deleted");
  AddSpaceOption(cmd, o->mutable_space(), "Space that holds the freeze (slug or ID)");
  cmd->add_option("NAME", *o->mutable_slug(), "Freeze name")->required();
  cmd->add_option("--reason", *o->mutable_reason(), "Why (shown in every refusal)")->required();
  cmd->add_option("--change-workflow", *o->mutable_change_workflow(),
                  "Only the Spaces this workflow's Stages select (default: every Space)")
      ->type_name("SPACE/NAME");
  cmd->add_option("--stage", *stages, "Only this Stage of the workflow (repeatable)")
      ->type_name("STAGE");
  auto* from =
      cmd->add_option("--from", *o->mutable_from(), "Window start (RFC 3339)")->type_name("TIME");
  auto* until =
      cmd->add_option("--until", *o->mutable_until(), "Window end (RFC 3339)")->type_name("TIME");
  auto* cron =
      cmd->add_option("--cron", *o->mutable_cron(),
                      "Recurring windows start at these times: 'minute hour day-of-month month "
                      "day-of-week'")
          ->type_name("EXPR");
  cmd->add_option("--duration", *o->mutable_duration(),
                  "How long each recurring window lasts (90m, 2h30m, 1d12h)")
      ->type_name("D");
  cmd->add_option("--time-zone", *o->mutable_time_zone(),
                  "Time zone the cron expression is read in (IANA name; default UTC)")
      ->type_name("ZONE");
  cron->excludes(from)->excludes(until);
  OnRun(cmd, env, [&env, o, stages] {
    cub::v1::CreateFreezeRequest req = *o;
    for (const auto& s : *stages) req.add_stages(s);
    Freeze f;
    if (!CallCubd(env, &FreezeService::Stub::CreateFreeze, req, &f)) return kExitFailed;
    return env.printer().Confirm(f, absl::StrCat("Freeze ", f.space(), "/", f.slug(), " created: ",
                                                 StateText(f), " ", IdSuffix(f.freeze_id())));
  });
}

void AddGet(CLI::App* group, Env& env) {
  auto req = std::make_shared<cub::v1::GetFreezeRequest>();
  CLI::App* cmd =
      group->add_subcommand("get", "Show a freeze, whether it is in force and until when");
  AddSpaceOption(cmd, req->mutable_space(), "Space slug or ID");
  cmd->add_option("NAME", *req->mutable_freeze(), "Freeze name or ID")->required();
  OnRun(cmd, env, [&env, req] {
    Freeze f;
    if (!CallCubd(env, &FreezeService::Stub::GetFreeze, *req, &f)) return kExitFailed;
    return env.printer().Fields(f);
  });
}

void AddList(CLI::App* group, Env& env) {
  auto req = std::make_shared<cub::v1::ListFreezesRequest>();
  CLI::App* cmd = group->add_subcommand("list", "List freezes and whether each is in force");
  cmd->add_option("--space", *req->mutable_space(),
                  "Only the freezes this Space holds (default: of every Space you can see)");
  OnRun(cmd, env, [&env, req] {
    cub::v1::ListFreezesResponse resp;
    if (!CallCubd(env, &FreezeService::Stub::ListFreezes, *req, &resp)) return kExitFailed;
    return env.printer().List<Freeze>(
        resp.freezes(), {"SPACE", "NAME", "STATE", "SCOPE", "SCHEDULE", "REASON"},
        [](const Freeze& f) -> std::vector<std::string> {
          return {f.space(), f.slug(), StateText(f), ScopeText(f), ScheduleText(f), f.reason()};
        });
  });
}

void AddDelete(CLI::App* group, Env& env) {
  auto req = std::make_shared<cub::v1::DeleteFreezeRequest>();
  CLI::App* cmd = group->add_subcommand(
      "delete", "Delete a freeze: what it held may go through (the engine looks again)");
  AddSpaceOption(cmd, req->mutable_space(), "Space slug or ID");
  cmd->add_option("NAME", *req->mutable_freeze(), "Freeze name or ID")->required();
  OnRun(cmd, env, [&env, req] {
    cub::v1::DeleteFreezeResponse resp;
    if (!CallCubd(env, &FreezeService::Stub::DeleteFreeze, *req, &resp)) return kExitFailed;
    return env.printer().Confirm(resp, absl::StrCat("Freeze ", resp.deleted().space(), "/",
                                                    resp.deleted().slug(), " deleted"));
  });
}

}  // namespace

void AddFreezeCommands(CLI::App& app, Env& env) {
  CLI::App* group = app.add_subcommand(
      "freeze", "Freezes and stop-the-line: no promotion or publish into the Spaces they cover");
  AddCreate(group, env);
  AddGet(group, env);
  AddList(group, env);
  AddDelete(group, env);
}

}  // namespace cub::cli
