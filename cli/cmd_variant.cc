// `cub variant promote --change-order`: move a ChangeOrder into the Spaces of its next stage
// (or named ones), gated by its ChangeWorkflow; with --queue, left for cubd to carry out once
// the gates hold. (`cub variant create` is in cli/cmd_variant_create.cc.)
#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "cli/commands.h"
#include "cli/count.h"
#include "cli/engine_wait.h"
#include "cli/flag_names.h"
#include "cli/progress.h"
#include "cub/v1/changeorder.grpc.pb.h"
#include "lib/domain/vocabulary.h"

namespace cub::cli {
namespace {

using cub::v1::ChangeOrderService;

// Accepts BASE/NAME with both parts present.
CLI::Validator BaseSlashName() {
  return CLI::Validator(
      [](std::string& value) -> std::string {
        const size_t slash = value.find('/');
        if (slash == std::string::npos || slash == 0 || slash + 1 == value.size()) {
          return "expected BASE/NAME (the ChangeOrder's Space, a slash, its name), got '" + value +
                 "'";
        }
        return "";
      },
      "");
}

// -o mutations: the values each Unit changed (or would change), by Space and Unit.
std::string MutationsText(const cub::v1::PromoteResponse& resp) {
  std::string out;
  for (const auto& s : resp.spaces()) {
    absl::StrAppend(&out, "Space ", s.space().empty() ? s.space_id() : s.space(), ": ", s.status(),
                    s.error().empty() ? "" : absl::StrCat(": ", WithFlagNames(s.error())), "\n");
    for (const auto& u : s.units()) {
      absl::StrAppend(&out, "  Unit ", u.unit().empty() ? u.unit_id() : u.unit(), ": ", u.action(),
                      u.error().empty() ? "" : absl::StrCat(": ", WithFlagNames(u.error())), "\n");
      if (u.mutations_size() == 0) continue;
      Table t;  // No header: Render's first line is empty and dropped below.
      for (const auto& m : u.mutations()) {
        t.rows.push_back({m.kind(), m.path(),
                          absl::StrCat(m.old_value().empty() ? "(none)" : m.old_value(), " -> ",
                                       m.new_value().empty() ? "(none)" : m.new_value())});
      }
      const std::string rendered = t.Render().substr(1);
      size_t start = 0;
      while (start < rendered.size()) {
        const size_t end = rendered.find('\n', start);
        absl::StrAppend(&out, "    ", rendered.substr(start, end - start), "\n");
        start = end + 1;
      }
    }
  }
  return out;
}

// One row per (Space, Unit); a Space with no Units, or with an error of its own, gets a row
// of its own with its status in ACTION.
std::string PromoteTable(const cub::v1::PromoteResponse& resp) {
  Table t{{"SPACE", "UNIT", "ACTION", "START", "END", "REVISIONS", "ERROR"}, {}};
  auto num = [](int n) { return n == 0 ? std::string() : absl::StrCat(n); };
  for (const auto& s : resp.spaces()) {
    const std::string space = s.space().empty() ? s.space_id() : s.space();
    if (s.units_size() == 0 || !s.error().empty()) {
      t.rows.push_back({space, "", s.status(), "", "", "", WithFlagNames(s.error())});
    }
    for (const auto& u : s.units()) {
      t.rows.push_back({space, u.unit().empty() ? u.unit_id() : u.unit(), u.action(),
                        num(u.start_revision_num()), num(u.end_revision_num()),
                        absl::StrCat(u.revisions_written()), WithFlagNames(u.error())});
    }
  }
  return t.rows.empty() ? "" : t.Render();
}

// The closing line; `stage` is the Stage promoted into, if any.
std::string PromoteSummary(const cub::v1::PromoteResponse& resp, const std::string& change_order,
                           const std::string& stage, bool dry_run) {
  const std::string target = stage.empty() ? "" : absl::StrCat(" into stage ", stage);
  std::string line;
  if (dry_run) {
    absl::StrAppend(&line, "Dry run of change order ", change_order, target, ": ",
                    Count(resp.landed(), "space"), " would land, ", resp.already(),
                    " already have it, ", resp.failed(), " would fail (",
                    Count(resp.revisions_written(), "revision"), " would be written)");
  } else {
    absl::StrAppend(&line, "Promoted change order ", change_order, target, ": ",
                    Count(resp.landed(), "space"), " landed, ", resp.already(), " already had it, ",
                    resp.failed(), " failed (", Count(resp.revisions_written(), "revision"),
                    " written)");
  }
  if (resp.overridden_gates_size() > 0) {
    absl::StrAppend(&line, "; forced past ", absl::StrJoin(resp.overridden_gates(), ", "));
  }
  return line + "\n";
}

// The flags of `variant promote`.
struct PromoteOpts {
  std::vector<std::string> spaces;
  std::string change_order, target_stage, where_space, prior_revisions, force_reason;
  bool dry_run = false, force = false, queue = false, wait = false;
};

// What a stage-wide promote is doing, for the progress line.
std::string PromoteActivity(const PromoteOpts& o) {
  const std::string verb = o.dry_run ? "Planning the promotion of " : "Promoting ";
  if (!o.where_space.empty()) {
    return absl::StrCat(verb, o.change_order, " into the Spaces where ", o.where_space);
  }
  if (!o.target_stage.empty()) {
    return absl::StrCat(verb, o.change_order, " into stage ", o.target_stage);
  }
  return absl::StrCat(verb, o.change_order, " into its next stage");
}

// With Queue, when the gates did not hold: what was queued and what it waits for.
std::string QueuedText(const cub::v1::PromoteResponse& resp) {
  const cub::v1::QueuedPromotion& q = resp.queued();
  std::string text = absl::StrCat("Queued promotion of ", q.change_order(), " into stage ",
                                  q.stage(), "; waiting for:\n");
  for (const auto& w : q.waiting_for()) absl::StrAppend(&text, "  ", WithFlagNames(w), "\n");
  return text;
}

// Prints Promote's response; exit code 1 when a Space failed (each named on stderr).
int PrintPromote(Env& env, const cub::v1::PromoteResponse& resp, const PromoteOpts& opts) {
  const bool mutations = env.globals.output == "mutations";
  const std::string name = resp.change_order().empty() ? opts.change_order : resp.change_order();
  const std::string stage = resp.target_stage().empty() ? opts.target_stage : resp.target_stage();
  const bool dry_run = resp.dry_run() || opts.dry_run;
  std::vector<std::string> failed;
  for (const auto& s : resp.spaces()) {
    if (domain::ParsePromotionStatus(s.status()) != domain::PromotionStatus::kFailed) continue;
    // Each failure with its reasons, so a script reading stderr learns what to repair.
    std::string line =
        absl::StrCat(s.space().empty() ? s.space_id() : s.space(), ": ", WithFlagNames(s.error()));
    for (const auto& u : s.units()) {
      if (domain::ParsePromotionAction(u.action()) == domain::PromotionAction::kFailed) {
        absl::StrAppend(&line, "; unit '", u.unit(), "': ", WithFlagNames(u.error()));
      }
    }
    failed.push_back(std::move(line));
  }
  const Printer printer = env.printer();
  int rc;
  if (!printer.table()) {
    rc = printer.Document(resp);
  } else if (resp.has_queued()) {
    rc = printer.Text(QueuedText(resp));
  } else {
    rc = printer.Text(absl::StrCat(mutations ? MutationsText(resp) : PromoteTable(resp),
                                   PromoteSummary(resp, name, stage, dry_run)));
  }
  if (printer.table() && !resp.replaced().empty()) {
    printer.Text(absl::StrCat("Replaced the queued promotion of ", resp.replaced(), "\n"));
  }
  if (failed.empty() && resp.failed() == 0) return rc;
  const int count = std::max<int>(resp.failed(), failed.size());
  PrintFailure(absl::StrCat(
      "change order ", name, dry_run ? " would fail in " : " failed in ", Count(count, "space"),
      failed.empty() ? "" : absl::StrCat(": ", absl::StrJoin(failed, " | "))));
  return kExitFailed;
}

void AddPromote(CLI::App* group, Env& env) {
  auto o = std::make_shared<PromoteOpts>();
  CLI::App* cmd = group->add_subcommand(
      "promote",
      "Promote a ChangeOrder into the Spaces of its next stage (or of --target-stage), or into "
      "the Spaces named or selected");
  CLI::Option* spaces = cmd->add_option(
      "SPACE", o->spaces, "Promote into these Spaces only (slugs or IDs) rather than a stage");
  cmd->add_option("--change-order", o->change_order,
                  "The ChangeOrder to promote, BASE/NAME. Required: promotion without a "
                  "ChangeOrder is not supported yet")
      ->type_name("BASE/NAME")
      ->required()
      ->check(BaseSlashName());
  cmd->add_option("--target-stage", o->target_stage,
                  "Stage to promote into (default: the first the change has not reached)")
      ->type_name("STAGE");
  CLI::Option* where_space =
      cmd->add_option("--where-space", o->where_space,
                      "Where expression selecting the Spaces to promote into, rather than a stage")
          ->type_name("EXPR")
          ->excludes(spaces);
  cmd->add_option("--prior-revisions", o->prior_revisions,
                  "What to do with revisions a target wrote before the change's start "
                  "(default: the ChangeOrder's)")
      ->type_name("MODE")
      ->check(
          CLI::IsMember(domain::AllNames(domain::kAllPriorRevisions, domain::PriorRevisionsName)));
  cmd->add_flag("--dry-run", o->dry_run,
                "Report what would be upgraded and added, and what would fail; write nothing "
                "(-o mutations: the values that would change)");
  CLI::Option* force = cmd->add_flag("--force", o->force,
                                     "Promote past gates that do not hold (needs --force-reason)");
  cmd->add_option("--force-reason", o->force_reason,
                  "Why the gates are overridden; recorded on the ChangeOrder")
      ->type_name("TEXT");
  cmd->add_flag("--queue", o->queue,
                "If the target stage's gates do not hold, queue the promotion instead of failing;"
                " cubd carries it out as you once they hold (see cub promotion list)")
      ->excludes(force)
      ->excludes(spaces)
      ->excludes(where_space);
  cmd->add_flag("--wait", o->wait,
                "Then wait until cubd's promotion engine has acted on what this made possible "
                "(an Automatic stage, a queued promotion) and show what it did")
      ->excludes("--dry-run");
  OnRun(cmd, env, [&env, o] {
    if (o->force && o->force_reason.empty()) {
      return UsageError(
          "--force requires --force-reason: say why the gates are overridden (it is recorded "
          "on the ChangeOrder)");
    }
    if (!o->force && !o->force_reason.empty()) {
      return UsageError("--force-reason is only used with --force");
    }
    const bool mutations = env.globals.output == "mutations";
    cub::v1::PromoteRequest req;
    req.set_change_order(o->change_order);
    for (const auto& s : o->spaces) req.add_spaces(s);
    req.set_where_space(o->where_space);
    req.set_target_stage(o->target_stage);
    req.set_prior_revisions(o->prior_revisions);
    req.set_dry_run(o->dry_run);
    req.set_mutations(mutations);
    req.set_force(o->force);
    req.set_force_reason(o->force_reason);
    req.set_queue(o->queue);
    int64_t last_event = 0;
    if (o->wait && !LatestEventId(env, o->change_order, &last_event)) return kExitFailed;
    cub::v1::PromoteResponse resp;
    {
      // One RPC however many Spaces: the live line says what it does and for how long.
      TerminalProgress progress(o->spaces.empty() && ProgressWanted(env), PromoteActivity(*o));
      if (!CallCubd(env, &ChangeOrderService::Stub::Promote, req, &resp)) return kExitFailed;
    }
    int rc = PrintPromote(env, resp, *o);
    if (rc != kExitOk || !o->wait) return rc;
    return WaitForEngine(env, resp.change_order(), last_event);
  });
}

}  // namespace

void AddDemote(CLI::App* group, Env& env) {
  struct Opts {
    std::vector<std::string> spaces;
    std::string change_order, change_desc;
    bool dry_run = false;
  };
  auto o = std::make_shared<Opts>();
  CLI::App* cmd = group->add_subcommand(
      "demote", "Take an aborted ChangeOrder back out of Spaces: restore each Unit it marked");
  cmd->add_option("SPACE", o->spaces, "Spaces to demote")->required();
  cmd->add_option("--change-order", o->change_order, "The aborted ChangeOrder, BASE/NAME")
      ->required();
  cmd->add_option("--change-desc", o->change_desc, "Description of the restoring revisions");
  cmd->add_flag("--dry-run", o->dry_run,
                "Show what would be restored and the later revisions it would drop");
  OnRun(cmd, env, [&env, o] {
    cub::v1::DemoteRequest req;
    for (const auto& s : o->spaces) req.add_spaces(s);
    req.set_change_order(o->change_order);
    req.set_change_desc(o->change_desc);
    req.set_dry_run(o->dry_run);
    cub::v1::DemoteResponse resp;
    if (!CallCubd(env, &cub::v1::ChangeOrderService::Stub::Demote, req, &resp)) return kExitFailed;
    const Printer printer = env.printer();
    if (!printer.table()) return printer.Document(resp);
    Table t{{"SPACE", "UNIT", "ACTION", "START", "REVISION", "DROPS"}, {}};
    for (const auto& s : resp.spaces()) {
      for (const auto& u : s.units()) {
        t.rows.push_back({s.space(), u.unit(), u.action(), std::to_string(u.start_revision_num()),
                          std::to_string(u.revision_num()), absl::StrJoin(u.dropped(), "; ")});
      }
    }
    std::string summary;
    for (const auto& s : resp.spaces()) {
      absl::StrAppend(&summary, s.space(), ": ", s.status(), "\n");
    }
    return printer.Text(absl::StrCat(t.Render(), summary));
  });
}

void AddVariantCommands(CLI::App& app, Env& env) {
  CLI::App* group = app.add_subcommand(
      "variant", "Create variants (Spaces cloned from a base) and promote changes into them");
  AddVariantCreateCommand(group, env);
  AddPromote(group, env);
  AddDemote(group, env);
}

}  // namespace cub::cli
