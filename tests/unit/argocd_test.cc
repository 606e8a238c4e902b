// Tests for lib/argocd: Application names and their hashes, the params, the opt-in check, and
// every rendered Application (Git and OCI sources, several clusters, hostile Space names)
// validated against Argo CD's own Application CRD schema (tests/testdata/argocd, checked by
// tests/harness/argocd_schema_check.py with python3-jsonschema).

#include <catch2/catch.hpp>
#include <cstdlib>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "harness/scratch_dir.h"
#include "lib/argocd/application.h"
#include "lib/config/yaml.h"
#include "lib/targets/provider.h"

namespace cub::argocd {
namespace {

bool IsDnsLabel(const std::string& s) {
  if (s.empty() || s.size() > 63 || s.front() == '-' || s.back() == '-') return false;
  for (char c : s) {
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-')) return false;
  }
  return true;
}

std::string SourceDir() {
  const char* d = std::getenv("CUB_SOURCE_DIR");
  return d != nullptr ? d : ".";
}

TEST_CASE("Application names are DNS labels that keep (space, cluster) pairs apart") {
  CHECK(ApplicationName("web", "prod").rfind("cub-web-", 0) == 0);
  CHECK(ApplicationName("web", "prod").size() == 4 + 3 + 1 + 10);
  CHECK(ApplicationName("web", "prod") == ApplicationName("web", "prod"));
  // Hyphens would join these if names were concatenated.
  CHECK(ApplicationName("a-b", "c") != ApplicationName("a", "b-c"));
  // Spaces that differ only where the name is made a DNS label.
  CHECK(ApplicationName("a-b", "c") != ApplicationName("a_b", "c"));
  CHECK(ApplicationName("A.b", "c") != ApplicationName("a-b", "c"));
  const std::string long_space(128, 'x');
  CHECK(ApplicationName(long_space, "c") != ApplicationName(long_space + "y", "c"));
  for (const std::string& space :
       {std::string("web"), std::string("Web_App.v2"), long_space,
        std::string("a-------------------------------------------------b"), std::string("_"),
        std::string("9")}) {
    const std::string name = ApplicationName(space, "prod-eu-1");
    INFO(space << " -> " << name);
    CHECK(IsDnsLabel(name));
  }
  CHECK(ApplicationName("_", "c").rfind("cub-", 0) == 0);
}

TEST_CASE("SpaceNamespace makes a DNS label of any Space name") {
  CHECK(SpaceNamespace("web") == "web");
  CHECK(SpaceNamespace("Web_App.v2") == "web-app-v2");
  CHECK(SpaceNamespace("_x_") == "x");
  CHECK(SpaceNamespace("___") == "default");
  CHECK(SpaceNamespace(std::string(100, 'a')).size() == 63);
}

TEST_CASE("Argo CD params are checked and read") {
  using M = std::map<std::string, std::string>;
  CHECK(ValidateParams("Git", M{}).ok());
  CHECK(
      ValidateParams("Git", M{{"clusters", "prod=https://prod.example:6443,dev=http://127.0.0.1:1"},
                              {"namespace", "web"},
                              {"project", "team-a.apps"}})
          .ok());
  auto refused = [](const M& m) {
    absl::Status s = ValidateParams("Git", m);
    INFO(s.message());
    CHECK(s.code() == absl::StatusCode::kInvalidArgument);
    CHECK(s.message().find("Git target: param '") == 0);
    return std::string(s.message());
  };
  CHECK(refused({{"clusters", ""}}).find("empty") != std::string::npos);
  CHECK(refused({{"clusters", "prod"}}).find("'prod' is not NAME=API-URL") != std::string::npos);
  CHECK(refused({{"clusters", "Prod=https://x"}}).find("cluster name 'Prod'") != std::string::npos);
  CHECK(refused({{"clusters", "prod=ftp://x"}}).find("API URL 'ftp://x'") != std::string::npos);
  CHECK(refused({{"clusters", "prod=https://"}}).find("names no host") != std::string::npos);
  CHECK(refused({{"clusters", "prod=https://a b"}}).find("space, comma") != std::string::npos);
  CHECK(refused({{"clusters", "prod=https://a\"b"}}).find("quote") != std::string::npos);
  CHECK(refused({{"clusters", "p=https://a,p=https://b"}}).find("more than once") !=
        std::string::npos);
  CHECK(refused({{"clusters", "p=https://a"}, {"namespace", "Web"}}).find("'namespace'") !=
        std::string::npos);
  CHECK(refused({{"clusters", "p=https://a"}, {"project", "a..b"}}).find("'project'") !=
        std::string::npos);
  CHECK(refused({{"namespace", "web"}}).find("need param 'clusters'") != std::string::npos);

  CHECK(!SettingsOf(M{}).has_value());
  auto s = SettingsOf(M{{"clusters", "prod=https://p:6443,dev=https://d"}, {"project", "x"}});
  REQUIRE(s.has_value());
  REQUIRE(s->clusters.size() == 2);
  CHECK(s->clusters[0].name == "prod");
  CHECK(s->clusters[0].server == "https://p:6443");
  CHECK(s->clusters[1].name == "dev");
  CHECK(s->project == "x");
  CHECK(s->namespace_name.empty());
}

TEST_CASE("Git and OCI Targets take the Argo CD params; Directory Targets do not") {
  using M = std::map<std::string, std::string>;
  const std::string clusters = "prod=https://prod.example:6443";
  CHECK(targets::ValidateParams("Git", M{{"repository", "/srv/d"},
                                         {"clusters", clusters},
                                         {"namespace", "web"},
                                         {"project", "p"}})
            .ok());
  absl::Status s =
      targets::ValidateParams("Git", M{{"repository", "/srv/d"}, {"clusters", "prod=x"}});
  CHECK(s.message().find("Git target: param 'clusters'") == 0);
  s = targets::ValidateParams("OCI", M{{"repository", "r.example/p"}, {"clusters", "prod=x"}});
  CHECK(s.code() == absl::StatusCode::kInvalidArgument);
  CHECK(s.message().find("OCI target: param 'clusters'") == 0);
  s = targets::ValidateParams("OCI", M{{"repository", "r.example/p"}, {"namespace", "web"}});
  CHECK(s.message().find("need param 'clusters'") != std::string::npos);
  s = targets::ValidateParams("Directory", M{{"path", "/srv/d"}, {"clusters", clusters}});
  CHECK(s.message().find("unknown param 'clusters'") != std::string::npos);
}

TEST_CASE("A rendered Application says what the issue asks") {
  Settings settings;
  settings.clusters = {{"prod", "https://prod.example:6443"}};
  const Application app =
      Render("web", 7, settings.clusters[0], settings,
             OciSource("registry.example:5000/cub/web", "sha256:" + std::string(64, 'b')));
  CHECK(app.namespace_name == "web");
  auto docs = config::ParseYaml(ApplicationYaml(app));
  REQUIRE(docs.ok());
  REQUIRE(docs->size() == 1);
  CHECK((*docs)[0] == app.manifest);
  const config::Node& m = app.manifest;
  CHECK(m.Find("kind")->AsString() == "Application");
  CHECK(m.Find("metadata")->Find("name")->AsString() == app.name);
  CHECK(m.Find("metadata")->Find("namespace")->AsString() == "argocd");
  CHECK(m.Find("metadata")->Find("labels")->Find("cub.dev/space")->AsString() == "web");
  CHECK(m.Find("metadata")->Find("annotations")->Find("cub.dev/allowed-space")->AsString() ==
        "web");
  const config::Node& spec = *m.Find("spec");
  CHECK(spec.Find("project")->AsString() == "default");
  CHECK(spec.Find("source")->Find("repoURL")->AsString() == "oci://registry.example:5000/cub/web");
  CHECK(spec.Find("source")->Find("path")->AsString() == ".");
  CHECK(spec.Find("source")->Find("targetRevision")->AsString() ==
        "sha256:" + std::string(64, 'b'));
  CHECK(spec.Find("destination")->Find("server")->AsString() == "https://prod.example:6443");
  CHECK(spec.Find("syncPolicy")->Find("automated")->Find("prune")->AsBool());
  CHECK(spec.Find("syncPolicy")->Find("automated")->Find("selfHeal")->AsBool());
  CHECK(spec.Find("syncPolicy")->Find("syncOptions")->size() == 2);
  CHECK(ApplicationJson(app).find("\"ServerSideApply=true\",\"CreateNamespace=true\"") !=
        std::string::npos);

  const Source git = GitSource("/srv/deploy.git", "spaces/web", std::string(40, 'c'));
  CHECK(git.repo_url == "file:///srv/deploy.git");
  CHECK(GitSource("https://git.example/d.git", "web", "main").repo_url ==
        "https://git.example/d.git");
}

TEST_CASE("AllowsSpace reads the opt-in annotation") {
  const std::string yes =
      "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata:\n  name: x\n"
      "  annotations:\n    cub.dev/allowed-space: web\n";
  CHECK(AllowsSpace(yes, "web"));
  CHECK_FALSE(AllowsSpace(yes, "web2"));
  CHECK_FALSE(AllowsSpace("metadata:\n  name: x\n", "web"));
  CHECK_FALSE(AllowsSpace("metadata: [\n", "web"));
  CHECK_FALSE(AllowsSpace(yes + "---\n" + yes, "web"));
  CHECK_FALSE(AllowsSpace("metadata:\n  annotations:\n    cub.dev/allowed-space: [web]\n", "web"));
}

TEST_CASE("Every rendered Application validates against Argo CD's Application CRD") {
  testing::ScratchDir dir("cub-argocd-test");
  Settings several;
  several.clusters = {{"prod", "https://prod.example:6443"},
                      {"dev", "http://127.0.0.1:8443"},
                      {"in-cluster", "https://kubernetes.default.svc"}};
  Settings custom = several;
  custom.namespace_name = "team-web";
  custom.project = "team-a.apps";
  const std::vector<std::string> spaces = {
      "web",          "Web_App.v2", std::string(128, 'q'), "a-b", "a", "x.y_z-", "9lives",
      "with:colon?no"  // not a valid Space name; rendered all the same
  };
  std::vector<std::string> files;
  std::set<std::string> names;
  int n = 0;
  for (const std::string& space : spaces) {
    for (const Settings* settings : {&several, &custom}) {
      for (const Source& source :
           {OciSource("127.0.0.1:5000/cub/" + SpaceNamespace(space),
                      "sha256:" + std::string(64, 'e')),
            GitSource("/srv/deploy", space, std::string(40, 'f')),
            GitSource("ssh://git@git.example/deploy.git", "clusters/" + space, "main")}) {
        for (const Application& app : RenderAll(space, n % 3, *settings, source)) {
          names.insert(app.name);
          const std::string path = dir.path() + "/app" + std::to_string(n++) + ".yaml";
          std::ofstream(path) << ApplicationYaml(app);
          files.push_back(path);
        }
      }
    }
  }
  // One name per (space, cluster), whatever the settings and source.
  CHECK(names.size() == spaces.size() * several.clusters.size());
  std::string cmd = "python3 " + SourceDir() + "/tests/harness/argocd_schema_check.py " +
                    SourceDir() + "/tests/testdata/argocd/application-crd.yaml";
  for (const std::string& f : files) cmd += " " + f;
  const testing::CommandResult r = testing::RunCommand(cmd + " 2>&1");
  INFO(r.out);
  CHECK(r.status == 0);
  CHECK(r.out.find(std::to_string(files.size()) + " Application(s) checked, 0 problem(s)") !=
        std::string::npos);

  // The checker is not a rubber stamp: a misspelt field and a bad name fail.
  std::ofstream(dir.path() + "/bad.yaml")
      << "apiVersion: argoproj.io/v1alpha1\nkind: Application\n"
         "metadata: {name: Bad_Name, namespace: argocd}\n"
         "spec:\n  project: default\n  destination: {server: 'https://x'}\n"
         "  source: {repoUrl: 'https://x', path: .}\n";
  const testing::CommandResult bad = testing::RunCommand(
      "python3 " + SourceDir() + "/tests/harness/argocd_schema_check.py " + SourceDir() +
      "/tests/testdata/argocd/application-crd.yaml " + dir.path() + "/bad.yaml 2>&1");
  INFO(bad.out);
  CHECK(bad.status == 1);
  CHECK(bad.out.find("repoUrl") != std::string::npos);
  CHECK(bad.out.find("Bad_Name") != std::string::npos);
}

}  // namespace
}  // namespace cub::argocd
