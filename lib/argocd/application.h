// Argo CD Applications for a Space: one per cluster a Target names, rendered by cub so that an
// Argo CD (which knows nothing of cub) deploys each Release of the Space to every cluster.
//
// A Git or OCI Target opts in with params:
//   clusters=NAME=API-URL,...   the clusters (required for any of the others). NAME: 1-63
//                               lowercase letters, digits and '-', starting and ending with a
//                               letter or digit, each once. API-URL: https://HOST[:PORT][/PATH]
//                               (http:// too, for a test cluster), no spaces, commas or quotes;
//                               it becomes the Application's spec.destination.server, which
//                               Argo CD matches against its registered clusters.
//   namespace=NS                the destination namespace (a DNS label); default: the Space's
//                               name made into one (SpaceNamespace).
//   project=P                   the Argo CD AppProject (a DNS subdomain); default "default".
//
// Each Application (apiVersion argoproj.io/v1alpha1) is named ApplicationName(space, cluster),
// lives in namespace "argocd", carries labels and annotations naming the Space, and syncs
// automatically with prune and self-heal, ServerSideApply=true and CreateNamespace=true.
//
// Pure functions; thread-safe.

#ifndef CUB_LIB_ARGOCD_APPLICATION_H_
#define CUB_LIB_ARGOCD_APPLICATION_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "lib/config/node.h"

namespace cub::argocd {

// The annotation a pre-existing Application must carry, with the Space's name as its value,
// before cub overwrites it (the opt-in rule); cub puts it on every Application it renders.
inline constexpr char kAllowedSpaceAnnotation[] = "cub.dev/allowed-space";
// The namespace the Application objects live in (Argo CD's own).
inline constexpr char kApplicationNamespace[] = "argocd";

struct Cluster {
  std::string name;    // the NAME of clusters=
  std::string server;  // its API-URL
};

// A Target's Argo CD settings, from its params.
struct Settings {
  std::vector<Cluster> clusters;  // in the order the param names them
  std::string namespace_name;     // empty: SpaceNamespace(space)
  std::string project = "default";
};

// The params above, for a provider's list of known params.
const std::vector<std::string>& ParamNames();

// Checks the params above among a Target's `params` (others are ignored). `provider` leads
// the messages: "Git target: param 'clusters': cluster name 'A' is not valid: ...".
// namespace or project without clusters is refused too (they would do nothing).
absl::Status ValidateParams(std::string_view provider,
                            const std::map<std::string, std::string>& params);

// The settings of `params` (after ValidateParams), or nullopt when there is no clusters param.
std::optional<Settings> SettingsOf(const std::map<std::string, std::string>& params);

// "cub-<space>-<hash>": <space> is the Space's name lowercased, with every character other than
// a-z, 0-9 and '-' made '-', cut to 48 characters and trailing '-' removed; <hash> is the first
// 10 hex digits of SHA-256(space + '\0' + cluster) over the unchanged names, so distinct
// (space, cluster) pairs get distinct names even where the visible part is the same (spaces
// "a-b" and "a_b", or "a-b"+"c" and "a"+"b-c"). At most 63 characters, a valid DNS label.
std::string ApplicationName(std::string_view space, std::string_view cluster);

// The destination namespace for a Space without the namespace param: its name lowercased,
// other characters than a-z, 0-9 and '-' made '-', cut to 63, '-' trimmed at both ends;
// "default" if nothing is left.
std::string SpaceNamespace(std::string_view space);

// Where an Application's source is.
struct Source {
  // Git: the repository URL, the Space's directory in it, and the revision (a commit or a
  // branch). OCI: repo_url "oci://HOST/PATH", path ".", revision the manifest digest.
  std::string repo_url;
  std::string path;
  std::string revision;
};

// The Git source of a Git Target's `repository` param: a local absolute path becomes a
// file:// URL (Argo CD cannot read a path of cubd's machine; shown as what it is).
Source GitSource(const std::string& repository, const std::string& path,
                 const std::string& revision);
// The OCI source of an OCI Target's `repository` param (HOST[:PORT]/PATH) at `digest`.
Source OciSource(const std::string& repository, const std::string& digest);

struct Application {
  std::string name;
  std::string cluster;
  std::string server;
  std::string namespace_name;  // the destination namespace
  config::Node manifest;       // the whole Application object
};

// The Application of `space` for `cluster` at `source`. `release_num` (>= 1, or 0 for none) is
// recorded in the annotation cub.dev/release.
Application Render(const std::string& space, int64_t release_num, const Cluster& cluster,
                   const Settings& settings, const Source& source);

// One Application per cluster of `settings`, in its order.
std::vector<Application> RenderAll(const std::string& space, int64_t release_num,
                                   const Settings& settings, const Source& source);

// The Application as a YAML document (ends in a newline) and as compact JSON.
std::string ApplicationYaml(const Application& app);
std::string ApplicationJson(const Application& app);

// Whether the YAML text of an Application somebody else wrote carries
// metadata.annotations["cub.dev/allowed-space"] equal to `space`. False for text that does not
// parse, or holds anything but one mapping.
bool AllowsSpace(std::string_view yaml, std::string_view space);

}  // namespace cub::argocd

#endif  // CUB_LIB_ARGOCD_APPLICATION_H_
