// `cub changeorder ...`: create, show, list and update ChangeOrders, the names of changes made
// in a base Space and moved stage by stage (with `cub variant promote --change-order`).
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "cli/change_order_name.h"
#include "cli/commands.h"
#include "cli/count.h"
#include "cli/explain_render.h"
#include "cli/flag_names.h"
#include "cli/space_flag.h"
#include "cli/paged_list.h"
#include "cli/progress.h"
#include "cli/watch_render.h"
#include "cub/v1/changeorder.grpc.pb.h"
#include "lib/domain/vocabulary.h"

namespace cub::cli {
namespace {

using cub::v1::ChangeOrder;
using cub::v1::ChangeOrderService;

constexpr char kSpaceHelp[] = "Base Space (the one the change was made in): slug or ID";
constexpr char kNameHelp[] = "ChangeOrder: BASE/NAME, or its slug or ID with --space";

// "3: acme-dev, acme-staging, acme-prod", or "0": Spaces by slug, an ID only when `names`
// lacks it.
std::string SpaceList(const google::protobuf::RepeatedPtrField<std::string>& ids,
                      const std::map<std::string, std::string>& names) {
  if (ids.empty()) return "0";
  std::vector<std::string> shown;
  for (const auto& id : ids) {
    auto it = names.find(id);
    shown.push_back(it != names.end() ? it->second : id);
  }
  return absl::StrCat(ids.size(), ": ", absl::StrJoin(shown, ", "));
}

std::string Who(const std::string& user, const std::string& user_id) {
  return user.empty() ? user_id : user;
}

// The FIELD VALUE listing of `cub changeorder get`, then what it waits for (`explained`). A
// field with several entries takes one row each, the FIELD cell left empty after the first.
std::string Describe(const ChangeOrder& c, const cub::v1::ExplainChangeOrderResponse& explained) {
  const std::map<std::string, std::string> names = SpaceNamesOf(explained);
  Table t{{"FIELD", "VALUE"}, {}};
  auto row = [&t](const std::string& field, const std::string& value) {
    t.rows.push_back({field, value});
  };
  auto rows = [&t](const std::string& field, const std::vector<std::string>& values) {
    for (size_t i = 0; i < values.size(); ++i) t.rows.push_back({i == 0 ? field : "", values[i]});
  };
  row("Slug", c.slug());
  row("ID", c.change_order_id());
  row("Space", c.space_slug().empty() ? c.space_id() : c.space_slug());
  row("Description", c.description());
  row("State", c.state());
  row("Stage", c.stage());
  row("Completed", c.completed() ? "yes" : "no");
  row("Change Workflow", c.change_workflow().empty() ? "none" : c.change_workflow());
  row("Update Type", c.update_type());
  if (!c.invocation().empty()) {
    row("Invocation", absl::StrCat(c.invocation(), " (", c.function_name(), " ",
                                   absl::StrJoin(c.function_args(), " "), ")"));
    row("Where Unit", c.where_unit().empty() ? "(all units)" : c.where_unit());
  }
  row("Prior Revisions", c.prior_revisions());
  if (!c.where_space().empty()) row("Where Space", c.where_space());
  row("Changed Units", absl::StrCat(c.changed_unit_count()));
  row("In-Scope Spaces", SpaceList(c.in_scope_space_ids(), names));
  row("Resolved Spaces", SpaceList(c.resolved_space_ids(), names));
  row("Released Spaces", SpaceList(c.released_space_ids(), names));
  if (!c.aborted_reason().empty()) row("Aborted Reason", c.aborted_reason());
  if (c.blocked()) row("Blocked", absl::StrCat("since ", c.blocked_at(), " by ", c.blocked_by()));

  std::vector<std::string> skipped;
  for (const auto& s : c.skipped_units()) {
    skipped.push_back(
        absl::StrCat(s.unit().empty() ? s.unit_id() : s.unit(), ": ", WithFlagNames(s.reason())));
  }
  if (skipped.empty()) skipped.push_back("none");
  rows("Skipped Units", skipped);

  // The most recent failure: the latest At (timestamps of one format sort as text); on a tie,
  // the one recorded last.
  const cub::v1::PromotionFailure* last = nullptr;
  for (const auto& f : c.promotion_failures()) {
    if (last == nullptr || f.at() >= last->at()) last = &f;
  }
  if (last != nullptr) {
    std::vector<std::string> lines;
    std::string head = absl::StrCat("by ", Who(last->user(), last->user_id()), " at ", last->at(),
                                    ", stage ", last->stage().empty() ? "(none)" : last->stage(),
                                    ": ", Count(last->landed(), "space"), " landed");
    if (c.promotion_failures_size() > 1) {
      absl::StrAppend(&head, " (latest of ", c.promotion_failures_size(), ")");
    }
    lines.push_back(head);
    for (const auto& s : last->spaces()) {
      lines.push_back(absl::StrCat("  ", s.space().empty() ? s.space_id() : s.space(), ": ",
                                   s.error().empty() ? "failed" : WithFlagNames(s.error())));
      for (const auto& u : s.units())
        lines.push_back(absl::StrCat("    ", u.unit(), ": ", WithFlagNames(u.error())));
    }
    rows("Promotion Failure", lines);
  }

  std::vector<std::string> overrides;
  for (const auto& o : c.promotion_overrides()) {
    overrides.push_back(absl::StrCat("by ", Who(o.user(), o.user_id()), " at ", o.at(), ", stage ",
                                     o.stage().empty() ? "(none)" : o.stage(), ": ", o.reason()));
    if (o.failed_gates_size() > 0) {
      overrides.push_back(absl::StrCat("  failed gates: ", absl::StrJoin(o.failed_gates(), ", ")));
    }
  }
  if (!overrides.empty()) rows("Promotion Overrides", overrides);
  const cub::v1::EngineState& e = c.engine();
  if (e.pending()) {
    row("Engine", "pending: cubd has yet to act on the latest change");
  } else if (!e.due_at().empty()) {
    row("Engine", e.last_error().empty()
                      ? absl::StrCat("looks again at ", e.due_at(), " (a gate may open with time)")
                      : absl::StrCat("retries at ", e.due_at(), " after ",
                                     Count(e.attempts(), "failed attempt"), ": ",
                                     WithFlagNames(e.last_error())));
  }
  // What PendingRequirements listed (approvals) is part of the explanation, with names.
  return absl::StrCat(t.Render(), "\nWaiting For (evaluated at ", explained.at(), ")\n",
                      ExplanationText(explained));
}

// ExplainChangeOrder's answer for the ChangeOrder `get` and `explain` name; false (the
// failure printed) when the call fails.
bool Explain(const Env& env, const std::string& space, const std::string& name,
             cub::v1::ExplainChangeOrderResponse* out) {
  cub::v1::ExplainChangeOrderRequest req;
  req.set_space(space);
  req.set_change_order(name);
  return CallCubd(env, &ChangeOrderService::Stub::ExplainChangeOrder, req, out);
}

void AddCreate(CLI::App* group, Env& env) {
  struct Opts {
    std::string space, name, description, change_workflow, where_space_field, space_filter,
        component, end_tag, prior_revisions, update_type, invocation, where_unit, unit_filter;
    std::vector<std::string> in_scope_spaces, params;
    bool allow_exists = false;
  };
  auto o = std::make_shared<Opts>();
  CLI::App* cmd = group->add_subcommand(
      "create", "Name a change already made in the base, fixing its range and where it goes");
  AddSpaceOption(cmd, &o->space, kSpaceHelp);
  cmd->add_option("NAME", o->name, "Slug of the new ChangeOrder")->required();
  cmd->add_option("--description", o->description, "What the change is")->required();
  cmd->add_option("--change-workflow", o->change_workflow,
                  "The ChangeWorkflow that orders its stages")
      ->type_name("SPACE/WORKFLOW");
  cmd->add_option("--in-scope-space", o->in_scope_spaces,
                  "A Space the change is headed for (repeatable, or comma-separated); default: "
                  "wherever the base's Links reach")
      ->type_name("SPACE")
      ->delimiter(',')
      ->allow_extra_args(false);
  cmd->add_option("--where-space-field", o->where_space_field,
                  "Where expression selecting the Spaces in scope")
      ->type_name("EXPR");
  cmd->add_option("--space-filter", o->space_filter,
                  "Saved Filter over Spaces selecting the Spaces in scope")
      ->type_name("SPACE/FILTER");
  cmd->add_option("--component", o->component,
                  "Select the Spaces of this component (added to --where-space-field)");
  cmd->add_option("--end-tag", o->end_tag,
                  "Tag marking each Unit's end revision, SPACE/TAG or TAG (default: the heads)")
      ->type_name("TAG");
  cmd->add_option("--prior-revisions", o->prior_revisions,
                  "Default for its promotions: what to do with revisions a target wrote before "
                  "the change's start; All also marks unchanged Units at their heads")
      ->type_name("MODE")
      ->check(
          CLI::IsMember(domain::AllNames(domain::kAllPriorRevisions, domain::PriorRevisionsName)));
  cmd->add_option("--update-type", o->update_type,
                  "UpgradeUnit (follow the clone lineage, default), MergeUnits (follow MergeUnits "
                  "Links) or Invoke (run --invocation in each Space)")
      ->type_name("TYPE")
      ->check(CLI::IsMember(domain::AllNames(domain::kAllUpdateTypes, domain::UpdateTypeName)));
  cmd->add_option("--invocation", o->invocation,
                  "Invoke: the Invocation (SPACE/NAME) each promotion runs in its Spaces");
  AddKeyValueFlag(
      cmd, "--param", &o->params,
      "Invoke: a parameter value of the Invocation, fixed for the rollout (repeatable)");
  cmd->add_option("--where-unit", o->where_unit,
                  "Invoke: which Units it runs on (where expression over Units)");
  cmd->add_option("--unit-filter", o->unit_filter, "Invoke: a saved Unit Filter (SPACE/NAME)");
  cmd->add_flag("--allow-exists", o->allow_exists,
                "Succeed with the existing ChangeOrder if the name is taken (its range is the "
                "one fixed then)");
  OnRun(cmd, env, [&env, o] {
    cub::v1::CreateChangeOrderRequest req;
    req.set_space(o->space);
    req.set_slug(o->name);
    req.set_description(o->description);
    req.set_change_workflow(o->change_workflow);
    for (const auto& s : o->in_scope_spaces) {
      std::string space(absl::StripAsciiWhitespace(s));
      if (!space.empty()) req.add_in_scope_spaces(space);
    }
    req.set_where_space_field(o->where_space_field);
    req.set_space_filter(o->space_filter);
    req.set_component(o->component);
    req.set_end_tag(o->end_tag);
    req.set_prior_revisions(o->prior_revisions);
    req.set_update_type(o->update_type);
    req.set_allow_exists(o->allow_exists);
    req.set_invocation(o->invocation);
    PutKeyValues(o->params, req.mutable_params());
    req.set_where_unit(o->where_unit);
    req.set_unit_filter(o->unit_filter);
    ChangeOrder c;
    if (!CallCubd(env, &ChangeOrderService::Stub::CreateChangeOrder, req, &c)) return kExitFailed;
    const std::string space = c.space_slug().empty() ? o->space : c.space_slug();
    return env.printer().Confirm(
        c, absl::StrCat("ChangeOrder ", c.slug(), " created in ", space, ": ",
                        Count(c.changed_unit_count(), "unit"), " changed, ",
                        Count(c.in_scope_space_ids_size(), "space"), " in scope"));
  });
}

void AddGet(CLI::App* group, Env& env) {
  struct Opts {
    std::string space, name;
  };
  auto o = std::make_shared<Opts>();
  CLI::App* cmd = group->add_subcommand(
      "get", "Show a ChangeOrder: where it has got to, what it skipped, its last failure");
  cmd->add_option("--space", o->space, kSpaceHelp);
  cmd->add_option("NAME", o->name, kNameHelp)->required();
  OnRun(cmd, env, [&env, o] {
    if (int rc = ResolveChangeOrderName(&o->space, &o->name); rc != kExitOk) return rc;
    cub::v1::GetChangeOrderRequest req;
    req.set_space(o->space);
    req.set_change_order(o->name);
    ChangeOrder c;
    if (!CallCubd(env, &ChangeOrderService::Stub::GetChangeOrder, req, &c)) return kExitFailed;
    const Printer printer = env.printer();
    if (!printer.table() || printer.options().names) return printer.Document(c);
    cub::v1::ExplainChangeOrderResponse explained;
    if (!Explain(env, o->space, o->name, &explained)) return kExitFailed;
    return printer.Text(Describe(c, explained));
  });
}

void AddExplain(CLI::App* group, Env& env) {
  struct Opts {
    std::string space, name;
  };
  auto o = std::make_shared<Opts>();
  CLI::App* cmd = group->add_subcommand(
      "explain",
      "Show why a ChangeOrder goes no further now: per Stage, each gate that does not hold, in "
      "which Space, what it needs, and when it can hold at the earliest");
  cmd->add_option("--space", o->space, kSpaceHelp);
  cmd->add_option("NAME", o->name, kNameHelp)->required();
  OnRun(cmd, env, [&env, o] {
    if (int rc = ResolveChangeOrderName(&o->space, &o->name); rc != kExitOk) return rc;
    cub::v1::ExplainChangeOrderResponse explained;
    if (!Explain(env, o->space, o->name, &explained)) return kExitFailed;
    const Printer printer = env.printer();
    if (!printer.table()) return printer.Document(explained);
    return printer.Text(absl::StrCat("ChangeOrder ", explained.change_order(), " at stage ",
                                     explained.stage().empty() ? "(none)" : explained.stage(),
                                     ", evaluated at ", explained.at(), "\n",
                                     ExplanationText(explained)));
  });
}

void AddList(CLI::App* group, Env& env) {
  struct Opts {
    std::string space, where;
    PageFlags page;
  };
  auto o = std::make_shared<Opts>();
  CLI::App* cmd = group->add_subcommand(
      "list", "List the ChangeOrders of a base Space, or of every Space you can see");
  cmd->add_option("--space", o->space, "Base Space slug or ID (default: every Space)");
  cmd->add_option("--where", o->where,
                  "Where expression over ChangeOrders (e.g. State = 'InProgress')");
  AddPageFlags(cmd, &o->page, "ChangeOrders");
  OnRun(cmd, env, [&env, o] {
    cub::v1::ListChangeOrdersRequest req;
    req.set_space(o->space);
    req.mutable_options()->set_where(o->where);
    return PrintPaged(
        env, o->page, req, &ChangeOrderService::Stub::ListChangeOrders,
        &cub::v1::ListChangeOrdersResponse::change_orders,
        {"SPACE", "NAME", "STATE", "STAGE", "COMPLETED", "IN-SCOPE", "RESOLVED", "RELEASED"},
        [](const ChangeOrder& c) -> std::vector<std::string> {
          return {c.space_slug().empty() ? c.space_id() : c.space_slug(),
                  c.slug(),
                  c.state(),
                  c.stage(),
                  c.completed() ? "yes" : "no",
                  absl::StrCat(c.in_scope_space_ids_size()),
                  absl::StrCat(c.resolved_space_ids_size()),
                  absl::StrCat(c.released_space_ids_size())};
        });
  });
}

void AddUpdate(CLI::App* group, Env& env) {
  struct Opts {
    std::string space, name, description, aborted_reason;
    bool refresh_spaces = false, block = false, unblock = false;
  };
  auto o = std::make_shared<Opts>();
  CLI::App* cmd = group->add_subcommand(
      "update",
      "Change a ChangeOrder's description, abort or block it, or evaluate its scope again");
  cmd->add_option("--space", o->space, kSpaceHelp);
  cmd->add_option("NAME", o->name, kNameHelp)->required();
  cmd->add_option("--description", o->description, "New description");
  cmd->add_option("--aborted-reason", o->aborted_reason,
                  "Abort the ChangeOrder, saying why: no promotion takes it any further");
  cmd->add_flag("--refresh-spaces", o->refresh_spaces,
                "Evaluate the scope selection (--where-space-field, --space-filter, --component) "
                "again");
  cmd->add_flag("--block", o->block,
                "Abort it (with --aborted-reason, unless aborted already) and block the content "
                "it brought: no promotion, upgrade or publish takes it into a Space that does "
                "not run it already, not even with --force");
  cmd->add_flag("--unblock", o->unblock, "Lift the block; the ChangeOrder stays aborted");
  OnRun(cmd, env, [&env, o, cmd] {
    if (int rc = ResolveChangeOrderName(&o->space, &o->name); rc != kExitOk) return rc;
    const bool description = cmd->count("--description") > 0;
    const bool aborted_reason = cmd->count("--aborted-reason") > 0;
    if (!description && !aborted_reason && !o->refresh_spaces && !o->block && !o->unblock) {
      return UsageError(
          "nothing to update: pass --description, --aborted-reason, --block, --unblock or "
          "--refresh-spaces");
    }
    cub::v1::UpdateChangeOrderRequest req;
    req.set_space(o->space);
    req.set_change_order(o->name);
    if (description) req.set_description(o->description);
    if (aborted_reason) req.set_aborted_reason(o->aborted_reason);
    req.set_refresh_spaces(o->refresh_spaces);
    req.set_block(o->block);
    req.set_unblock(o->unblock);
    ChangeOrder c;
    if (!CallCubd(env, &ChangeOrderService::Stub::UpdateChangeOrder, req, &c)) return kExitFailed;
    std::string line = absl::StrCat("ChangeOrder ", c.slug(), " updated");
    if (!c.state().empty()) absl::StrAppend(&line, ": State ", c.state());
    if (o->block || o->unblock) absl::StrAppend(&line, c.blocked() ? ", blocked" : ", not blocked");
    if (o->refresh_spaces) {
      absl::StrAppend(&line, c.state().empty() ? ": " : ", ",
                      Count(c.in_scope_space_ids_size(), "space"), " in scope");
    }
    return env.printer().Confirm(c, line);
  });
}

// Shows each snapshot of a watch as it arrives: redrawn in place on a terminal, else a line
// each (compact JSON with --json).
class ProgressView {
 public:
  ProgressView(bool json, bool terminal) : json_(json), terminal_(terminal && !json) {}

  void Show(const cub::v1::ChangeOrderProgress& p) {
    if (json_) {
      std::printf("%s\n", MessageToCompactJson(p).c_str());
    } else if (terminal_) {
      std::vector<std::string> lines = {HeadLine(p)};
      for (auto& l : StageLines(p)) lines.push_back(std::move(l));
      std::fputs(Redraw(drawn_, lines).c_str(), stdout);
      drawn_ = std::max(drawn_, static_cast<int>(lines.size()));
    } else {
      std::printf("%s\n", SnapshotLine(p).c_str());
    }
    std::fflush(stdout);
  }

 private:
  const bool json_;
  const bool terminal_;
  int drawn_ = 0;  // lines on screen to redraw
};

// Reads the watch until it ends: 0 at Completed, 1 at Aborted or on a failure.
int RunWatch(const Env& env, const cub::v1::WatchChangeOrderRequest& req, bool json) {
  std::unique_ptr<Client> client = Connect(env);
  if (client == nullptr) return kExitFailed;
  if (absl::Status text = CheckTextFields(req); !text.ok()) {
    PrintFailure(text.message());
    return kExitFailed;
  }
  ChangeOrderService::Stub stub(client->channel());
  std::unique_ptr<grpc::ClientContext> ctx = client->NewContext();
  ctx->set_deadline(std::chrono::system_clock::time_point::max());  // until it ends
  auto reader = stub.WatchChangeOrder(ctx.get(), req);
  const bool json_view = json || env.printer().format() != Format::kTable;
  ProgressView view(json_view, isatty(1) == 1);
  // When stdout is a terminal the view itself is live; otherwise (stdout piped) a live line on
  // a terminal's stderr shows the latest snapshot and the time watched.
  const std::string ref =
      absl::StrCat(req.space(), req.space().empty() ? "" : "/", req.change_order());
  TerminalProgress progress(!json_view && isatty(1) != 1 && ProgressWanted(env),
                            WatchActivity(ref, nullptr));
  cub::v1::ChangeOrderProgress last;
  bool any = false;
  for (cub::v1::ChangeOrderProgress p; reader->Read(&p);) {
    if (!env.globals.quiet) view.Show(p);
    progress.Set(WatchActivity(ref, &p));
    last = p;
    any = true;
  }
  progress.Stop();
  const grpc::Status status = reader->Finish();
  if (!status.ok()) {
    PrintFailure(client->Describe(status));
    return kExitFailed;
  }
  const std::string name =
      absl::StrCat(last.change_order().space_slug(), "/", last.change_order().slug());
  if (any && last.state() == "Completed") return kExitOk;
  if (any && last.state() == "Aborted") {
    PrintFailure(
        absl::StrCat("ChangeOrder ", name, " was aborted: ", last.change_order().aborted_reason()));
    return kExitFailed;
  }
  PrintFailure("cubd ended the watch before the ChangeOrder was Completed or Aborted");
  return kExitFailed;
}

void AddWatch(CLI::App* group, Env& env) {
  struct Opts {
    std::string space, name;
    bool json = false;
  };
  auto o = std::make_shared<Opts>();
  CLI::App* cmd = group->add_subcommand(
      "watch",
      "Follow a ChangeOrder until it is Completed (exit 0) or Aborted (exit 1): per Stage, "
      "how many Spaces have taken, released and are healthy with the change");
  cmd->add_option("--space", o->space, kSpaceHelp);
  cmd->add_option("NAME", o->name, kNameHelp)->required();
  cmd->add_flag("--json", o->json, "One compact JSON ChangeOrderProgress per line");
  OnRun(cmd, env, [&env, o] {
    if (int rc = ResolveChangeOrderName(&o->space, &o->name); rc != kExitOk) return rc;
    cub::v1::WatchChangeOrderRequest req;
    req.set_space(o->space);
    req.set_change_order(o->name);
    return RunWatch(env, req, o->json);
  });
}

}  // namespace

void AddChangeOrderCommands(CLI::App& app, Env& env) {
  CLI::App* group = app.add_subcommand(
      "changeorder", "Manage ChangeOrders, named changes promoted from a base stage by stage");
  AddCreate(group, env);
  AddGet(group, env);
  AddExplain(group, env);
  AddList(group, env);
  AddUpdate(group, env);
  AddWatch(group, env);
  AddChangeOrderRecordsCommand(group, env);
}

}  // namespace cub::cli
