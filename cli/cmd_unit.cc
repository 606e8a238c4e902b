// `cub unit ...`: create, read, list, update (new data, restore, labels) and delete Units, print
// a Unit's head data, and put a Tag on one of its revisions.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "cli/cmd_context.h"
#include "cli/commands.h"
#include "cli/space_flag.h"
#include "cli/unit_input.h"
#include "cli/paged_list.h"
#include "cub/v1/unit.grpc.pb.h"
#include "lib/domain/vocabulary.h"

namespace cub::cli {
namespace {

using cub::v1::UnitService;

constexpr char kSpaceHelp[] = "Space slug or ID";

void AddCreate(CLI::App* group, Env& env) {
  struct Opts {
    std::string space, unit, toolchain = "Kubernetes/YAML", change_desc;
    DataFlags data;
    std::vector<std::string> labels, annotations;
    bool allow_exists = false;
  };
  auto o = std::make_shared<Opts>();
  CLI::App* cmd = group->add_subcommand(
      "create", "Create a Unit, with data from FILE (--filename) or stdin (--from-stdin)");
  AddSpaceOption(cmd, &o->space, kSpaceHelp);
  cmd->add_option("UNIT", o->unit, "Slug of the new Unit")->required();
  AddDataFlags(cmd, &o->data, "Initial data; - reads stdin; omitted: an empty Unit");
  cmd->add_option("--toolchain", o->toolchain, "Toolchain type of the data")->capture_default_str();
  AddKeyValueFlag(cmd, "--label", &o->labels, "Set a label (repeatable)");
  AddKeyValueFlag(cmd, "--annotation", &o->annotations, "Set an annotation (repeatable)");
  cmd->add_option("--change-desc", o->change_desc, "Description of the first revision");
  cmd->add_flag("--allow-exists", o->allow_exists,
                "Succeed with the existing Unit if the name is taken");
  OnRun(cmd, env, [&env, o] {
    if (auto error = DataFlagsError(o->data)) return UsageError(*error);
    cub::v1::CreateUnitRequest req;
    absl::StatusOr<std::optional<std::string>> data = ReadDataFlags(o->data);
    if (!data.ok()) {
      PrintFailure(data.status().message());
      return kExitFailed;
    }
    if (data->has_value()) req.set_data(**std::move(data));
    req.set_space(o->space);
    req.set_slug(o->unit);
    req.set_toolchain_type(o->toolchain);
    req.set_change_desc(o->change_desc);
    req.set_allow_exists(o->allow_exists);
    PutKeyValues(o->labels, req.mutable_labels());
    PutKeyValues(o->annotations, req.mutable_annotations());
    cub::v1::UnitWithData resp;
    if (!CallCubd(env, &UnitService::Stub::CreateUnit, req, &resp)) return kExitFailed;
    return env.printer().Confirm(resp, absl::StrCat("Unit ", resp.unit().slug(), " created",
                                                    IdSuffix(resp.unit().unit_id())));
  });
}

// get and data share the request; data prints the head's data as stored.
void AddGetOrData(CLI::App* group, Env& env, bool data_only) {
  struct Opts {
    std::string space, unit;
  };
  auto o = std::make_shared<Opts>();
  CLI::App* cmd = data_only
                      ? group->add_subcommand("data", "Print a Unit's head data as stored")
                      : group->add_subcommand("get", "Show a Unit (-o json/yaml include its data)");
  AddSpaceOption(cmd, &o->space, kSpaceHelp);
  cmd->add_option("UNIT", o->unit, "Unit slug or ID")->required();
  OnRun(cmd, env, [&env, o, data_only] {
    cub::v1::GetUnitRequest req;
    req.set_space(o->space);
    req.set_unit(o->unit);
    cub::v1::UnitWithData resp;
    if (!CallCubd(env, &UnitService::Stub::GetUnit, req, &resp)) return kExitFailed;
    if (data_only) return env.printer().Text(resp.data());
    return env.printer().Fields(resp, resp.unit());
  });
}

void AddList(CLI::App* group, Env& env) {
  struct Opts {
    std::string space, where, where_space, filter;
    PageFlags page;
  };
  auto o = std::make_shared<Opts>();
  CLI::App* cmd = group->add_subcommand("list", "List the Units of a Space, or of all (\"*\")");
  AddSpaceOption(cmd, &o->space, "Space slug or ID, or \"*\" for every Space you can see");
  cmd->add_option("--where", o->where, "Where expression over Units");
  cmd->add_option("--where-space", o->where_space,
                  "Where expression selecting the Spaces (with --space \"*\")");
  cmd->add_option("--filter", o->filter, "Saved Filter to apply, SPACE/NAME")
      ->type_name("SPACE/FILTER");
  AddPageFlags(cmd, &o->page, "Units");
  OnRun(cmd, env, [&env, o] {
    cub::v1::ListUnitsRequest req;
    req.set_space(o->space);
    req.set_where_space(o->where_space);
    req.mutable_options()->set_where(o->where);
    req.mutable_options()->set_filter(o->filter);
    return PrintPaged(env, o->page, req, &UnitService::Stub::ListUnits,
                      &cub::v1::ListUnitsResponse::units,
                      {"NAME", "SPACE", "HEAD", "RELEASED", "TOOLCHAIN", "ID"},
                      [](const cub::v1::Unit& u) -> std::vector<std::string> {
                        return {u.slug(),
                                u.space_slug(),
                                absl::StrCat(u.head_revision_num()),
                                absl::StrCat(u.last_released_revision_num()),
                                u.toolchain_type(),
                                u.unit_id()};
                      });
  });
}

// `cub unit update`: write, restore, revert, upgrade, resolve, relabel or protect.
struct UpdateOpts {
  std::string space, unit, change_desc, restore, change_set, merge_source, change_order,
      prior_revisions, resolve, revert;
  std::vector<std::string> labels, annotations, protect, unprotect;
  DataFlags data;
  bool upgrade = false, squash = false, patch = false;
  int merge_base = 0, merge_end = 0;

  // --merge-source implies --upgrade.
  bool upgrading() const { return upgrade || !merge_source.empty(); }
};

// `cub unit update`'s flags, into `o`.
CLI::App* AddUpdateFlags(CLI::App* group, UpdateOpts* o) {
  CLI::App* cmd = group->add_subcommand(
      "update",
      "Write a new revision from FILE (--filename) or stdin (--from-stdin), restore an earlier "
      "one, or relabel");
  AddSpaceOption(cmd, &o->space, kSpaceHelp);
  cmd->add_option("UNIT", o->unit, "Unit slug or ID")->required();
  AddDataFlags(cmd, &o->data, "New data; - reads stdin");
  cmd->add_option("--change-desc", o->change_desc, "Description of the new revision");
  cmd->add_option("--restore", o->restore,
                  "Restore an earlier revision: N, -N (N back), Tag:T, Before:Tag:T, "
                  "ChangeSet:C, Before:ChangeSet:C, LastReleasedRevisionNum")
      ->type_name("REVISION");
  cmd->add_option("--revert", o->revert,
                  "Take out what revisions N..M (or N) changed, keeping later work")
      ->type_name("N..M")
      ->excludes("--restore");
  cmd->add_option("--changeset", o->change_set,
                  "Write in this open ChangeSet (SPACE/NAME), opening it on the Unit; - takes "
                  "the Unit out of its ChangeSet")
      ->type_name("CHANGESET");
  cmd->add_flag("--upgrade", o->upgrade,
                "Merge what the upstream Unit changed since the last upgrade into this one");
  cmd->add_flag("--squash", o->squash,
                "With --upgrade: land the whole range as one revision, not one per upstream "
                "revision");
  cmd->add_option("--merge-source", o->merge_source,
                  "Merge from this Unit (UNIT or SPACE/UNIT) instead of the upstream one");
  cmd->add_option("--merge-base", o->merge_base,
                  "First upstream revision of the range (exclusive)");
  cmd->add_option("--merge-end", o->merge_end,
                  "Last upstream revision of the range (inclusive); with --resolve, the upstream "
                  "revision to resolve against instead of the head");
  cmd->add_flag("--patch", o->patch, "Patch the head rather than replace it (with --resolve)");
  cmd->add_option("--resolve", o->resolve,
                  "With --patch: resolve the TransformPaths, Insert and Upsert Links selected, "
                  "\"Link:*\" for all or \"Link:<where over Links>\"")
      ->type_name("Link:WHERE");
  cmd->add_option("--change-order", o->change_order,
                  "With --upgrade: move this ChangeOrder (BASE/NAME) into the Unit, ungated; its "
                  "range is the ChangeOrder's")
      ->type_name("BASE/NAME");
  cmd->add_option("--prior-revisions", o->prior_revisions,
                  "With --change-order: what to do with revisions the Unit wrote before the "
                  "change's start (default: the ChangeOrder's)")
      ->type_name("MODE")
      ->check(
          CLI::IsMember(domain::AllNames(domain::kAllPriorRevisions, domain::PriorRevisionsName)));
  cmd->add_option("--protect", o->protect, "Hold this path against merges (repeatable)")
      ->type_name("PATH")
      ->allow_extra_args(false);
  cmd->add_option("--unprotect", o->unprotect, "Stop holding this path (repeatable)")
      ->type_name("PATH")
      ->allow_extra_args(false);
  AddKeyValueFlag(cmd, "--label", &o->labels, "Set a label; KEY= removes it (repeatable)");
  AddKeyValueFlag(cmd, "--annotation", &o->annotations,
                  "Set an annotation; KEY= removes it (repeatable)");
  return cmd;
}

// A usage error for flags that do not go together, or none.
std::optional<std::string> UpdateFlagsError(const UpdateOpts& o) {
  if (auto error = DataFlagsError(o.data)) return error;
  const bool upgrade = o.upgrading();
  if (o.data.given() && (!o.restore.empty() || !o.revert.empty())) {
    return std::string(
        "--restore and --revert take no new data: leave out FILE, --filename and --from-stdin");
  }
  if (!o.change_order.empty() && !upgrade) {
    return std::string("--change-order needs --upgrade: the change is moved in by upgrading");
  }
  if (!o.prior_revisions.empty() && o.change_order.empty()) {
    return std::string("--prior-revisions needs --change-order");
  }
  const bool resolve = !o.resolve.empty();
  if (o.patch != resolve) {
    return std::string("--patch and --resolve go together: --patch --resolve \"Link:*\"");
  }
  if (!o.data.given() && o.restore.empty() && o.revert.empty() && o.labels.empty() &&
      o.annotations.empty() && o.change_set != "-" && !upgrade && !resolve && o.protect.empty() &&
      o.unprotect.empty()) {
    return std::string(
        "nothing to update: pass FILE (--filename, --from-stdin), --restore, --upgrade, --patch "
        "--resolve, --protect, "
        "--label, --annotation or --changeset -");
  }
  if (upgrade && (o.data.given() || !o.restore.empty())) {
    return std::string("--upgrade cannot be combined with FILE or --restore");
  }
  if (resolve && (upgrade || o.data.given() || !o.restore.empty())) {
    return std::string("--resolve cannot be combined with FILE, --restore or --upgrade");
  }
  return std::nullopt;
}

// The request for the flags; fails only when FILE cannot be read.
absl::StatusOr<cub::v1::UpdateUnitRequest> UpdateRequest(const UpdateOpts& o) {
  const bool upgrade = o.upgrading();
  cub::v1::UpdateUnitRequest req;
  absl::StatusOr<std::optional<std::string>> data = ReadDataFlags(o.data);
  if (!data.ok()) return data.status();
  if (data->has_value()) req.set_data(**std::move(data));
  req.set_space(o.space);
  req.set_unit(o.unit);
  req.set_change_desc(o.change_desc);
  req.set_restore(o.restore);
  req.set_revert(o.revert);
  req.set_change_set(o.change_set);
  req.set_upgrade(upgrade);
  req.set_squash(o.squash);
  req.set_merge_source(o.merge_source);
  req.set_merge_base(o.merge_base);
  req.set_merge_end(o.merge_end);
  req.set_change_order(o.change_order);
  req.set_prior_revisions(o.prior_revisions);
  req.set_patch(o.patch);
  req.set_resolve(o.resolve);
  for (const auto& path : o.protect) req.add_protect(path);
  for (const auto& path : o.unprotect) req.add_unprotect(path);
  PutKeyValues(o.labels, req.mutable_labels());
  PutKeyValues(o.annotations, req.mutable_annotations());
  return req;
}

// The line that confirms what the update did.
std::string UpdateLine(const UpdateOpts& o, const cub::v1::UpdateUnitResponse& resp) {
  const bool upgrade = o.upgrading();
  const bool resolve = !o.resolve.empty();
  const cub::v1::Unit& u = resp.unit();
  std::string line;
  int conflicts = 0;
  for (const auto& rev : resp.revisions()) conflicts += rev.conflicts_size();
  if (upgrade && resp.revisions_size() > 0) {
    const auto& first = resp.revisions(0);
    line = absl::StrCat("Unit ", u.slug(), " upgraded to revision ", u.head_revision_num(), " (",
                        resp.revisions_size(), " revision", resp.revisions_size() == 1 ? "" : "s",
                        " from upstream revision ", first.upstream_revision_num(), " to ",
                        resp.revision().upstream_revision_num(), ")");
    if (conflicts > 0) {
      absl::StrAppend(&line, "; ", conflicts, " change", conflicts == 1 ? "" : "s",
                      " withheld: see cub unit conflicts");
    }
  } else if (resolve && resp.unchanged()) {
    line = absl::StrCat("Unit ", u.slug(), " unchanged at revision ", u.head_revision_num(),
                        ": its links are resolved");
  } else if (resolve) {
    line = absl::StrCat("Unit ", u.slug(), " resolved to revision ", resp.revision().revision_num(),
                        " (", resp.revision().description(), ")");
  } else if (upgrade && resp.unchanged()) {
    line = absl::StrCat("Unit ", u.slug(), " is up to date with its upstream");
  } else if (resp.unchanged()) {
    line = absl::StrCat("Unit ", u.slug(), " unchanged at revision ", u.head_revision_num());
  } else if (resp.has_revision() && resp.revision().revision_num() > 0) {
    line = absl::StrCat("Unit ", u.slug(), " updated to revision ", resp.revision().revision_num());
  } else {
    line = absl::StrCat("Unit ", u.slug(), " updated");
  }
  return line;
}

void AddUpdate(CLI::App* group, Env& env) {
  auto o = std::make_shared<UpdateOpts>();
  CLI::App* cmd = AddUpdateFlags(group, o.get());
  OnRun(cmd, env, [&env, o] {
    if (auto error = UpdateFlagsError(*o)) return UsageError(*error);
    absl::StatusOr<cub::v1::UpdateUnitRequest> req = UpdateRequest(*o);
    if (!req.ok()) {
      PrintFailure(req.status().message());
      return kExitFailed;
    }
    cub::v1::UpdateUnitResponse resp;
    if (!CallCubd(env, &UnitService::Stub::UpdateUnit, *req, &resp)) return kExitFailed;
    return env.printer().Confirm(resp, UpdateLine(*o, resp));
  });
}

void AddDelete(CLI::App* group, Env& env) {
  struct Opts {
    std::string space, unit;
  };
  auto o = std::make_shared<Opts>();
  CLI::App* cmd = group->add_subcommand("delete", "Delete a Unit");
  AddSpaceOption(cmd, &o->space, kSpaceHelp);
  cmd->add_option("UNIT", o->unit, "Unit slug or ID")->required();
  OnRun(cmd, env, [&env, o] {
    cub::v1::DeleteUnitRequest req;
    req.set_space(o->space);
    req.set_unit(o->unit);
    cub::v1::DeleteUnitResponse resp;
    if (!CallCubd(env, &UnitService::Stub::DeleteUnit, req, &resp)) return kExitFailed;
    return env.printer().Confirm(resp, absl::StrCat("Unit ", o->unit, " deleted"));
  });
}

void AddTag(CLI::App* group, Env& env) {
  struct Opts {
    std::string space, unit, tag, revision;
    bool move = false;
  };
  auto o = std::make_shared<Opts>();
  CLI::App* cmd = group->add_subcommand("tag", "Mark a revision of a Unit with a Tag");
  AddSpaceOption(cmd, &o->space, kSpaceHelp);
  cmd->add_option("--unit", o->unit, "Unit slug or ID")->required();
  cmd->add_option("TAG", o->tag, "Tag slug, or SPACE/TAG for a Tag in another Space")->required();
  cmd->add_option("--revision", o->revision,
                  "N, -N, HeadRevisionNum (default), LastReleasedRevisionNum, Tag:T, Before:Tag:T, "
                  "ChangeSet:C or Before:ChangeSet:C")
      ->type_name("REVISION");
  cmd->add_flag("--move", o->move, "Move the Tag's existing mark on this Unit");
  OnRun(cmd, env, [&env, o] {
    cub::v1::TagUnitRequest req;
    req.set_space(o->space);
    req.set_unit(o->unit);
    req.set_tag(o->tag);
    req.set_revision(o->revision);
    req.set_move(o->move);
    cub::v1::TagMark mark;
    if (!CallCubd(env, &UnitService::Stub::TagUnit, req, &mark)) return kExitFailed;
    const std::string unit = mark.unit_slug().empty() ? o->unit : mark.unit_slug();
    const std::string tag = mark.tag_slug().empty() ? o->tag : mark.tag_slug();
    return env.printer().Confirm(mark, absl::StrCat("Tagged revision ", mark.revision_num(),
                                                    " of unit ", unit, " with ", tag));
  });
}

}  // namespace

void AddDiff(CLI::App* group, Env& env) {
  struct Opts {
    std::string space, unit, from, to;
  };
  auto o = std::make_shared<Opts>();
  CLI::App* cmd =
      group->add_subcommand("diff", "Show what changed between two revisions, path by path");
  AddSpaceOption(cmd, &o->space, kSpaceHelp);
  cmd->add_option("UNIT", o->unit, "Unit slug or ID")->required();
  cmd->add_option("--from", o->from, "Revision before (default: the one before --to)")
      ->type_name("REVISION");
  cmd->add_option("--to", o->to, "Revision after (default: the head)")->type_name("REVISION");
  OnRun(cmd, env, [&env, o] {
    cub::v1::DiffUnitRequest req;
    req.set_space(o->space);
    req.set_unit(o->unit);
    req.set_from(o->from);
    req.set_to(o->to);
    cub::v1::DiffUnitResponse resp;
    if (!CallCubd(env, &UnitService::Stub::DiffUnit, req, &resp)) return kExitFailed;
    return env.printer().List<cub::v1::Mutation>(
        resp.mutations(), {"KIND", "PATH", "OLD", "NEW"},
        [](const cub::v1::Mutation& m) -> std::vector<std::string> {
          return {m.kind(), m.path(), m.old_value(), m.new_value()};
        });
  });
}

void AddConflicts(CLI::App* group, Env& env) {
  struct Opts {
    std::string space, unit, revision;
  };
  auto o = std::make_shared<Opts>();
  CLI::App* cmd = group->add_subcommand(
      "conflicts", "Show the upstream changes a merge withheld from a revision (default: head)");
  AddSpaceOption(cmd, &o->space, kSpaceHelp);
  cmd->add_option("UNIT", o->unit, "Unit slug or ID")->required();
  cmd->add_option("--revision", o->revision, "Revision (default: the head)")->type_name("REVISION");
  OnRun(cmd, env, [&env, o] {
    cub::v1::GetRevisionRequest req;
    req.set_space(o->space);
    req.set_unit(o->unit);
    req.set_revision(o->revision);
    cub::v1::Revision rev;
    if (!CallCubd(env, &UnitService::Stub::GetRevision, req, &rev)) return kExitFailed;
    return env.printer().List<cub::v1::Conflict>(
        rev.conflicts(), {"PATH", "REASON", "UPSTREAM", "KEPT"},
        [](const cub::v1::Conflict& c) -> std::vector<std::string> {
          return {c.path(), c.reason(), c.upstream_value(), c.downstream_value()};
        });
  });
}

void AddUnitCommands(CLI::App& app, Env& env) {
  CLI::App* group = app.add_subcommand("unit", "Manage Units (config documents) in a Space");
  AddCreate(group, env);
  AddGetOrData(group, env, false);
  AddGetOrData(group, env, true);
  AddList(group, env);
  AddUpdate(group, env);
  AddUnitEditCommand(group, env);
  AddDelete(group, env);
  AddTag(group, env);
  AddDiff(group, env);
  AddConflicts(group, env);
}

}  // namespace cub::cli
