#include "lib/argocd/application.h"

#include <cctype>
#include <set>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "lib/config/json.h"
#include "lib/config/yaml.h"
#include "lib/util/sha256.h"

namespace cub::argocd {
namespace {

using config::Node;

constexpr size_t kMaxLabel = 63;
constexpr size_t kNameSpacePart = 48;  // 4 ("cub-") + 48 + 1 + 10 = 63
constexpr size_t kHashDigits = 10;

bool IsLowerAlnum(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }

// RFC 1123 label: 1-63 of [a-z0-9-], starting and ending with [a-z0-9].
bool IsDnsLabel(std::string_view s) {
  if (s.empty() || s.size() > kMaxLabel) return false;
  if (!IsLowerAlnum(s.front()) || !IsLowerAlnum(s.back())) return false;
  for (char c : s) {
    if (!IsLowerAlnum(c) && c != '-') return false;
  }
  return true;
}

// RFC 1123 subdomain: dot-separated labels, at most 253 characters.
bool IsDnsSubdomain(std::string_view s) {
  if (s.empty() || s.size() > 253) return false;
  for (absl::string_view label : absl::StrSplit(absl::string_view(s.data(), s.size()), '.')) {
    if (!IsDnsLabel(std::string_view(label.data(), label.size()))) return false;
  }
  return true;
}

// A Kubernetes label value: empty, or up to 63 of [A-Za-z0-9_.-] starting and ending with an
// alphanumeric.
bool IsLabelValue(std::string_view s) {
  if (s.empty()) return true;
  if (s.size() > kMaxLabel) return false;
  auto alnum = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; };
  if (!alnum(s.front()) || !alnum(s.back())) return false;
  for (char c : s) {
    if (!alnum(c) && c != '-' && c != '_' && c != '.') return false;
  }
  return true;
}

// http(s)://HOST[:PORT][/PATH] without characters that would need quoting anywhere.
absl::Status CheckServerUrl(std::string_view url) {
  std::string_view rest;
  if (url.rfind("https://", 0) == 0) {
    rest = url.substr(8);
  } else if (url.rfind("http://", 0) == 0) {
    rest = url.substr(7);
  } else {
    return absl::InvalidArgumentError("it must start with https:// (or http://)");
  }
  if (rest.empty() || rest.front() == '/' || rest.front() == ':') {
    return absl::InvalidArgumentError("it names no host");
  }
  for (char c : url) {
    const auto u = static_cast<unsigned char>(c);
    if (u <= 0x20 || u >= 0x7f || c == ',' || c == '"' || c == '\'' || c == '\\' || c == '<' ||
        c == '>' || c == '`' || c == '{' || c == '}' || c == '|' || c == '^') {
      return absl::InvalidArgumentError(
          "it contains a space, comma, quote or other character not allowed in a URL");
    }
  }
  return absl::OkStatus();
}

// Lowercase, characters other than [a-z0-9-] made '-'.
std::string Dnsify(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    char l = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    out += IsLowerAlnum(l) ? l : '-';
  }
  return out;
}

absl::StatusOr<std::vector<Cluster>> ParseClusters(const std::string& provider,
                                                   const std::string& value) {
  const std::string where = absl::StrCat(provider, " target: param 'clusters'");
  std::vector<Cluster> out;
  std::set<std::string> seen;
  for (absl::string_view item : absl::StrSplit(value, ',')) {
    size_t eq = item.find('=');
    if (eq == std::string_view::npos) {
      return absl::InvalidArgumentError(absl::StrCat(
          where, ": '", item, "' is not NAME=API-URL (e.g. prod=https://prod.example:6443)"));
    }
    Cluster c{std::string(item.substr(0, eq)), std::string(item.substr(eq + 1))};
    if (!IsDnsLabel(c.name)) {
      return absl::InvalidArgumentError(absl::StrCat(
          where, ": cluster name '", c.name,
          "' is not valid: use 1-63 lowercase letters, digits and '-', starting and ending "
          "with a letter or digit"));
    }
    if (absl::Status s = CheckServerUrl(c.server); !s.ok()) {
      return absl::InvalidArgumentError(absl::StrCat(
          where, ": API URL '", c.server, "' of cluster ", c.name, " is not valid: ", s.message()));
    }
    if (!seen.insert(c.name).second) {
      return absl::InvalidArgumentError(
          absl::StrCat(where, ": cluster ", c.name, " is named more than once"));
    }
    out.push_back(std::move(c));
  }
  return out;
}

Node Str(std::string s) { return Node::String(std::move(s)); }

}  // namespace

const std::vector<std::string>& ParamNames() {
  static const std::vector<std::string> kNames = {"clusters", "namespace", "project"};
  return kNames;
}

absl::Status ValidateParams(std::string_view provider_name,
                            const std::map<std::string, std::string>& params) {
  const std::string provider(provider_name);
  auto clusters = params.find("clusters");
  if (clusters == params.end()) {
    for (const char* p : {"namespace", "project"}) {
      if (params.count(p) != 0) {
        return absl::InvalidArgumentError(
            absl::StrCat(provider, " target: param '", p,
                         "' configures Argo CD Applications, which need param 'clusters' too"));
      }
    }
    return absl::OkStatus();
  }
  if (clusters->second.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat(provider, " target: param 'clusters' is empty; expected NAME=API-URL,..."));
  }
  absl::StatusOr<std::vector<Cluster>> parsed = ParseClusters(provider, clusters->second);
  if (!parsed.ok()) return parsed.status();
  if (auto ns = params.find("namespace"); ns != params.end() && !IsDnsLabel(ns->second)) {
    return absl::InvalidArgumentError(
        absl::StrCat(provider, " target: param 'namespace' value '", ns->second,
                     "' is not a valid namespace: use 1-63 lowercase letters, digits and '-', "
                     "starting and ending with a letter or digit"));
  }
  if (auto p = params.find("project"); p != params.end() && !IsDnsSubdomain(p->second)) {
    return absl::InvalidArgumentError(
        absl::StrCat(provider, " target: param 'project' value '", p->second,
                     "' is not a valid Argo CD project name: use lowercase letters, digits, '-' "
                     "and '.', up to 253 characters"));
  }
  return absl::OkStatus();
}

std::optional<Settings> SettingsOf(const std::map<std::string, std::string>& params) {
  auto clusters = params.find("clusters");
  if (clusters == params.end()) return std::nullopt;
  Settings s;
  absl::StatusOr<std::vector<Cluster>> parsed = ParseClusters("", clusters->second);
  if (parsed.ok()) s.clusters = std::move(*parsed);
  if (auto ns = params.find("namespace"); ns != params.end()) s.namespace_name = ns->second;
  if (auto p = params.find("project"); p != params.end()) s.project = p->second;
  return s;
}

std::string ApplicationName(std::string_view space, std::string_view cluster) {
  std::string visible = Dnsify(space).substr(0, kNameSpacePart);
  while (!visible.empty() && visible.back() == '-') visible.pop_back();
  std::string input(space);
  input += '\0';
  input.append(cluster.data(), cluster.size());
  const std::string hash = Sha256Hex(input).substr(0, kHashDigits);
  return visible.empty() ? absl::StrCat("cub-", hash) : absl::StrCat("cub-", visible, "-", hash);
}

std::string SpaceNamespace(std::string_view space) {
  std::string ns = Dnsify(space).substr(0, kMaxLabel);
  size_t start = ns.find_first_not_of('-');
  if (start == std::string::npos) return "default";
  ns = ns.substr(start);
  while (!ns.empty() && ns.back() == '-') ns.pop_back();
  return ns;
}

Source GitSource(const std::string& repository, const std::string& path,
                 const std::string& revision) {
  std::string url =
      !repository.empty() && repository[0] == '/' ? "file://" + repository : repository;
  return Source{std::move(url), path, revision};
}

Source OciSource(const std::string& repository, const std::string& digest) {
  return Source{"oci://" + repository, ".", digest};
}

Application Render(const std::string& space, int64_t release_num, const Cluster& cluster,
                   const Settings& settings, const Source& source) {
  Application app;
  app.name = ApplicationName(space, cluster.name);
  app.cluster = cluster.name;
  app.server = cluster.server;
  app.namespace_name =
      settings.namespace_name.empty() ? SpaceNamespace(space) : settings.namespace_name;

  // A Space name that is no valid label value (too long, or ending in '_' or '.') is labelled
  // by its DNS form; the annotations always carry it as it is.
  std::string space_label = space;
  if (!IsLabelValue(space_label)) space_label = SpaceNamespace(space);
  Node labels = Node::Map({{"app.kubernetes.io/managed-by", Str("cub")},
                           {"cub.dev/space", Str(space_label)},
                           {"cub.dev/cluster", Str(cluster.name)}});
  Node annotations = Node::Map({{"cub.dev/space", Str(space)},
                                {kAllowedSpaceAnnotation, Str(space)},
                                {"cub.dev/cluster", Str(cluster.name)}});
  if (release_num > 0) annotations.Set("cub.dev/release", Str(absl::StrCat(release_num)));

  Node metadata = Node::Map({{"name", Str(app.name)},
                             {"namespace", Str(kApplicationNamespace)},
                             {"labels", std::move(labels)},
                             {"annotations", std::move(annotations)}});
  Node src = Node::Map({{"repoURL", Str(source.repo_url)},
                        {"path", Str(source.path)},
                        {"targetRevision", Str(source.revision)}});
  Node destination =
      Node::Map({{"server", Str(cluster.server)}, {"namespace", Str(app.namespace_name)}});
  Node sync = Node::Map(
      {{"automated", Node::Map({{"prune", Node::Bool(true)}, {"selfHeal", Node::Bool(true)}})},
       {"syncOptions", Node::Seq({Str("ServerSideApply=true"), Str("CreateNamespace=true")})}});
  Node spec = Node::Map({{"project", Str(settings.project)},
                         {"source", std::move(src)},
                         {"destination", std::move(destination)},
                         {"syncPolicy", std::move(sync)}});
  app.manifest = Node::Map({{"apiVersion", Str("argoproj.io/v1alpha1")},
                            {"kind", Str("Application")},
                            {"metadata", std::move(metadata)},
                            {"spec", std::move(spec)}});
  return app;
}

std::vector<Application> RenderAll(const std::string& space, int64_t release_num,
                                   const Settings& settings, const Source& source) {
  std::vector<Application> out;
  out.reserve(settings.clusters.size());
  for (const Cluster& c : settings.clusters) {
    out.push_back(Render(space, release_num, c, settings, source));
  }
  return out;
}

std::string ApplicationYaml(const Application& app) { return config::EmitYaml({app.manifest}); }

std::string ApplicationJson(const Application& app) {
  return config::EmitJson(app.manifest, /*pretty=*/false);
}

bool AllowsSpace(std::string_view yaml, std::string_view space) {
  absl::StatusOr<std::vector<Node>> docs = config::ParseYaml(yaml);
  if (!docs.ok() || docs->size() != 1) return false;
  const Node* metadata = (*docs)[0].Find("metadata");
  const Node* annotations = metadata != nullptr ? metadata->Find("annotations") : nullptr;
  const Node* allowed =
      annotations != nullptr ? annotations->Find(kAllowedSpaceAnnotation) : nullptr;
  return allowed != nullptr && allowed->IsString() && allowed->AsString() == space;
}

}  // namespace cub::argocd
