// `cub changeworkflow ...`: create, update, show, list and delete ChangeWorkflows, from a
// YAML/JSON file (the fields `get -o json` prints) or from flags.
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "cli/commands.h"
#include "cli/contexts.h"
#include "cli/space_flag.h"
#include "cub/v1/changeworkflow.grpc.pb.h"

namespace cub::cli {
namespace {

using cub::v1::ChangeWorkflowService;

// The flag form of a definition; each maps onto a WorkflowFlags field.
struct DefinitionFlags {
  std::string filename;
  std::vector<std::string> stages, stage_where_space, stage_prerequisites,
      stage_release_prerequisites, stage_mode, stage_auto_release, custom_prerequisites,
      custom_prerequisite_descriptions, attestation_prerequisites, attestation_prerequisite_types,
      attestation_prerequisite_counts, attestation_prerequisite_from_user_ids,
      attestation_prerequisite_from_groups, attestation_prerequisite_distinct_groups,
      attestation_prerequisite_max_ages, attestation_prerequisite_allow_authors,
      attestation_prerequisite_ignore_fail, attestation_prerequisite_descriptions,
      delete_prerequisites, stage_soak_time;
  std::string prerequisites, final_prerequisites;
};

void AddDefinitionFlags(CLI::App* cmd, DefinitionFlags* f) {
  auto one = [cmd](const std::string& name, std::vector<std::string>* out,
                   const std::string& help) {
    // One value per flag: values may hold spaces, commas and semicolons.
    cmd->add_option(name, *out, help)->allow_extra_args(false);
  };
  cmd->add_option("--filename", f->filename, "The whole definition as YAML or JSON; - is stdin");
  one("--stage", &f->stages,
      "A Stage, in order (repeatable); selects Labels.Stage = 'NAME' unless set otherwise");
  cmd->add_option("--prerequisites", f->prerequisites,
                  "Gates (a,b) of every Stage after the first, and of Final");
  cmd->add_option("--final-prerequisites", f->final_prerequisites, "Gates (a,b) of Final");
  one("--stage-where-space", &f->stage_where_space, "STAGE=EXPR: the Spaces of a Stage");
  one("--stage-prerequisites", &f->stage_prerequisites, "STAGE=a;b: a Stage's entry gates");
  one("--stage-release-prerequisites", &f->stage_release_prerequisites,
      "STAGE=a;b: attestation gates on publishing in a Stage");
  one("--stage-mode", &f->stage_mode,
      "STAGE=Manual|Automatic: who promotes into a Stage (Automatic: the server)");
  one("--stage-auto-release", &f->stage_auto_release,
      "STAGE=true|false: the server publishes in a Stage once its release gates hold");
  one("--stage-soak-time", &f->stage_soak_time,
      "STAGE=DURATION (e.g. 24h): how long the Stage's Soaked gate wants the Release Healthy");
  one("--custom-prerequisite", &f->custom_prerequisites, "NAME=cel:EXPR: a CEL gate");
  one("--custom-prerequisite-description", &f->custom_prerequisite_descriptions,
      "NAME=TEXT: what a CEL gate checks");
  one("--attestation-prerequisite", &f->attestation_prerequisites,
      "NAME: declare an attestation gate");
  one("--attestation-prerequisite-type", &f->attestation_prerequisite_types, "NAME=TYPE");
  one("--attestation-prerequisite-count", &f->attestation_prerequisite_counts, "NAME=N");
  one("--attestation-prerequisite-from-user-ids", &f->attestation_prerequisite_from_user_ids,
      "NAME=id,id");
  one("--attestation-prerequisite-from-groups", &f->attestation_prerequisite_from_groups,
      "NAME=g,g");
  one("--attestation-prerequisite-distinct-groups", &f->attestation_prerequisite_distinct_groups,
      "NAME=true|false");
  one("--attestation-prerequisite-max-age", &f->attestation_prerequisite_max_ages,
      "NAME=DURATION (e.g. 72h)");
  one("--attestation-prerequisite-allow-authors", &f->attestation_prerequisite_allow_authors,
      "NAME=true|false");
  one("--attestation-prerequisite-ignore-fail", &f->attestation_prerequisite_ignore_fail,
      "NAME=true|false");
  one("--attestation-prerequisite-description", &f->attestation_prerequisite_descriptions,
      "NAME=TEXT");
  one("--delete-prerequisite", &f->delete_prerequisites, "NAME: remove a declared gate");
}

// Fills `def` (file text) or `flags` from what was given; returns false and prints on error.
bool FillDefinition(const CLI::App* cmd, const DefinitionFlags& f, std::string* def,
                    cub::v1::WorkflowFlags* flags) {
  if (!f.filename.empty()) {
    absl::StatusOr<std::string> text = ReadInput(f.filename);
    if (!text.ok()) {
      PrintFailure(text.status().message());
      return false;
    }
    *def = *std::move(text);
  }
  auto put = [](const std::vector<std::string>& v,
                google::protobuf::RepeatedPtrField<std::string>* out) {
    for (const auto& s : v) out->Add(std::string(s));
  };
  put(f.stages, flags->mutable_stages());
  if (cmd->count("--prerequisites") > 0) flags->set_prerequisites(f.prerequisites);
  if (cmd->count("--final-prerequisites") > 0) {
    flags->set_final_prerequisites(f.final_prerequisites);
  }
  put(f.stage_where_space, flags->mutable_stage_where_space());
  put(f.stage_prerequisites, flags->mutable_stage_prerequisites());
  put(f.stage_release_prerequisites, flags->mutable_stage_release_prerequisites());
  put(f.stage_mode, flags->mutable_stage_mode());
  put(f.stage_auto_release, flags->mutable_stage_auto_release());
  put(f.stage_soak_time, flags->mutable_stage_soak_time());
  put(f.custom_prerequisites, flags->mutable_custom_prerequisites());
  put(f.custom_prerequisite_descriptions, flags->mutable_custom_prerequisite_descriptions());
  put(f.attestation_prerequisites, flags->mutable_attestation_prerequisites());
  put(f.attestation_prerequisite_types, flags->mutable_attestation_prerequisite_types());
  put(f.attestation_prerequisite_counts, flags->mutable_attestation_prerequisite_counts());
  put(f.attestation_prerequisite_from_user_ids,
      flags->mutable_attestation_prerequisite_from_user_ids());
  put(f.attestation_prerequisite_from_groups,
      flags->mutable_attestation_prerequisite_from_groups());
  put(f.attestation_prerequisite_distinct_groups,
      flags->mutable_attestation_prerequisite_distinct_groups());
  put(f.attestation_prerequisite_max_ages, flags->mutable_attestation_prerequisite_max_ages());
  put(f.attestation_prerequisite_allow_authors,
      flags->mutable_attestation_prerequisite_allow_authors());
  put(f.attestation_prerequisite_ignore_fail,
      flags->mutable_attestation_prerequisite_ignore_fail());
  put(f.attestation_prerequisite_descriptions,
      flags->mutable_attestation_prerequisite_descriptions());
  put(f.delete_prerequisites, flags->mutable_delete_prerequisites());
  return true;
}

int Show(const Env& env, const cub::v1::ChangeWorkflow& w) {
  const Printer printer = env.printer();
  if (!printer.table()) return printer.Document(w);
  Table stages{
      {"STAGE", "MODE", "WHERE-SPACE", "PREREQUISITES", "RELEASE-PREREQUISITES", "SOAK-TIME"}, {}};
  for (const auto& s : w.stages()) {
    const std::string mode = s.mode().empty() ? "Manual" : s.mode();
    stages.rows.push_back({s.name(), s.auto_release() ? mode + "+AutoRelease" : mode,
                           s.where_space(), absl::StrJoin(s.prerequisites(), ","),
                           absl::StrJoin(s.release_prerequisites(), ","), s.soak_time()});
  }
  stages.rows.push_back({"(Final)", "", "", absl::StrJoin(w.final().prerequisites(), ","), "", ""});
  std::string text = absl::StrCat("ChangeWorkflow ", w.slug(), " (ID ", w.change_workflow_id(),
                                  ", version ", w.version(), ")\n", stages.Render());
  if (w.custom_prerequisites_size() > 0) {
    Table custom{{"CUSTOM", "EXPRESSION", "DESCRIPTION"}, {}};
    for (const auto& c : w.custom_prerequisites()) {
      custom.rows.push_back({c.name(), c.expression(), c.description()});
    }
    absl::StrAppend(&text, "\n", custom.Render());
  }
  if (w.attestation_prerequisites_size() > 0) {
    Table att{{"ATTESTATION", "TYPE", "COUNT", "FROM", "MAX-AGE"}, {}};
    for (const auto& a : w.attestation_prerequisites()) {
      std::vector<std::string> from(a.from_user_ids().begin(), a.from_user_ids().end());
      for (const auto& g : a.from_groups()) from.push_back("group:" + g);
      att.rows.push_back(
          {a.name(), a.type(), absl::StrCat(a.count()), absl::StrJoin(from, ","), a.max_age()});
    }
    absl::StrAppend(&text, "\n", att.Render());
  }
  return printer.Text(text);
}

void AddCreate(CLI::App* group, Env& env) {
  struct Opts {
    std::string space, name, clone, dest_space;
    DefinitionFlags def;
  };
  auto o = std::make_shared<Opts>();
  CLI::App* cmd = group->add_subcommand("create", "Create a ChangeWorkflow from a file or flags");
  // Not AddSpaceOption: a clone names its Space with --dest-space and needs no default.
  cmd->add_option("--space", o->space, "Space slug or ID (default: the context's Space)")
      ->type_name("SPACE");
  cmd->add_option("NAME", o->name, "Slug of the new ChangeWorkflow");
  cmd->add_option("--changeworkflow", o->clone, "Clone this workflow (SPACE/NAME)");
  cmd->add_option("--dest-space", o->dest_space, "With --changeworkflow: the Space to clone into");
  AddDefinitionFlags(cmd, &o->def);
  OnRun(cmd, env, [&env, o, cmd] {
    cub::v1::CreateChangeWorkflowRequest req;
    if (o->clone.empty() && o->space.empty()) {
      absl::StatusOr<std::string> space = DefaultSpace(env.globals.context);
      if (!space.ok()) return UsageError(space.status().message());
      o->space = *std::move(space);
    }
    req.set_space(o->clone.empty() ? o->space : o->dest_space);
    if (req.space().empty()) {
      return UsageError(o->clone.empty() ? "--space is required"
                                         : "--changeworkflow needs --dest-space");
    }
    if (o->name.empty() && o->clone.empty()) return UsageError("NAME is required");
    req.set_slug(o->name);
    req.set_clone_from(o->clone);
    if (!FillDefinition(cmd, o->def, req.mutable_definition(), req.mutable_flags())) {
      return kExitFailed;
    }
    cub::v1::ChangeWorkflow w;
    if (!CallCubd(env, &ChangeWorkflowService::Stub::CreateChangeWorkflow, req, &w)) {
      return kExitFailed;
    }
    return env.printer().Confirm(
        w, absl::StrCat("ChangeWorkflow ", w.slug(), " created", IdSuffix(w.change_workflow_id())));
  });
}

void AddUpdate(CLI::App* group, Env& env) {
  struct Opts {
    std::string space, name;
    DefinitionFlags def;
  };
  auto o = std::make_shared<Opts>();
  CLI::App* cmd = group->add_subcommand(
      "update", "Replace a ChangeWorkflow's definition (--filename) or change it with flags");
  AddSpaceOption(cmd, &o->space, "Space slug or ID");
  cmd->add_option("NAME", o->name, "ChangeWorkflow slug or ID")->required();
  AddDefinitionFlags(cmd, &o->def);
  OnRun(cmd, env, [&env, o, cmd] {
    cub::v1::UpdateChangeWorkflowRequest req;
    req.set_space(o->space);
    req.set_change_workflow(o->name);
    if (!FillDefinition(cmd, o->def, req.mutable_definition(), req.mutable_flags())) {
      return kExitFailed;
    }
    cub::v1::ChangeWorkflow w;
    if (!CallCubd(env, &ChangeWorkflowService::Stub::UpdateChangeWorkflow, req, &w)) {
      return kExitFailed;
    }
    return env.printer().Confirm(
        w, absl::StrCat("ChangeWorkflow ", w.slug(), " updated to version ", w.version()));
  });
}

void AddGet(CLI::App* group, Env& env) {
  struct Opts {
    std::string space, name;
  };
  auto o = std::make_shared<Opts>();
  CLI::App* cmd = group->add_subcommand("get", "Show a ChangeWorkflow");
  AddSpaceOption(cmd, &o->space, "Space slug or ID");
  cmd->add_option("NAME", o->name, "ChangeWorkflow slug or ID")->required();
  OnRun(cmd, env, [&env, o] {
    cub::v1::GetChangeWorkflowRequest req;
    req.set_space(o->space);
    req.set_change_workflow(o->name);
    cub::v1::ChangeWorkflow w;
    if (!CallCubd(env, &ChangeWorkflowService::Stub::GetChangeWorkflow, req, &w)) {
      return kExitFailed;
    }
    return Show(env, w);
  });
}

void AddList(CLI::App* group, Env& env) {
  auto space = std::make_shared<std::string>();
  CLI::App* cmd = group->add_subcommand("list", "List the ChangeWorkflows of a Space");
  AddSpaceOption(cmd, space.get(), "Space slug or ID");
  OnRun(cmd, env, [&env, space] {
    cub::v1::ListChangeWorkflowsRequest req;
    req.set_space(*space);
    cub::v1::ListChangeWorkflowsResponse resp;
    if (!CallCubd(env, &ChangeWorkflowService::Stub::ListChangeWorkflows, req, &resp)) {
      return kExitFailed;
    }
    return env.printer().List<cub::v1::ChangeWorkflow>(
        resp.change_workflows(), {"NAME", "STAGES", "VERSION", "ID"},
        [](const cub::v1::ChangeWorkflow& w) -> std::vector<std::string> {
          std::vector<std::string> names;
          for (const auto& s : w.stages()) names.push_back(s.name());
          return {w.slug(), absl::StrJoin(names, " > "), absl::StrCat(w.version()),
                  w.change_workflow_id()};
        });
  });
}

void AddDelete(CLI::App* group, Env& env) {
  struct Opts {
    std::string space, name;
  };
  auto o = std::make_shared<Opts>();
  CLI::App* cmd = group->add_subcommand("delete", "Delete a ChangeWorkflow");
  AddSpaceOption(cmd, &o->space, "Space slug or ID");
  cmd->add_option("NAME", o->name, "ChangeWorkflow slug or ID")->required();
  OnRun(cmd, env, [&env, o] {
    cub::v1::DeleteChangeWorkflowRequest req;
    req.set_space(o->space);
    req.set_change_workflow(o->name);
    cub::v1::DeleteChangeWorkflowResponse resp;
    if (!CallCubd(env, &ChangeWorkflowService::Stub::DeleteChangeWorkflow, req, &resp)) {
      return kExitFailed;
    }
    return env.printer().Confirm(resp, absl::StrCat("ChangeWorkflow ", o->name, " deleted"));
  });
}

}  // namespace

void AddChangeWorkflowCommands(CLI::App& app, Env& env) {
  CLI::App* group = app.add_subcommand("changeworkflow",
                                       "Manage ChangeWorkflows, the stages a change moves through");
  AddCreate(group, env);
  AddUpdate(group, env);
  AddGet(group, env);
  AddList(group, env);
  AddDelete(group, env);
}

}  // namespace cub::cli
