// Tests for lib/targets/argocd_files: the argocd/ manifest and the opt-in rule's plan, without
// a repository (the Git provider's use of it is tested end to end in tests/e2e/argocd_test.sh).

#include "lib/targets/argocd_files.h"

#include <catch2/catch.hpp>
#include <map>
#include <string>

#include "lib/argocd/application.h"

namespace cub::targets::internal {
namespace {

argocd::Settings TwoClusters() {
  argocd::Settings s;
  s.clusters = {{"prod", "https://prod:6443"}, {"dev", "https://dev:6443"}};
  return s;
}

SpaceApplications AppsOf(const std::string& space, const argocd::Settings& s) {
  return {space, "rel-" + space,
          argocd::RenderAll(space, 1, s, argocd::GitSource("/r", space, "main"))};
}

std::string File(const std::string& space, const std::string& cluster) {
  return argocd::ApplicationName(space, cluster) + ".yaml";
}

TEST_CASE("The argocd/ manifest reads back what it wrote and ignores junk") {
  const std::map<std::string, std::string> owned = {{"cub-a-1.yaml", "a"}, {"cub-b-2.yaml", "b"}};
  CHECK(ParseArgoManifest(ArgoManifestContent(owned)) == owned);
  CHECK(ParseArgoManifest("# c\ncub-a.yaml a\n../x.yaml a\nnoext a\n.hidden.yaml a\n"
                          "cub-b.yaml\ncub-c.yaml c d\nsub/x.yaml a\n") ==
        std::map<std::string, std::string>{{"cub-a.yaml", "a"}});
}

TEST_CASE("A fresh directory gets every Application and a manifest") {
  const ArgoPlan plan = PlanArgoDirectory({}, {AppsOf("web", TwoClusters())},
                                          [](const std::string&) { return std::string(); });
  CHECK(plan.writes.size() == 2);
  CHECK(plan.writes.count(File("web", "prod")) == 1);
  CHECK(plan.removes.empty());
  CHECK(plan.held.empty());
  REQUIRE(plan.manifest.has_value());
  CHECK(ParseArgoManifest(*plan.manifest).size() == 2);
}

TEST_CASE("The opt-in rule holds a foreign Application unless it names the Space") {
  ArgoDirectory now;
  const std::string prod = File("web", "prod");
  now.files = {prod, "readme.yaml"};
  std::string content = "metadata:\n  name: x\n";
  auto read = [&](const std::string& f) {
    CHECK(f == prod);  // only the foreign file in the way is read
    return content;
  };
  ArgoPlan plan = PlanArgoDirectory(now, {AppsOf("web", TwoClusters())}, read);
  CHECK(plan.writes.count(prod) == 0);
  CHECK(plan.writes.count(File("web", "dev")) == 1);
  REQUIRE(plan.held.count("rel-web") == 1);
  CHECK(plan.held.at("rel-web").count("prod") == 1);
  CHECK(plan.held.at("rel-web").at("prod").find("cub.dev/allowed-space: web") != std::string::npos);
  CHECK(ParseArgoManifest(*plan.manifest).count(prod) == 0);

  content = "metadata:\n  annotations:\n    cub.dev/allowed-space: shop\n";
  CHECK(PlanArgoDirectory(now, {AppsOf("web", TwoClusters())}, read).held.size() == 1);

  content = "metadata:\n  annotations:\n    cub.dev/allowed-space: web\n";
  plan = PlanArgoDirectory(now, {AppsOf("web", TwoClusters())}, read);
  CHECK(plan.held.empty());
  CHECK(plan.writes.count(prod) == 1);
  CHECK(ParseArgoManifest(*plan.manifest).at(prod) == "web");
  CHECK(plan.removes.empty());  // readme.yaml is not cub's

  // A directory in the way holds the cluster too.
  ArgoDirectory dir;
  dir.subtrees = {prod};
  CHECK(PlanArgoDirectory(dir, {AppsOf("web", TwoClusters())}, read).held.size() == 1);
}

TEST_CASE("A Space's dropped cluster loses its file; other Spaces' files stay") {
  ArgoDirectory now;
  const std::map<std::string, std::string> owned = {
      {File("web", "prod"), "web"}, {File("web", "dev"), "web"}, {File("shop", "dev"), "shop"}};
  for (const auto& [f, s] : owned) now.files.insert(f);
  now.manifest = ArgoManifestContent(owned);
  argocd::Settings one;
  one.clusters = {{"prod", "https://prod:6443"}};
  auto read = [](const std::string& f) -> std::string {
    FAIL("read " << f);  // every file in the way is cub's
    return "";
  };
  ArgoPlan plan = PlanArgoDirectory(now, {AppsOf("web", one)}, read);
  CHECK(plan.removes == std::set<std::string>{File("web", "dev")});
  CHECK(plan.writes.count(File("web", "prod")) == 1);
  const auto after = ParseArgoManifest(*plan.manifest);
  CHECK(after.size() == 2);
  CHECK(after.at(File("shop", "dev")) == "shop");

  // No clusters at all: the Space's Applications go, and with the last one the manifest.
  plan = PlanArgoDirectory(now, {{"web", "rel-web", {}}, {"shop", "rel-shop", {}}}, read);
  CHECK(plan.removes.size() == 3);
  CHECK_FALSE(plan.manifest.has_value());
}

}  // namespace
}  // namespace cub::targets::internal
