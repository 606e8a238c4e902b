// libFuzzer target for the Link definition reader (lib/links/definition.h, through
// lib/workflow/strict_read.h): the input is a YAML or JSON Link definition. ParseDefinition
// must never crash and refuses only with InvalidArgument; whatever it accepts is validated for
// every update type (refusals InvalidArgument), and a valid TransformPaths definition is run as
// a resolve would run it, over the spec's registrybot Unit and a Deployment: ReadValues,
// ApplySetters, then ApplySetters again over its own output (which must succeed, and change
// nothing when there is a single setter), and SetterPaths, whose paths must all parse.
//
// Build and run with tests/fuzz/run.sh (see docs/operations.md, "Fuzzing"). Seeds, and inputs
// that once failed, are in tests/fuzz/corpus/link.

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "lib/config/yaml.h"
#include "lib/links/definition.h"
#include "lib/links/transform.h"
#include "lib/links/validate.h"
#include "tests/fuzz/check_property.h"

namespace {

namespace links = cub::links;
using cub::config::Node;

constexpr char kUpstream[] = R"(configHub:
  configSchema: registrybot.confighub.com/v1alpha4
  configName: acme
repository: ghcr.io/acme/acme
streams:
  stable:
    tag: v453
    digest: sha256:41aa0c3b5e9d7f2a8c6e1b4d0f3a9c7e5b2d8f6a4c1e9b7d3f0a6c8e2b5d9f1a
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: upstream
spec:
  replicas: 3
)";

constexpr char kDownstream[] = R"(apiVersion: apps/v1
kind: Deployment
metadata:
  name: acme
  namespace: prod
spec:
  replicas: 2
  template:
    spec:
      containers:
        - name: acme
          image: ghcr.io/acme/acme:v452
        - name: sidecar
          image: ghcr.io/acme/sidecar:v1
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
data:
  mode: fast
)";

std::vector<Node> Parsed(const char* yaml) {
  absl::StatusOr<std::vector<Node>> docs = cub::config::ParseYaml(yaml);
  CHECK_PROPERTY(docs.ok());
  return *std::move(docs);
}

const std::vector<Node>& Upstream() {
  static const std::vector<Node>* docs = new std::vector<Node>(Parsed(kUpstream));
  return *docs;
}

const std::vector<Node>& Downstream() {
  static const std::vector<Node>* docs = new std::vector<Node>(Parsed(kDownstream));
  return *docs;
}

void Resolve(const links::Definition& def) {
  absl::StatusOr<links::Values> values = links::ReadValues(def, Upstream());
  if (!values.ok()) return;
  absl::StatusOr<links::TransformResult> r = links::ApplySetters(def, *values, Downstream());
  if (!r.ok()) return;
  absl::StatusOr<links::TransformResult> again = links::ApplySetters(def, *values, r->docs);
  CHECK_PROPERTY(again.ok());
  if (def.setters.size() == 1) CHECK_PROPERTY(!again->changed);
  absl::StatusOr<std::vector<std::string>> paths = links::SetterPaths(def, *values, Downstream());
  CHECK_PROPERTY(paths.ok());
  CHECK_PROPERTY(paths->size() == r->mutations.size());
}

void Check(const links::Definition& def) {
  for (const char* type : {"TransformPaths", "UpgradeUnit", "MergeUnits", "Insert", "Upsert"}) {
    for (const char* toolchain : {"Kubernetes/YAML", "AppConfig/Properties"}) {
      absl::Status s = links::ValidateDefinition(type, def, toolchain);
      if (!s.ok()) {
        CHECK_PROPERTY(s.code() == absl::StatusCode::kInvalidArgument);
        continue;
      }
      if (std::string_view(type) == "TransformPaths" &&
          std::string_view(toolchain) == "Kubernetes/YAML") {
        Resolve(def);
      }
    }
  }
  if (def.update_type) {
    absl::Status s = links::ValidateDefinition(*def.update_type, def, "Kubernetes/YAML");
    if (!s.ok()) CHECK_PROPERTY(s.code() == absl::StatusCode::kInvalidArgument);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  links::ParseOptions skip;
  skip.skip_fields = {"LinkID", "Slug", "SpaceID", "FromUnitID", "ToUnitID"};
  for (const links::ParseOptions& options : {links::ParseOptions(), skip}) {
    absl::StatusOr<links::Definition> def = links::ParseDefinition(text, options);
    if (!def.ok()) {
      CHECK_PROPERTY(def.status().code() == absl::StatusCode::kInvalidArgument);
      continue;
    }
    Check(*def);
  }
  return 0;
}
