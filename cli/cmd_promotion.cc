// `cub promotion list|withdraw`: the promotions queued with `cub variant promote --queue`, which
// cubd carries out once their gates hold, and taking one back.
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "cli/commands.h"
#include "cli/explain_render.h"
#include "cli/flag_names.h"
#include "cub/v1/event.grpc.pb.h"

namespace cub::cli {
namespace {

using cub::v1::PromotionService;
using cub::v1::QueuedPromotion;

// The first thing it waits for, and how many more there are: from the explanation cubd
// derived at read, or, when it could not read the ChangeOrder, the reasons the engine stored.
std::string WaitingFor(const QueuedPromotion& q) {
  if (q.explained()) {
    if (q.waits_size() == 0) return "nothing: every gate holds";
    std::string out = WaitLine(q.waits(0));
    if (q.waits_size() > 1) absl::StrAppend(&out, " (+", q.waits_size() - 1, " more)");
    return out;
  }
  if (q.waiting_for_size() == 0) return "";
  std::string out = WithFlagNames(q.waiting_for(0));
  if (q.waiting_for_size() > 1) absl::StrAppend(&out, " (+", q.waiting_for_size() - 1, " more)");
  return out;
}

void AddList(CLI::App* group, Env& env) {
  struct Opts {
    std::string space, where;
  };
  auto o = std::make_shared<Opts>();
  CLI::App* cmd = group->add_subcommand(
      "list", "List queued promotions and what each waits for, by base Space and queue time");
  cmd->add_option("--space", o->space, "Base Space slug or ID (default: every Space you can see)");
  cmd->add_option("--where", o->where,
                  "Where expression over queued promotions (ChangeOrder, BaseSpace, Stage, "
                  "QueuedBy, QueuedAt, CheckedAt, WaitingFor)")
      ->type_name("EXPR");
  OnRun(cmd, env, [&env, o] {
    cub::v1::ListQueuedPromotionsRequest req;
    req.set_space(o->space);
    req.set_where(o->where);
    cub::v1::ListQueuedPromotionsResponse resp;
    if (!CallCubd(env, &PromotionService::Stub::ListQueuedPromotions, req, &resp)) {
      return kExitFailed;
    }
    return env.printer().List<QueuedPromotion>(
        resp.queued_promotions(),
        {"CHANGE-ORDER", "STAGE", "QUEUED-BY", "QUEUED-AT", "WAITING-FOR", "EARLIEST"},
        [](const QueuedPromotion& q) -> std::vector<std::string> {
          return {q.change_order(), q.stage(),     q.queued_by(),
                  q.queued_at(),    WaitingFor(q), q.earliest()};
        });
  });
}

void AddWithdraw(CLI::App* group, Env& env) {
  struct Opts {
    std::string change_order, target_stage;
  };
  auto o = std::make_shared<Opts>();
  CLI::App* cmd = group->add_subcommand(
      "withdraw",
      "Take back a queued promotion (you queued it, or you are an editor of its base Space)");
  cmd->add_option("--change-order", o->change_order, "The queued ChangeOrder, BASE/NAME")
      ->type_name("BASE/NAME")
      ->required();
  cmd->add_option("--target-stage", o->target_stage, "The Stage it is queued into")
      ->type_name("STAGE")
      ->required();
  OnRun(cmd, env, [&env, o] {
    cub::v1::WithdrawPromotionRequest req;
    req.set_change_order(o->change_order);
    req.set_target_stage(o->target_stage);
    cub::v1::WithdrawPromotionResponse resp;
    if (!CallCubd(env, &PromotionService::Stub::WithdrawPromotion, req, &resp)) {
      return kExitFailed;
    }
    const QueuedPromotion& q = resp.withdrawn();
    return env.printer().Confirm(
        resp, absl::StrCat("Withdrew the promotion of change order ", q.change_order(),
                           " into stage ", q.stage(), " (queued by ", q.queued_by(), ")"));
  });
}

}  // namespace

void AddPromotionCommands(CLI::App& app, Env& env) {
  CLI::App* group = app.add_subcommand(
      "promotion", "List and withdraw queued promotions (cub variant promote --queue)");
  AddList(group, env);
  AddWithdraw(group, env);
}

}  // namespace cub::cli
