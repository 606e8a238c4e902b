// Unit tests for lib/ops/release_files and the bundle digest of lib/ops/release_records: each
// toolchain's extension, and a digest that names the files (so a Unit delivered as .txt is not
// the same bundle as one delivered as .yaml) but not the order they were listed in.
#include "lib/ops/release_files.h"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "lib/ops/release_records.h"

namespace cub::ops {
namespace {

TEST_CASE("each toolchain gets its extension", "[release_files]") {
  CHECK(BundleFileName("web", "Kubernetes/YAML") == "web.yaml");
  CHECK(BundleFileName("settings", "AppConfig/Text") == "settings.txt");
  CHECK(BundleFileName("app", "AppConfig/Properties") == "app.properties");
  CHECK(BundleFileName("app", "AppConfig/TOML") == "app.toml");
  CHECK(BundleFileName("app", "AppConfig/INI") == "app.ini");
  CHECK(BundleFileName("app", "AppConfig/Env") == "app.env");
  // What every file was named before extensions varied.
  CHECK(BundleFileName("other", "Something/Else") == "other.yaml");
}

TEST_CASE("the bundle digest names the files, not their order", "[release_files]") {
  std::vector<targets::BundleFile> a = {{"web.yaml", "kind: Deployment\n"},
                                        {"settings.txt", "color=blue\n"}};
  std::vector<targets::BundleFile> b = {a[1], a[0]};
  CHECK(BundleDigest(a) == BundleDigest(b));
  CHECK(BundleDigest(a).rfind("sha256:", 0) == 0);
  CHECK(BundleDigest(a).size() == 7 + 64);
  std::vector<targets::BundleFile> renamed = {{"web.yaml", "kind: Deployment\n"},
                                              {"settings.yaml", "color=blue\n"}};
  CHECK(BundleDigest(a) != BundleDigest(renamed));
}

}  // namespace
}  // namespace cub::ops
