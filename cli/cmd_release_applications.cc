// `cub release applications`: the Argo CD Applications of a Release, one per cluster of its
// Target, for `kubectl apply -f -`. -o yaml prints them as YAML documents separated by "---",
// -o json as a Kubernetes List; the table lists them. Clusters held by the opt-in rule are
// named on stderr, so that stdout stays a clean manifest stream.
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "cli/commands.h"
#include "cli/space_flag.h"
#include "cub/v1/release.grpc.pb.h"
#include "lib/config/yaml.h"

namespace cub::cli {
namespace {

// Strings read from JSON keep their double quotes when written as YAML; plain reads better.
void PlainStrings(config::Node& n) {
  if (n.IsString()) n.set_string_style(config::StringStyle::kAuto);
  if (n.IsSequence()) {
    for (config::Node& item : n.MutableSequence()) PlainStrings(item);
  }
  if (n.IsMapping()) {
    for (auto& [key, value] : n.MutableMapping()) PlainStrings(value);
  }
}

// The Applications as one text in `format`, or an error naming the Application that cubd sent
// malformed.
absl::StatusOr<std::string> Manifests(const v1::ReleaseApplicationsResponse& resp, Format format) {
  std::vector<config::Node> docs;
  for (const v1::ArgoApplication& a : resp.applications()) {
    absl::StatusOr<std::vector<config::Node>> parsed = config::ParseYaml(a.manifest_json());
    if (!parsed.ok() || parsed->size() != 1) {
      return absl::InternalError(
          absl::StrCat("cubd sent Application ", a.name(), " as malformed JSON"));
    }
    PlainStrings((*parsed)[0]);
    docs.push_back(std::move((*parsed)[0]));
  }
  if (format == Format::kYaml) return config::EmitYaml(docs);
  config::Node list = config::Node::Map({{"apiVersion", config::Node::String("v1")},
                                         {"kind", config::Node::String("List")},
                                         {"items", config::Node::Seq(std::move(docs))}});
  return config::EmitJson(list, /*pretty=*/true) + "\n";
}

}  // namespace

void AddReleaseApplicationsCommand(CLI::App* release, Env& env) {
  struct Opts {
    std::string space;
    int release = 0;
  };
  auto o = std::make_shared<Opts>();
  CLI::App* cmd = release->add_subcommand(
      "applications",
      "The Argo CD Applications of a Release, one per cluster of its Target (-o yaml for "
      "kubectl apply -f -)");
  AddSpaceOption(cmd, &o->space, "Space slug or ID");
  cmd->add_option("--release", o->release,
                  "Release number (default: the Space's newest Delivered Release)");
  OnRun(cmd, env, [&env, o] {
    v1::ReleaseApplicationsRequest req;
    req.set_space(o->space);
    req.set_release(o->release);
    v1::ReleaseApplicationsResponse resp;
    if (!CallCubd(env, &v1::ReleaseService::Stub::ReleaseApplications, req, &resp)) {
      return kExitFailed;
    }
    for (const v1::HeldCluster& h : resp.held()) {
      std::cerr << "Held: cluster " << h.cluster() << " (" << h.reason() << "): " << h.message()
                << "\n";
    }
    if (env.printer().table()) {
      return env.printer().List<v1::ArgoApplication>(
          resp.applications(), {"NAME", "CLUSTER", "SERVER", "NAMESPACE"},
          [](const v1::ArgoApplication& a) -> std::vector<std::string> {
            return {a.name(), a.cluster(), a.server(), a.namespace_()};
          });
    }
    absl::StatusOr<std::string> text = Manifests(resp, env.printer().format());
    if (!text.ok()) {
      PrintFailure(std::string(text.status().message()));
      return kExitFailed;
    }
    return env.printer().Text(*text);
  });
}

}  // namespace cub::cli
