// `cub space ...`: create, read, list, update and delete Spaces, and manage who holds which
// role in one (grant, revoke, permissions).
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "cli/client.h"
#include "cli/commands.h"
#include "cli/output.h"
#include "cli/paged_list.h"
#include "cub/v1/space.grpc.pb.h"

namespace cub::cli {
namespace {

using cub::v1::SpaceService;

std::string Label(const cub::v1::Space& s, const std::string& key) {
  auto it = s.labels().find(key);
  return it == s.labels().end() ? "" : it->second;
}

void AddCreate(CLI::App* group, Env& env) {
  struct Opts {
    std::string name, component, display_name;
    std::vector<std::string> labels, annotations;
    bool allow_exists = false;
  };
  auto o = std::make_shared<Opts>();
  CLI::App* cmd = group->add_subcommand("create", "Create a Space");
  cmd->add_option("NAME", o->name, "Slug of the new Space")->required();
  AddKeyValueFlag(cmd, "--label", &o->labels, "Set a label (repeatable)");
  AddKeyValueFlag(cmd, "--annotation", &o->annotations, "Set an annotation (repeatable)");
  cmd->add_option("--component", o->component, "Component the Space belongs to (created if new)");
  cmd->add_option("--display-name", o->display_name, "Human-readable name");
  cmd->add_flag("--allow-exists", o->allow_exists,
                "Succeed with the existing Space if the name is taken");
  OnRun(cmd, env, [&env, o] {
    cub::v1::CreateSpaceRequest req;
    req.set_slug(o->name);
    req.set_display_name(o->display_name);
    req.set_component(o->component);
    req.set_allow_exists(o->allow_exists);
    PutKeyValues(o->labels, req.mutable_labels());
    PutKeyValues(o->annotations, req.mutable_annotations());
    cub::v1::Space space;
    if (!CallCubd(env, &SpaceService::Stub::CreateSpace, req, &space)) return kExitFailed;
    return env.printer().Confirm(
        space, absl::StrCat("Space ", space.slug(), " created", IdSuffix(space.space_id())));
  });
}

// The table of a variant Space names its upstream by slug rather than by the bare ID the API
// carries (JSON and YAML keep the ID, as the API has it). One more call, for a `get` only; a
// viewer who may not read the upstream Space sees its ID, as before.
int PrintWithUpstreamSlug(Env& env, const cub::v1::Space& space) {
  Table t = FieldTable(space);
  if (std::unique_ptr<Client> client = Connect(env)) {
    cub::v1::GetSpaceRequest req;
    req.set_space(space.upstream_space_id());
    cub::v1::Space upstream;
    SpaceService::Stub stub(client->channel());
    std::unique_ptr<grpc::ClientContext> context = client->NewContext();
    if (stub.GetSpace(context.get(), req, &upstream).ok()) {
      for (std::vector<std::string>& row : t.rows) {
        if (!row.empty() && row[0] == "UpstreamSpaceID") row = {"UpstreamSpace", upstream.slug()};
      }
    }
  }
  const Printer& printer = env.printer();
  return printer.Text(printer.options().no_header ? t.RenderRows() : t.Render());
}

void AddGet(CLI::App* group, Env& env) {
  auto name = std::make_shared<std::string>();
  CLI::App* cmd = group->add_subcommand("get", "Show a Space");
  cmd->add_option("NAME", *name, "Space slug or ID")->required();
  OnRun(cmd, env, [&env, name] {
    cub::v1::GetSpaceRequest req;
    req.set_space(*name);
    cub::v1::Space space;
    if (!CallCubd(env, &SpaceService::Stub::GetSpace, req, &space)) return kExitFailed;
    const Printer& printer = env.printer();
    if (!printer.table() || printer.options().names || space.upstream_space_id().empty()) {
      return printer.Fields(space);
    }
    return PrintWithUpstreamSlug(env, space);
  });
}

void AddList(CLI::App* group, Env& env) {
  struct Opts {
    std::string where, filter;
    PageFlags page;
  };
  auto o = std::make_shared<Opts>();
  CLI::App* cmd = group->add_subcommand("list", "List the Spaces you can see");
  cmd->add_option("--where", o->where,
                  "Where expression over Spaces, e.g. \"Labels.Stage = 'Production'\"");
  cmd->add_option("--filter", o->filter, "Saved Filter to apply, SPACE/NAME")
      ->type_name("SPACE/FILTER");
  AddPageFlags(cmd, &o->page, "Spaces");
  OnRun(cmd, env, [&env, o] {
    cub::v1::ListSpacesRequest req;
    req.mutable_options()->set_where(o->where);
    req.mutable_options()->set_filter(o->filter);
    return PrintPaged(env, o->page, req, &SpaceService::Stub::ListSpaces,
                      &cub::v1::ListSpacesResponse::spaces,
                      {"NAME", "COMPONENT", "STAGE", "ENVIRONMENT", "REGION", "ID"},
                      [](const cub::v1::Space& s) -> std::vector<std::string> {
                        return {s.slug(),           s.component_slug(),
                                Label(s, "Stage"),  Label(s, "Environment"),
                                Label(s, "Region"), s.space_id()};
                      });
  });
}

void AddUpdate(CLI::App* group, Env& env) {
  struct Opts {
    std::string name, component, display_name, release_target;
    std::vector<std::string> labels, annotations, validators, remove_validators;
  };
  auto o = std::make_shared<Opts>();
  CLI::App* cmd = group->add_subcommand(
      "update", "Change a Space's labels, annotations, component, validators or release target");
  cmd->add_option("NAME", o->name, "Space slug or ID")->required();
  AddKeyValueFlag(cmd, "--label", &o->labels, "Set a label; KEY= removes it (repeatable)");
  AddKeyValueFlag(cmd, "--annotation", &o->annotations,
                  "Set an annotation; KEY= removes it (repeatable)");
  cmd->add_option("--component", o->component, "Move the Space to this component");
  cmd->add_option("--display-name", o->display_name, "New human-readable name");
  cmd->add_option("--validator", o->validators,
                  "Vet every new revision with this saved vet Invocation (SPACE/NAME; repeatable)")
      ->allow_extra_args(false);
  cmd->add_option("--remove-validator", o->remove_validators, "Stop using this validator")
      ->allow_extra_args(false);
  cmd->add_option("--release-target", o->release_target,
                  "Publish this Space's releases to this Target (SPACE/TARGET; - removes it)");
  OnRun(cmd, env, [&env, o] {
    if (o->labels.empty() && o->annotations.empty() && o->component.empty() &&
        o->display_name.empty() && o->validators.empty() && o->remove_validators.empty() &&
        o->release_target.empty()) {
      return UsageError(
          "nothing to update: pass --label, --annotation, --component, --display-name, "
          "--validator, --remove-validator or --release-target");
    }
    cub::v1::UpdateSpaceRequest req;
    req.set_space(o->name);
    req.set_component(o->component);
    req.set_display_name(o->display_name);
    req.set_release_target(o->release_target);
    for (const auto& v : o->validators) req.add_add_validating_invocations(v);
    for (const auto& v : o->remove_validators) req.add_remove_validating_invocations(v);
    PutKeyValues(o->labels, req.mutable_labels());
    PutKeyValues(o->annotations, req.mutable_annotations());
    cub::v1::Space space;
    if (!CallCubd(env, &SpaceService::Stub::UpdateSpace, req, &space)) return kExitFailed;
    return env.printer().Confirm(
        space, absl::StrCat("Space ", space.slug(), " updated", IdSuffix(space.space_id())));
  });
}

void AddDelete(CLI::App* group, Env& env) {
  auto name = std::make_shared<std::string>();
  CLI::App* cmd = group->add_subcommand("delete", "Delete a Space");
  cmd->add_option("NAME", *name, "Space slug or ID")->required();
  OnRun(cmd, env, [&env, name] {
    cub::v1::DeleteSpaceRequest req;
    req.set_space(*name);
    cub::v1::DeleteSpaceResponse resp;
    if (!CallCubd(env, &SpaceService::Stub::DeleteSpace, req, &resp)) return kExitFailed;
    return env.printer().Confirm(resp, absl::StrCat("Space ", *name, " deleted"));
  });
}

// grant and revoke take the same arguments and request.
void AddGrantOrRevoke(CLI::App* group, Env& env, bool grant) {
  struct Opts {
    std::string space, role, user, group;
  };
  auto o = std::make_shared<Opts>();
  CLI::App* cmd = group->add_subcommand(
      grant ? "grant" : "revoke",
      grant ? "Give a user or group a role in a Space" : "Take a role in a Space away");
  cmd->add_option("NAME", o->space, "Space slug or ID")->required();
  cmd->add_option("ROLE", o->role, "viewer, editor, approver, admin, reporter or scanner")
      ->required();
  CLI::Option* user = cmd->add_option("--user", o->user, "The user (username)");
  CLI::Option* grp = cmd->add_option("--group", o->group, "The group");
  user->excludes(grp);
  OnRun(cmd, env, [&env, o, grant] {
    if (o->user.empty() == o->group.empty()) {
      return UsageError("exactly one of --user or --group is required");
    }
    cub::v1::GrantRequest req;
    req.set_space(o->space);
    req.set_role(o->role);
    req.set_username(o->user);
    req.set_group(o->group);
    cub::v1::Permission perm;
    auto method = grant ? &SpaceService::Stub::Grant : &SpaceService::Stub::Revoke;
    if (!CallCubd(env, method, req, &perm)) return kExitFailed;
    const std::string who =
        o->user.empty() ? absl::StrCat("group ", o->group) : absl::StrCat("user ", o->user);
    return env.printer().Confirm(
        perm, grant ? absl::StrCat("Granted ", o->role, " on ", o->space, " to ", who)
                    : absl::StrCat("Revoked ", o->role, " on ", o->space, " from ", who));
  });
}

void AddPermissions(CLI::App* group, Env& env) {
  auto name = std::make_shared<std::string>();
  CLI::App* cmd = group->add_subcommand("permissions", "List who holds which role in a Space");
  cmd->add_option("NAME", *name, "Space slug or ID")->required();
  OnRun(cmd, env, [&env, name] {
    cub::v1::ListPermissionsRequest req;
    req.set_space(*name);
    cub::v1::ListPermissionsResponse resp;
    if (!CallCubd(env, &SpaceService::Stub::ListPermissions, req, &resp)) return kExitFailed;
    return env.printer().List<cub::v1::Permission>(
        resp.permissions(), {"ROLE", "USER", "GROUP"},
        [](const cub::v1::Permission& p) -> std::vector<std::string> {
          return {p.role(), p.username(), p.group()};
        });
  });
}

}  // namespace

void AddSpaceCommands(CLI::App& app, Env& env) {
  CLI::App* group = app.add_subcommand("space", "Manage Spaces and their permissions");
  AddCreate(group, env);
  AddGet(group, env);
  AddList(group, env);
  AddUpdate(group, env);
  AddDelete(group, env);
  AddGrantOrRevoke(group, env, true);
  AddGrantOrRevoke(group, env, false);
  AddPermissions(group, env);
}

}  // namespace cub::cli
