// `cub tag ...`: create, show and list Tags, the names that mark one revision per Unit.
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "cli/commands.h"
#include "cli/space_flag.h"
#include "cub/v1/unit.grpc.pb.h"

namespace cub::cli {
namespace {

using cub::v1::TagService;

void AddCreate(CLI::App* group, Env& env) {
  struct Opts {
    std::string space, name, description;
    std::vector<std::string> labels;
    bool allow_exists = false;
  };
  auto o = std::make_shared<Opts>();
  CLI::App* cmd = group->add_subcommand("create", "Create a Tag");
  AddSpaceOption(cmd, &o->space, "Space slug or ID");
  cmd->add_option("NAME", o->name, "Slug of the new Tag")->required();
  cmd->add_option("--description", o->description, "What the Tag marks");
  AddKeyValueFlag(cmd, "--label", &o->labels, "Set a label (repeatable)");
  cmd->add_flag("--allow-exists", o->allow_exists,
                "Succeed with the existing Tag if the name is taken");
  OnRun(cmd, env, [&env, o] {
    cub::v1::CreateTagRequest req;
    req.set_space(o->space);
    req.set_slug(o->name);
    req.set_description(o->description);
    req.set_allow_exists(o->allow_exists);
    PutKeyValues(o->labels, req.mutable_labels());
    cub::v1::Tag tag;
    if (!CallCubd(env, &TagService::Stub::CreateTag, req, &tag)) return kExitFailed;
    return env.printer().Confirm(
        tag, absl::StrCat("Tag ", tag.slug(), " created", IdSuffix(tag.tag_id())));
  });
}

void AddGet(CLI::App* group, Env& env) {
  struct Opts {
    std::string space, name;
  };
  auto o = std::make_shared<Opts>();
  CLI::App* cmd = group->add_subcommand("get", "Show a Tag and the revisions it marks");
  AddSpaceOption(cmd, &o->space, "Space slug or ID");
  cmd->add_option("NAME", o->name, "Tag slug or ID")->required();
  OnRun(cmd, env, [&env, o] {
    cub::v1::GetTagRequest req;
    req.set_space(o->space);
    req.set_tag(o->name);
    cub::v1::TagWithMarks resp;
    if (!CallCubd(env, &TagService::Stub::GetTag, req, &resp)) return kExitFailed;
    const Printer printer = env.printer();
    if (!printer.table()) return printer.Document(resp);
    Table marks{{"UNIT", "REVISION", "MARKED"}, {}};
    for (const cub::v1::TagMark& m : resp.marks()) {
      marks.rows.push_back({m.unit_slug(), absl::StrCat(m.revision_num()), m.created_at()});
    }
    return printer.Text(absl::StrCat(FieldTable(resp.tag()).Render(), "\n", marks.Render()));
  });
}

void AddList(CLI::App* group, Env& env) {
  struct Opts {
    std::string space, where;
  };
  auto o = std::make_shared<Opts>();
  CLI::App* cmd = group->add_subcommand("list", "List the Tags of a Space");
  AddSpaceOption(cmd, &o->space, "Space slug or ID");
  cmd->add_option("--where", o->where, "Where expression over Tags");
  OnRun(cmd, env, [&env, o] {
    cub::v1::ListTagsRequest req;
    req.set_space(o->space);
    req.mutable_options()->set_where(o->where);
    cub::v1::ListTagsResponse resp;
    if (!CallCubd(env, &TagService::Stub::ListTags, req, &resp)) return kExitFailed;
    return env.printer().List<cub::v1::Tag>(
        resp.tags(), {"NAME", "MARKS", "DESCRIPTION", "ID"},
        [](const cub::v1::Tag& t) -> std::vector<std::string> {
          return {t.slug(), absl::StrCat(t.mark_count()), t.description(), t.tag_id()};
        });
  });
}

}  // namespace

void AddTagCommands(CLI::App& app, Env& env) {
  CLI::App* group = app.add_subcommand("tag", "Manage Tags, which mark one revision per Unit");
  AddCreate(group, env);
  AddGet(group, env);
  AddList(group, env);
}

}  // namespace cub::cli
