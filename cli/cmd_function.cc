// `cub function ...`: list and explain functions, and run them over Units: get reads values,
// set writes a new revision of each Unit it changes, vet checks (and exits 1 if a check fails).
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "cli/commands.h"
#include "cli/space_flag.h"
#include "cub/v1/function.grpc.pb.h"

namespace cub::cli {
namespace {

using cub::v1::FunctionService;

void AddList(CLI::App* group, Env& env) {
  auto toolchain = std::make_shared<std::string>();
  CLI::App* cmd = group->add_subcommand("list", "List the functions");
  cmd->add_option("--toolchain", *toolchain, "Only those for this toolchain type");
  OnRun(cmd, env, [&env, toolchain] {
    cub::v1::ListFunctionsRequest req;
    req.set_toolchain_type(*toolchain);
    cub::v1::ListFunctionsResponse resp;
    if (!CallCubd(env, &FunctionService::Stub::ListFunctions, req, &resp)) return kExitFailed;
    return env.printer().List<cub::v1::FunctionSpec>(
        resp.functions(), {"NAME", "KIND", "TOOLCHAIN", "DESCRIPTION"},
        [](const cub::v1::FunctionSpec& f) -> std::vector<std::string> {
          return {f.name(), f.kind(), f.toolchain_type(), f.description()};
        });
  });
}

void AddExplain(CLI::App* group, Env& env) {
  auto name = std::make_shared<std::string>();
  CLI::App* cmd = group->add_subcommand("explain", "Show a function's signature and parameters");
  cmd->add_option("FUNCTION", *name, "Function name")->required();
  OnRun(cmd, env, [&env, name] {
    cub::v1::ListFunctionsResponse resp;
    if (!CallCubd(env, &FunctionService::Stub::ListFunctions, cub::v1::ListFunctionsRequest(),
                  &resp)) {
      return kExitFailed;
    }
    for (const auto& f : resp.functions()) {
      if (f.name() != *name) continue;
      const Printer printer = env.printer();
      if (!printer.table()) return printer.Document(f);
      std::string text = absl::StrCat(f.signature(), "\n\n", f.description(), "\n");
      if (f.parameters_size() > 0) {
        Table params{{"PARAMETER", "TYPE", "REQUIRED", "DESCRIPTION"}, {}};
        for (const auto& p : f.parameters()) {
          params.rows.push_back({p.name(), p.type(), p.required() ? "yes" : "no", p.description()});
        }
        absl::StrAppend(&text, "\n", params.Render());
      }
      return printer.Text(text);
    }
    PrintFailure(absl::StrCat("no function named '", *name, "'; see cub function list"));
    return kExitFailed;
  });
}

void AddInvoke(CLI::App* group, Env& env, const std::string& kind, const std::string& help) {
  struct Opts {
    std::string space, unit, where, change_desc, change_set, invocation;
    bool dry_run = false;
    std::vector<std::string> words;  // FUNCTION ARGS...
    std::vector<std::string> params;
  };
  auto o = std::make_shared<Opts>();
  CLI::App* cmd = group->add_subcommand(kind, help);
  AddSpaceOption(cmd, &o->space, "Space slug or ID");
  CLI::Option* unit = cmd->add_option("--unit", o->unit, "Run over this Unit only");
  cmd->add_option("--where", o->where, "Run over the Units this where expression selects")
      ->excludes(unit);
  if (kind == "set") {
    cmd->add_option("--change-desc", o->change_desc, "Description of the new revisions");
    cmd->add_flag("--dry-run", o->dry_run, "Show what would change; write nothing");
    cmd->add_option("--changeset", o->change_set, "Write in this open ChangeSet (SPACE/NAME)");
  }
  CLI::Option* words =
      cmd->add_option("FUNCTION", o->words, "-- FUNCTION ARGS... (see cub function explain)");
  cmd->add_option("--invocation", o->invocation, "Run this saved Invocation (SPACE/NAME)")
      ->excludes(words);
  AddKeyValueFlag(cmd, "--param", &o->params, "A parameter value for --invocation (repeatable)");
  OnRun(cmd, env, [&env, o, kind] {
    if (o->words.empty() && o->invocation.empty()) {
      return UsageError("name a function (-- FUNCTION ARGS...) or --invocation SPACE/NAME");
    }
    cub::v1::InvokeFunctionRequest req;
    req.set_invocation(o->invocation);
    PutKeyValues(o->params, req.mutable_params());
    req.set_space(o->space);
    req.set_unit(o->unit);
    req.set_where(o->where);
    req.set_kind(kind);
    if (!o->words.empty()) req.set_function(o->words[0]);
    for (size_t i = 1; i < o->words.size(); ++i) req.add_arguments(o->words[i]);
    req.set_change_desc(o->change_desc);
    req.set_dry_run(o->dry_run);
    req.set_change_set(o->change_set);
    cub::v1::InvokeFunctionResponse resp;
    if (!CallCubd(env, &FunctionService::Stub::InvokeFunction, req, &resp)) return kExitFailed;
    const Printer printer = env.printer();
    if (!printer.table()) return printer.Document(resp);
    Table table;
    int failed = 0;
    std::vector<std::string> written;
    for (const auto& u : resp.units()) {
      if (kind == "get") {
        table.header = {"UNIT", "RESOURCE", "PATH", "VALUE"};
        for (const auto& v : u.values()) {
          table.rows.push_back({u.unit_slug(), v.resource(), v.path(), v.value()});
        }
      } else if (kind == "set") {
        table.header = {"UNIT", "PATH", "OLD", "NEW"};
        for (const auto& m : u.mutations()) {
          table.rows.push_back({u.unit_slug(), m.path(), m.old_value(), m.new_value()});
        }
        if (u.revision_num() > 0) {
          written.push_back(absl::StrCat(u.unit_slug(), " (revision ", u.revision_num(), ")"));
        }
      } else {
        table.header = {"UNIT", "PASSED", "ERRORS"};
        if (!u.passed()) ++failed;
        table.rows.push_back(
            {u.unit_slug(), u.passed() ? "yes" : "no", absl::StrJoin(u.errors(), "; ")});
      }
    }
    std::string text = table.rows.empty() ? "" : table.Render();
    if (kind == "set") {
      absl::StrAppend(&text, table.rows.empty() ? "Nothing to change\n" : "",
                      o->dry_run ? "Dry run: nothing written\n"
                      : written.empty()
                          ? ""
                          : absl::StrCat("Wrote ", absl::StrJoin(written, ", "), "\n"));
    }
    int rc = printer.Text(text);
    if (failed > 0) {
      PrintFailure(absl::StrCat(req.function().empty() ? req.invocation() : req.function(),
                                " failed on ", failed, " unit", failed == 1 ? "" : "s"));
      return kExitFailed;
    }
    return rc;
  });
}

}  // namespace

void AddFunctionCommands(CLI::App& app, Env& env) {
  CLI::App* group = app.add_subcommand("function", "List, explain and run functions over Units");
  AddList(group, env);
  AddExplain(group, env);
  AddInvoke(group, env, "get", "Read values from Units");
  AddInvoke(group, env, "set", "Change Units, writing a new revision of each one changed");
  AddInvoke(group, env, "vet", "Check Units; exits 1 if any check fails");
}

}  // namespace cub::cli
