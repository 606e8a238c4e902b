// `cub variant create NAME... UPSTREAM-SPACE`: clone an upstream Space, all its Units, into new
// Spaces whose Units are linked back to the upstream ones, so later changes there can be
// promoted down. One NAME is the spec's command, unchanged (CreateVariant); several, or
// --names-file, make one CreateVariants call: all of them or, refused, none.
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "cli/commands.h"
#include "cli/count.h"
#include "cub/v1/variant.grpc.pb.h"

namespace cub::cli {
namespace {

using cub::v1::VariantService;

// Beyond this many variants the table would scroll past; the closing line says it all.
constexpr int kMostRowsShown = 100;

// The names of a --names-file: one a line; blank lines and lines starting with '#' skipped.
std::vector<std::string> NamesOf(const std::string& text) {
  std::vector<std::string> out;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    line = absl::StripAsciiWhitespace(line);
    if (line.empty() || line[0] == '#') continue;
    out.emplace_back(line);
  }
  return out;
}

int PrintCreated(const Env& env, const v1::CreateVariantsResponse& resp,
                 const std::string& upstream) {
  const Printer& out = env.printer();
  const std::string line =
      absl::StrCat(Count(resp.spaces_size(), "variant"), " created from ", upstream, " with ",
                   Count(resp.unit_count(), "unit"), " each");
  if (out.quiet()) return 0;
  if (!out.table()) return out.Document(resp);
  if (resp.spaces_size() <= kMostRowsShown || out.options().names) {
    Table t{{"SPACE", "STAGE", "ENVIRONMENT", "REGION", "UNITS"}, {}};
    for (const auto& s : resp.spaces()) {
      auto label = [&s](const char* key) {
        auto it = s.labels().find(key);
        return it == s.labels().end() ? std::string() : it->second;
      };
      t.rows.push_back({s.slug(), label("Stage"), label("Environment"), label("Region"),
                        absl::StrCat(resp.unit_count())});
    }
    if (int rc = out.Rows(t); rc != 0 || out.options().names) return rc;
  }
  return out.Text(line + "\n");
}

}  // namespace

void AddVariantCreateCommand(CLI::App* group, Env& env) {
  struct Opts {
    std::vector<std::string> names;
    std::string upstream, names_file, stage, environment, region;
    std::vector<std::string> labels;
  };
  auto o = std::make_shared<Opts>();
  CLI::App* cmd = group->add_subcommand(
      "create",
      "Create Spaces cloned from UPSTREAM-SPACE (the last argument), Units linked: one NAME, or "
      "many NAMEs and --names-file in one call, all created or none");
  // CLI11 2.1 hands every positional argument to NAME, which takes many, and would count the
  // flags after the last one if told to keep one for UPSTREAM-SPACE (positionals_at_end), so
  // neither is required here: the last positional argument is the upstream, split off below.
  cmd->add_option("NAME", o->names,
                  "Slug of a new Space; several create them all in one call, or none");
  cmd->add_option("UPSTREAM-SPACE", o->upstream, "Space to clone (slug or ID); required");
  cmd->add_option("--names-file", o->names_file,
                  "Read more NAMEs from FILE ('-': stdin), one a line; '#' starts a comment");
  cmd->add_option("--stage", o->stage, "Value of the Stage label (what workflows select on)");
  cmd->add_option("--environment", o->environment, "Value of the Environment label");
  cmd->add_option("--region", o->region, "Value of the Region label");
  AddKeyValueFlag(cmd, "--label", &o->labels, "Set another label (repeatable)");
  OnRun(cmd, env, [&env, o] {
    std::vector<std::string> names = o->names;
    std::string upstream = o->upstream;
    if (upstream.empty()) {
      if (names.empty()) return UsageError("UPSTREAM-SPACE is required");
      upstream = names.back();
      names.pop_back();
    }
    if (!o->names_file.empty()) {
      absl::StatusOr<std::string> text = ReadInput(o->names_file);
      if (!text.ok()) return UsageError(text.status().message());
      std::vector<std::string> more = NamesOf(*text);
      if (more.empty()) return UsageError(absl::StrCat(o->names_file, " names no Space"));
      names.insert(names.end(), more.begin(), more.end());
    }
    if (names.empty()) return UsageError("NAME is required (or --names-file)");
    // What both requests carry besides the names.
    auto fill = [&](auto& req) {
      req.set_upstream_space(upstream);
      req.set_stage(o->stage);
      req.set_environment(o->environment);
      req.set_region(o->region);
      PutKeyValues(o->labels, req.mutable_labels());
    };
    if (names.size() == 1 && o->names_file.empty()) {
      cub::v1::CreateVariantRequest req;
      req.set_slug(names[0]);
      fill(req);
      cub::v1::CreateVariantResponse resp;
      if (!CallCubd(env, &VariantService::Stub::CreateVariant, req, &resp)) return kExitFailed;
      const std::string name = resp.space().slug().empty() ? names[0] : resp.space().slug();
      return env.printer().Confirm(resp, absl::StrCat("Variant ", name, " created from ", upstream,
                                                      " with ", Count(resp.units_size(), "unit")));
    }
    cub::v1::CreateVariantsRequest req;
    for (auto& n : names) req.add_slugs(std::move(n));
    fill(req);
    cub::v1::CreateVariantsResponse resp;
    if (!CallCubd(env, &VariantService::Stub::CreateVariants, req, &resp)) return kExitFailed;
    return PrintCreated(env, resp, upstream);
  });
}

}  // namespace cub::cli
