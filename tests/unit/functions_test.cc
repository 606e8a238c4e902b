// Tests for lib/functions: the registry, argument binding, and each Kubernetes/YAML function
// over realistic multi-document Units.

#include <catch2/catch.hpp>
#include <chrono>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "lib/config/path.h"
#include "lib/config/yaml.h"
#include "lib/functions/arguments.h"
#include "lib/functions/function.h"
#include "lib/functions/image.h"
#include "lib/functions/names.h"
#include "lib/functions/quantity.h"
#include "lib/functions/registry.h"

namespace cub::functions {
namespace {

using config::Node;

constexpr char kUnit[] = R"(apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  labels:
    app: web
  annotations:
    owner: team-a
spec:
  replicas: 2
  selector:
    matchLabels:
      app: web
  template:
    metadata:
      labels:
        app: web
    spec:
      initContainers:
        - name: migrate
          image: ghcr.io/acme/acme:v451
          args: ["migrate"]
      containers:
        - name: web
          image: ghcr.io/acme/acme:v451
          ports:
            - containerPort: 8080
          env:
            - name: LOG_LEVEL
              value: info
            - name: DB_PASSWORD
              valueFrom:
                secretKeyRef: {name: db, key: password}
          resources:
            requests:
              cpu: 100m
              memory: 128Mi
        - name: proxy
          image: "docker.io/envoyproxy/envoy:v1.29.0"
---
apiVersion: v1
kind: Service
metadata:
  name: web
spec:
  selector:
    app: web
  ports:
    - port: 80
      targetPort: 8080
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: web-config
data:
  mode: production
)";

constexpr char kDigest[] =
    "@sha256:41aa0c3b5e9d7f2a8c6e1b4d0f3a9c7e5b2d8f6a4c1e9b7d3f0a6c8e2b5d9f1a";

std::vector<Node> Parse(std::string_view yaml) {
  absl::StatusOr<std::vector<Node>> docs = config::ParseYaml(yaml);
  INFO(docs.status().ToString());
  REQUIRE(docs.ok());
  return *std::move(docs);
}

const Registry& R() { return Registry::Default(); }

Arguments Args(std::string_view function, std::vector<std::string> args) {
  absl::StatusOr<Arguments> a = R().Parse(function, args);
  INFO(a.status().ToString());
  REQUIRE(a.ok());
  return *std::move(a);
}

SetResult Set(std::string_view yaml, std::string_view function, std::vector<std::string> args) {
  absl::StatusOr<SetResult> r = R().Set(Args(function, std::move(args)), Parse(yaml));
  INFO(r.status().ToString());
  REQUIRE(r.ok());
  REQUIRE(r->changed == !r->mutations.empty());
  return *std::move(r);
}

GetResult Get(std::string_view yaml, std::string_view function, std::vector<std::string> args) {
  absl::StatusOr<GetResult> r = R().Get(Args(function, std::move(args)), Parse(yaml));
  INFO(r.status().ToString());
  REQUIRE(r.ok());
  return *std::move(r);
}

VetResult Vet(std::string_view yaml, std::string_view function,
              std::vector<std::string> args = {}) {
  absl::StatusOr<VetResult> r = R().Vet(Args(function, std::move(args)), Parse(yaml));
  INFO(r.status().ToString());
  REQUIRE(r.ok());
  REQUIRE(r->passed == r->errors.empty());
  return *std::move(r);
}

// The status message of a refused Parse.
std::string ParseError(std::string_view function, std::vector<std::string> args) {
  absl::StatusOr<Arguments> a = R().Parse(function, args);
  REQUIRE(!a.ok());
  CHECK(a.status().code() == absl::StatusCode::kInvalidArgument);
  return std::string(a.status().message());
}

// EmitYaml of `yaml` with each (from, to) replaced once, in order: what a set function that
// changed exactly those values must emit.
std::string Expected(std::string_view yaml,
                     std::vector<std::pair<std::string, std::string>> edits) {
  std::string text = config::EmitYaml(Parse(yaml));
  for (const auto& [from, to] : edits) {
    const size_t at = text.find(from);
    INFO(from);
    REQUIRE(at != std::string::npos);
    text.replace(at, from.size(), to);
  }
  return text;
}

// "resource path old -> new" for each mutation, for compact comparisons.
std::vector<std::string> Summary(const std::vector<Mutation>& mutations) {
  std::vector<std::string> out;
  for (const Mutation& m : mutations) {
    out.push_back(std::to_string(m.document) + " " + m.resource + " " + m.path + " " +
                  (m.old_value.empty() ? "(none)" : m.old_value) + " -> " + m.new_value);
  }
  return out;
}

std::vector<std::string> Summary(const GetResult& r) {
  std::vector<std::string> out;
  for (const FoundValue& v : r.values) {
    out.push_back(std::to_string(v.document) + " " + v.resource + " " + v.path + " " + v.value);
  }
  return out;
}

// ---- Registry, specs, explain --------------------------------------------------------------

TEST_CASE("the registry lists every function, sorted, with signatures") {
  std::vector<std::string> signatures;
  for (const FunctionSpec* spec : R().List("Kubernetes/YAML")) {
    signatures.push_back(spec->Signature());
  }
  CHECK(signatures == std::vector<std::string>{
                          "get-annotation KEY",
                          "get-container-image CONTAINER-NAME",
                          "get-env-var CONTAINER-NAME VAR",
                          "get-label KEY",
                          "get-path PATH [--resource=RESOURCE]",
                          "get-replicas",
                          "set-annotation KEY VALUE",
                          "set-container-image CONTAINER-NAME IMAGE",
                          "set-container-image-reference CONTAINER-NAME IMAGE-REFERENCE",
                          "set-container-resources CONTAINER-NAME [--cpu-request=CPU-REQUEST] "
                          "[--memory-request=MEMORY-REQUEST] [--cpu-limit=CPU-LIMIT] "
                          "[--memory-limit=MEMORY-LIMIT]",
                          "set-env-var CONTAINER-NAME VAR VALUE",
                          "set-image-reference-by-uri REPOSITORY-URI IMAGE-REFERENCE",
                          "set-label KEY VALUE",
                          "set-namespace NAMESPACE",
                          "set-path PATH VALUE [--resource=RESOURCE]",
                          "set-replicas REPLICAS",
                          "vet-cel EXPRESSION",
                          "vet-format",
                          "vet-schemas",
                      });
  CHECK(R().List("").size() == signatures.size());
  CHECK(R().List("AppConfig/Properties").empty());
  for (const FunctionSpec* spec : R().List("")) {
    INFO(spec->name);
    CHECK(spec->toolchain == "Kubernetes/YAML");
    CHECK(!spec->description.empty());
    const bool kind_matches_name =
        spec->name.substr(0, 4) == std::string(FunctionKindName(spec->kind)) + "-";
    CHECK(kind_matches_name);
    bool optional_seen = false;
    for (const ParameterSpec& p : spec->parameters) {
      CHECK(!p.description.empty());
      CHECK(!(p.required && optional_seen));  // required parameters come first
      optional_seen = optional_seen || !p.required;
    }
  }
}

TEST_CASE("Find and Explain") {
  CHECK(R().Find("set-cowbell") == nullptr);
  const FunctionSpec* spec = R().Find("set-image-reference-by-uri");
  REQUIRE(spec != nullptr);
  CHECK(spec->kind == FunctionKind::kSet);
  const std::string text = spec->Explain();
  CHECK(text.rfind("set-image-reference-by-uri REPOSITORY-URI IMAGE-REFERENCE\n\n", 0) == 0);
  CHECK(text.find("Kind: set. Toolchain: Kubernetes/YAML.") != std::string::npos);
  CHECK(text.find("  repository-uri   string, required. The image repository") !=
        std::string::npos);
  CHECK(text.find("  image-reference  image-reference, required. The tag or digest") !=
        std::string::npos);
  CHECK(R().Find("vet-format")->Explain().find("Parameters:") == std::string::npos);
}

TEST_CASE("unknown functions and functions run as the wrong kind are refused") {
  absl::StatusOr<Arguments> a = R().Parse("set-cowbell", {});
  CHECK(a.status().code() == absl::StatusCode::kNotFound);
  CHECK(a.status().message() == "no function named 'set-cowbell'; `cub function list` names them");

  const Arguments get = Args("get-replicas", {});
  absl::StatusOr<SetResult> set = R().Set(get, Parse(kUnit));
  CHECK(set.status().code() == absl::StatusCode::kInvalidArgument);
  CHECK(set.status().message() == "get-replicas is a get function; run it with `cub function get`");
  CHECK(R().Vet(get, {}).status().code() == absl::StatusCode::kInvalidArgument);
  CHECK(!R().Get(Args("vet-format", {}), {}).ok());
}

// ---- Arguments -----------------------------------------------------------------------------

TEST_CASE("arguments bind positionally, by --name=value, --name value and name=value") {
  for (const std::vector<std::string>& form : std::vector<std::vector<std::string>>{
           {"ghcr.io/acme/acme", ":v452"},
           {"--repository-uri=ghcr.io/acme/acme", "--image-reference=:v452"},
           {"--image-reference=:v452", "--repository-uri=ghcr.io/acme/acme"},
           {"--repository-uri", "ghcr.io/acme/acme", "--image-reference", ":v452"},
           {"image-reference=:v452", "ghcr.io/acme/acme"},
           {"--image-reference=:v452", "ghcr.io/acme/acme"},
       }) {
    const Arguments a = Args("set-image-reference-by-uri", form);
    CHECK(a.Text("repository-uri") == "ghcr.io/acme/acme");
    CHECK(a.Text("image-reference") == ":v452");
    CHECK(a.Named() == std::vector<std::pair<std::string, std::string>>{
                           {"repository-uri", "ghcr.io/acme/acme"}, {"image-reference", ":v452"}});
  }
}

TEST_CASE("a bare -- makes the rest positional") {
  Arguments a = Args("set-annotation", {"note", "value=x"});
  CHECK(a.Text("key") == "note");  // value=x bound by name, note positionally
  CHECK(a.Text("value") == "x");
  a = Args("set-annotation", {"--", "note", "value=x"});
  CHECK(a.Text("key") == "note");
  CHECK(a.Text("value") == "value=x");
  a = Args("set-annotation", {"note", "--", "--not-a-flag"});
  CHECK(a.Text("value") == "--not-a-flag");
}

TEST_CASE("typed accessors and optional parameters") {
  const Arguments a = Args("set-replicas", {"3"});
  CHECK(a.Int("replicas") == 3);
  CHECK(a.Has("replicas"));
  const Arguments r = Args("set-container-resources", {"web", "--memory-limit=1Gi"});
  CHECK(r.Has("memory-limit"));
  CHECK(!r.Has("cpu-limit"));
  CHECK(r.Text("cpu-limit").empty());
  CHECK_THROWS_AS(r.Text("no-such"), std::out_of_range);
  // Positional arguments fill the optional parameters in order too.
  const Arguments p = Args("set-container-resources", {"web", "250m", "256Mi"});
  CHECK(p.Text("cpu-request") == "250m");
  CHECK(p.Text("memory-request") == "256Mi");
}

TEST_CASE("wrong, missing and extra arguments are refused with the signature") {
  CHECK(ParseError("set-replicas", {"three"}) ==
        "set-replicas: expected an int for replicas, got 'three'; usage: set-replicas REPLICAS");
  CHECK(ParseError("set-replicas", {}) ==
        "set-replicas: missing REPLICAS; usage: set-replicas "
        "REPLICAS");
  CHECK(ParseError("set-replicas", {"3", "4"}) ==
        "set-replicas: unexpected argument '4'; usage: set-replicas REPLICAS");
  CHECK(ParseError("set-replicas", {"--count=3"}) ==
        "set-replicas: unknown parameter --count; usage: set-replicas REPLICAS");
  CHECK(ParseError("set-replicas", {"3", "replicas=4"}) ==
        "set-replicas: replicas given twice; usage: set-replicas REPLICAS");
  CHECK(ParseError("set-replicas", {"--replicas"}) ==
        "set-replicas: missing value for --replicas; usage: set-replicas REPLICAS");
  CHECK(ParseError("set-env-var", {"web"}) ==
        "set-env-var: missing VAR, VALUE; usage: set-env-var CONTAINER-NAME VAR VALUE");
  CHECK(ParseError("set-image-reference-by-uri", {"ghcr.io/acme/acme", "v452"}) ==
        "set-image-reference-by-uri: expected an image reference (':TAG', '@sha256:DIGEST' or "
        "':TAG@sha256:DIGEST') for image-reference, got 'v452'; usage: "
        "set-image-reference-by-uri REPOSITORY-URI IMAGE-REFERENCE");
  CHECK(ParseError("set-container-resources", {"web", "--cpu-limit=lots"}) ==
        "set-container-resources: expected a quantity (such as 250m, 0.5, 512Mi, 2G) for "
        "cpu-limit, got 'lots'; usage: set-container-resources CONTAINER-NAME "
        "[--cpu-request=CPU-REQUEST] [--memory-request=MEMORY-REQUEST] [--cpu-limit=CPU-LIMIT] "
        "[--memory-limit=MEMORY-LIMIT]");
  CHECK(ParseError("set-label", {"bad key", "x"}).find("expected a key") != std::string::npos);
  CHECK(ParseError("set-label", {"tier", "not valid!"}).find("expected a label value") !=
        std::string::npos);
  CHECK(ParseError("set-namespace", {"Prod"}).find("expected a DNS label") != std::string::npos);
  CHECK(ParseError("set-path", {"spec.replicas", "a\n---\nb"}).find("expected one YAML value") !=
        std::string::npos);
  CHECK(ParseError("get-path", {"a\\x"}).find("expected a dotted path") != std::string::npos);
  CHECK(ParseError("get-path", {"spec", "--resource=a/b/c"}).find("KIND or KIND/NAME") !=
        std::string::npos);
}

TEST_CASE("BindArguments takes arguments by name, as Invocations store them") {
  absl::StatusOr<Arguments> a = R().Bind("set-container-image-reference",
                                         {{"container-name", "acme"}, {"image-reference", ":v9"}});
  REQUIRE(a.ok());
  CHECK(a->Text("container-name") == "acme");
  absl::StatusOr<Arguments> bad = R().Bind("set-container-image-reference", {{"container", "x"}});
  CHECK(bad.status().message() ==
        "set-container-image-reference: unknown parameter --container; usage: "
        "set-container-image-reference CONTAINER-NAME IMAGE-REFERENCE");
  bad = R().Bind("set-container-image-reference", {{"container-name", "x"}});
  CHECK(bad.status().message().find("missing IMAGE-REFERENCE") != absl::string_view::npos);
}

TEST_CASE("CheckArgumentType covers every type") {
  CHECK(!CheckArgumentType("string", ""));
  CHECK(!CheckArgumentType("int", "-12"));
  CHECK(CheckArgumentType("int", "1.5"));
  CHECK(CheckArgumentType("int", " 1"));
  CHECK(!CheckArgumentType("bool", "true"));
  CHECK(CheckArgumentType("bool", "yes") == std::string("a bool (true or false)"));
  CHECK(!CheckArgumentType("enum(Always|Never)", "Never"));
  CHECK(CheckArgumentType("enum(Always|Never)", "Sometimes") == std::string("one of Always|Never"));
  CHECK(!CheckArgumentType("yaml", ""));
  CHECK(!CheckArgumentType("resource", "Deployment"));
  CHECK(!CheckArgumentType("resource", "Deployment/web"));
  CHECK(CheckArgumentType("resource", "/web"));
  CHECK(CheckArgumentType("no-such-type", "x"));
}

// ---- Image names, quantities, Kubernetes names ----------------------------------------------

TEST_CASE("SplitImage and repositories") {
  auto split = [](std::string_view image) {
    const ImageParts p = SplitImage(image);
    return std::string(p.repository) + " | " + std::string(p.reference);
  };
  CHECK(split("ghcr.io/acme/acme:v451") == "ghcr.io/acme/acme | :v451");
  CHECK(split("nginx") == "nginx | ");
  CHECK(split("localhost:5000/app") == "localhost:5000/app | ");
  CHECK(split("localhost:5000/app:1.2") == "localhost:5000/app | :1.2");
  CHECK(split(std::string("repo") + kDigest) == std::string("repo | ") + kDigest);
  CHECK(split(std::string("repo:v1") + kDigest) == std::string("repo | :v1") + kDigest);
  CHECK(NormalizeRepository("nginx") == "docker.io/library/nginx");
  CHECK(NormalizeRepository("index.docker.io/library/nginx") == "docker.io/library/nginx");
  CHECK(NormalizeRepository("envoyproxy/envoy") == "docker.io/envoyproxy/envoy");
  CHECK(NormalizeRepository("localhost/app") == "localhost/app");
  CHECK(SameRepository("nginx", "docker.io/library/nginx"));
  CHECK(!SameRepository("ghcr.io/acme/acme", "ghcr.io/acme/acme-worker"));
  CHECK(IsImageReference(":v452"));
  CHECK(IsImageReference(kDigest));
  CHECK(IsImageReference(std::string(":v452") + kDigest));
  CHECK(!IsImageReference("v452"));
  CHECK(!IsImageReference(":"));
  CHECK(!IsImageReference("@sha256:abc"));
  CHECK(!IsImageReference(":-bad"));
}

TEST_CASE("quantities") {
  for (const char* ok :
       {"100m", "0.5", "1", "512Mi", "1G", "1e3", "1E-2", ".5", "2.", "+1", "1Ki", "250n", "1Ei"}) {
    INFO(ok);
    CHECK(IsQuantity(ok));
  }
  for (const char* bad : {"", "-1", "1x", "Mi", "1 Mi", "1.5.2", "1MiB", "e3", "1e", "."}) {
    INFO(bad);
    CHECK(!IsQuantity(bad));
  }
  CHECK(IsQuantityNode(Node::Int(2)));
  CHECK(IsQuantityNode(Node::Float(0.5)));
  CHECK(!IsQuantityNode(Node::Int(-2)));
  CHECK(!IsQuantityNode(Node::Bool(true)));
}

TEST_CASE("Kubernetes names") {
  CHECK(IsQualifiedName("app.kubernetes.io/name"));
  CHECK(IsQualifiedName("tier"));
  CHECK(!IsQualifiedName("Example.com/x"));
  CHECK(!IsQualifiedName("a/b/c"));
  CHECK(!IsQualifiedName("-x"));
  CHECK(IsLabelValue(""));
  CHECK(IsLabelValue("v1.2_3-x"));
  CHECK(!IsLabelValue(std::string(64, 'a')));
  CHECK(IsDnsLabel("prod-1"));
  CHECK(!IsDnsLabel("Prod"));
  CHECK(!IsDns1035Label("1web"));
  CHECK(IsDnsSubdomain("web.example"));
  CHECK(!IsDnsSubdomain("web..example"));
}

// ---- Image functions ------------------------------------------------------------------------

TEST_CASE("set-image-reference-by-uri sets the tag of every container of that repository") {
  const SetResult r = Set(kUnit, "set-image-reference-by-uri", {"ghcr.io/acme/acme", ":v452"});
  CHECK(r.changed);
  CHECK(r.matched == 2);
  CHECK(Summary(r.mutations) ==
        std::vector<std::string>{
            "0 Deployment/web spec.template.spec.containers.name=web.image "
            "\"ghcr.io/acme/acme:v451\" -> \"ghcr.io/acme/acme:v452\"",
            "0 Deployment/web spec.template.spec.initContainers.name=migrate.image "
            "\"ghcr.io/acme/acme:v451\" -> \"ghcr.io/acme/acme:v452\"",
        });
  // Nothing else changes: document order, key order, quoting, other values.
  CHECK(config::EmitYaml(r.docs) ==
        Expected(kUnit, {{"image: ghcr.io/acme/acme:v451", "image: ghcr.io/acme/acme:v452"},
                         {"image: ghcr.io/acme/acme:v451", "image: ghcr.io/acme/acme:v452"}}));
  CHECK(config::EmitYaml(r.docs).find("image: \"docker.io/envoyproxy/envoy:v1.29.0\"") !=
        std::string::npos);

  // Applying it again changes nothing.
  absl::StatusOr<SetResult> again =
      R().Set(Args("set-image-reference-by-uri", {"ghcr.io/acme/acme", ":v452"}), r.docs);
  REQUIRE(again.ok());
  CHECK(!again->changed);
  CHECK(again->mutations.empty());
  CHECK(again->matched == 2);
  CHECK(again->docs == r.docs);
}

TEST_CASE("set-image-reference-by-uri with digests") {
  const SetResult r = Set(kUnit, "set-image-reference-by-uri", {"ghcr.io/acme/acme", kDigest});
  CHECK(r.mutations.size() == 2);
  CHECK(r.mutations[0].new_value == std::string("\"ghcr.io/acme/acme") + kDigest + "\"");
  // A digest (or tag and digest) already there is replaced whole.
  const std::string pinned = std::string(R"(apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  containers:
    - name: app
      image: ghcr.io/acme/acme:v1)") +
                             kDigest + "\n";
  const SetResult t = Set(pinned, "set-image-reference-by-uri", {"ghcr.io/acme/acme", ":v2"});
  CHECK(Summary(t.mutations) ==
        std::vector<std::string>{std::string("0 Pod/p spec.containers.name=app.image "
                                             "\"ghcr.io/acme/acme:v1") +
                                 kDigest + "\" -> \"ghcr.io/acme/acme:v2\""});
}

TEST_CASE("set-image-reference-by-uri compares repositories as a runtime resolves them") {
  SetResult r = Set(kUnit, "set-image-reference-by-uri", {"envoyproxy/envoy", ":v1.30.0"});
  REQUIRE(r.mutations.size() == 1);
  CHECK(r.mutations[0].path == "spec.template.spec.containers.name=proxy.image");
  // The repository keeps its spelling, and the string its double quotes.
  CHECK(config::EmitYaml(r.docs).find("image: \"docker.io/envoyproxy/envoy:v1.30.0\"") !=
        std::string::npos);
  // A prefix of a repository is another repository.
  r = Set(kUnit, "set-image-reference-by-uri", {"ghcr.io/acme", ":v452"});
  CHECK(!r.changed);
  CHECK(r.matched == 0);
  // A registry port is part of the repository.
  r =
      Set("kind: Pod\nmetadata: {name: p}\nspec: {containers: [{name: a, image: "
          "'localhost:5000/app:1'}]}\n",
          "set-image-reference-by-uri", {"localhost:5000/app", ":2"});
  REQUIRE(r.mutations.size() == 1);
  CHECK(r.mutations[0].new_value == "\"localhost:5000/app:2\"");
}

TEST_CASE("set-image-reference-by-uri refuses a URI with a tag") {
  absl::StatusOr<SetResult> r =
      R().Set(Args("set-image-reference-by-uri", {"ghcr.io/acme/acme:v1", ":v2"}), Parse(kUnit));
  CHECK(r.status().code() == absl::StatusCode::kInvalidArgument);
  CHECK(r.status().message() ==
        "set-image-reference-by-uri: repository-uri must be a repository without a tag or "
        "digest, got 'ghcr.io/acme/acme:v1'; usage: set-image-reference-by-uri REPOSITORY-URI "
        "IMAGE-REFERENCE");
}

constexpr char kCronJob[] = R"(apiVersion: batch/v1
kind: CronJob
metadata:
  name: report
spec:
  schedule: "0 3 * * *"
  jobTemplate:
    spec:
      template:
        spec:
          restartPolicy: OnFailure
          containers:
            - name: report
              image: ghcr.io/acme/report:1.0  # nightly
            - name: uploader
              image: ghcr.io/acme/uploader:1.0
---
apiVersion: example.com/v1
kind: Job
metadata:
  name: not-a-batch-job
spec:
  template:
    spec:
      containers:
        - name: report
          image: ghcr.io/acme/report:1.0
)";

TEST_CASE("set-container-image-reference finds CronJob containers by name") {
  const SetResult r = Set(kCronJob, "set-container-image-reference", {"report", ":1.1"});
  CHECK(r.matched == 1);  // the custom resource named Job is not a workload
  CHECK(Summary(r.mutations) ==
        std::vector<std::string>{"0 CronJob/report "
                                 "spec.jobTemplate.spec.template.spec.containers.name=report.image "
                                 "\"ghcr.io/acme/report:1.0\" -> \"ghcr.io/acme/report:1.1\""});
  const std::string out = config::EmitYaml(r.docs);
  CHECK(out.find("ghcr.io/acme/uploader:1.0") != std::string::npos);
  CHECK(out.find("image: ghcr.io/acme/report:1.1") != std::string::npos);

  const SetResult none = Set(kCronJob, "set-container-image-reference", {"nope", ":2"});
  CHECK(!none.changed);
  CHECK(none.matched == 0);
  // '*' is not a wildcard for set functions.
  CHECK(Set(kCronJob, "set-container-image-reference", {"*", ":2"}).matched == 0);
}

TEST_CASE("set-container-image sets the whole image, adding it where missing") {
  SetResult r = Set(kUnit, "set-container-image", {"proxy", "envoyproxy/envoy:v1.31.0"});
  CHECK(Summary(r.mutations) ==
        std::vector<std::string>{"0 Deployment/web spec.template.spec.containers.name=proxy.image "
                                 "\"docker.io/envoyproxy/envoy:v1.29.0\" -> "
                                 "\"envoyproxy/envoy:v1.31.0\""});
  r = Set("kind: Pod\nmetadata: {name: p}\nspec: {containers: [{name: a}]}\n",
          "set-container-image", {"a", "busybox"});
  CHECK(Summary(r.mutations) ==
        std::vector<std::string>{"0 Pod/p spec.containers.name=a.image (none) -> \"busybox\""});
  absl::StatusOr<SetResult> bad = R().Set(Args("set-container-image", {"a", ":v1"}), Parse(kUnit));
  CHECK(bad.status().code() == absl::StatusCode::kInvalidArgument);
}

TEST_CASE("get-container-image, by name and for every container") {
  CHECK(Summary(Get(kUnit, "get-container-image", {"*"})) ==
        std::vector<std::string>{
            "0 Deployment/web spec.template.spec.containers.name=web.image "
            "\"ghcr.io/acme/acme:v451\"",
            "0 Deployment/web spec.template.spec.containers.name=proxy.image "
            "\"docker.io/envoyproxy/envoy:v1.29.0\"",
            "0 Deployment/web spec.template.spec.initContainers.name=migrate.image "
            "\"ghcr.io/acme/acme:v451\"",
        });
  CHECK(Summary(Get(kUnit, "get-container-image", {"proxy"})).size() == 1);
  CHECK(Get(kCronJob, "get-container-image", {"uploader"}).values.size() == 1);
  CHECK(Get(kUnit, "get-container-image", {"nope"}).values.empty());
}

// ---- Replicas -------------------------------------------------------------------------------

TEST_CASE("set-replicas and get-replicas") {
  SetResult r = Set(kUnit, "set-replicas", {"5"});
  CHECK(r.matched == 1);
  CHECK(Summary(r.mutations) == std::vector<std::string>{"0 Deployment/web spec.replicas 2 -> 5"});
  CHECK(config::EmitYaml(r.docs) == Expected(kUnit, {{"replicas: 2", "replicas: 5"}}));
  CHECK(!Set(kUnit, "set-replicas", {"2"}).changed);
  CHECK(Summary(Get(kUnit, "get-replicas", {})) ==
        std::vector<std::string>{"0 Deployment/web spec.replicas 2"});

  // Added where absent; only the kinds that have replicas.
  r =
      Set("apiVersion: apps/v1\nkind: StatefulSet\nmetadata: {name: db}\nspec: {}\n---\n"
          "apiVersion: apps/v1\nkind: DaemonSet\nmetadata: {name: agent}\nspec: {}\n",
          "set-replicas", {"3"});
  CHECK(Summary(r.mutations) ==
        std::vector<std::string>{"0 StatefulSet/db spec.replicas (none) -> 3"});

  absl::StatusOr<SetResult> bad = R().Set(Args("set-replicas", {"-1"}), Parse(kUnit));
  CHECK(bad.status().message() ==
        "set-replicas: expected a non-negative int32 for replicas, got '-1'; usage: "
        "set-replicas REPLICAS");
}

TEST_CASE("a replaced value keeps its comment") {
  const std::string yaml =
      "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n"
      "  replicas: 2  # keep small in dev\n";
  const SetResult r = Set(yaml, "set-replicas", {"3"});
  CHECK(config::EmitYaml(r.docs) == Expected(yaml, {{"replicas: 2", "replicas: 3"}}));
  CHECK(config::EmitYaml(r.docs).find("# keep small in dev") != std::string::npos);
}

// ---- Environment variables ------------------------------------------------------------------

TEST_CASE("set-env-var changes, appends, and replaces valueFrom") {
  SetResult r = Set(kUnit, "set-env-var", {"web", "LOG_LEVEL", "debug"});
  CHECK(Summary(r.mutations) ==
        std::vector<std::string>{"0 Deployment/web "
                                 "spec.template.spec.containers.name=web.env.name=LOG_LEVEL.value "
                                 "\"info\" -> \"debug\""});
  CHECK(config::EmitYaml(r.docs) == Expected(kUnit, {{"value: info", "value: debug"}}));

  r = Set(kUnit, "set-env-var", {"web", "FEATURE_X", "true"});
  CHECK(Summary(r.mutations) ==
        std::vector<std::string>{"0 Deployment/web "
                                 "spec.template.spec.containers.name=web.env.name=FEATURE_X "
                                 "(none) -> {\"name\":\"FEATURE_X\",\"value\":\"true\"}"});
  const Node* env = config::GetPath(r.docs[0], "spec.template.spec.containers.0.env");
  REQUIRE(env != nullptr);
  REQUIRE(env->size() == 3);  // appended after the existing ones
  CHECK(env->AsSequence()[2].Find("name")->AsString() == "FEATURE_X");
  // "true" stays a string: the writer quotes it.
  CHECK(config::EmitYaml(r.docs).find("value: \"true\"") != std::string::npos);

  r = Set(kUnit, "set-env-var", {"web", "DB_PASSWORD", "hunter2"});
  REQUIRE(r.mutations.size() == 1);
  CHECK(r.mutations[0].path == "spec.template.spec.containers.name=web.env.name=DB_PASSWORD");
  CHECK(r.mutations[0].new_value == "{\"name\":\"DB_PASSWORD\",\"value\":\"hunter2\"}");

  // A container without env gets one; the init container is matched by name too.
  r = Set(kUnit, "set-env-var", {"migrate", "MODE", "once"});
  CHECK(Summary(r.mutations) ==
        std::vector<std::string>{"0 Deployment/web "
                                 "spec.template.spec.initContainers.name=migrate.env.name=MODE "
                                 "(none) -> {\"name\":\"MODE\",\"value\":\"once\"}"});

  CHECK(!Set(kUnit, "set-env-var", {"web", "LOG_LEVEL", "info"}).changed);
}

TEST_CASE("set-env-var refuses an env that is not a list, changing nothing") {
  absl::StatusOr<SetResult> r =
      R().Set(Args("set-env-var", {"a", "X", "1"}),
              Parse("kind: Pod\nmetadata: {name: p}\nspec: {containers: [{name: a, env: {X: "
                    "1}}]}\n"));
  CHECK(r.status().code() == absl::StatusCode::kFailedPrecondition);
  CHECK(r.status().message() ==
        "Pod/p: spec.containers.name=a.env: expected a sequence, got a mapping");
}

TEST_CASE("get-env-var") {
  CHECK(Summary(Get(kUnit, "get-env-var", {"*", "DB_PASSWORD"})) ==
        std::vector<std::string>{
            "0 Deployment/web spec.template.spec.containers.name=web.env.name=DB_PASSWORD."
            "valueFrom {\"secretKeyRef\":{\"name\":\"db\",\"key\":\"password\"}}"});
  CHECK(Summary(Get(kUnit, "get-env-var", {"web", "LOG_LEVEL"})) ==
        std::vector<std::string>{"0 Deployment/web "
                                 "spec.template.spec.containers.name=web.env.name=LOG_LEVEL.value "
                                 "\"info\""});
  CHECK(Get(kUnit, "get-env-var", {"proxy", "LOG_LEVEL"}).values.empty());
}

// ---- Labels, annotations, namespaces --------------------------------------------------------

TEST_CASE("set-label sets metadata.labels of every resource, not pod templates") {
  const SetResult r = Set(kUnit, "set-label", {"tier", "frontend"});
  CHECK(r.matched == 3);
  CHECK(Summary(r.mutations) ==
        std::vector<std::string>{
            "0 Deployment/web metadata.labels.tier (none) -> \"frontend\"",
            "1 Service/web metadata.labels.tier (none) -> \"frontend\"",
            "2 ConfigMap/web-config metadata.labels.tier (none) -> \"frontend\"",
        });
  CHECK(config::GetPath(r.docs[0], "spec.template.metadata.labels.tier") == nullptr);
  // The new key goes last, after the existing ones.
  const Node* labels = config::GetPath(r.docs[0], "metadata.labels");
  CHECK(labels->AsMapping().back().first == "tier");

  CHECK(Summary(Set(kUnit, "set-label", {"app", "web"}).mutations).size() == 2);  // not Deployment
  CHECK(Summary(Get(kUnit, "get-label", {"app"})) ==
        std::vector<std::string>{"0 Deployment/web metadata.labels.app \"web\""});
}

TEST_CASE("label and annotation keys with dots are quoted in paths") {
  const SetResult r = Set(kUnit, "set-annotation", {"example.com/owner", "payments"});
  REQUIRE(r.mutations.size() == 3);
  CHECK(r.mutations[0].path == "metadata.annotations.\"example.com/owner\"");
  const GetResult g = Get(config::EmitYaml(r.docs), "get-annotation", {"example.com/owner"});
  REQUIRE(g.values.size() == 3);
  CHECK(g.values[1].resource == "Service/web");
  CHECK(g.values[1].value == "\"payments\"");
  CHECK(Summary(Get(kUnit, "get-annotation", {"owner"})) ==
        std::vector<std::string>{"0 Deployment/web metadata.annotations.owner \"team-a\""});
}

TEST_CASE("set-namespace leaves cluster-scoped kinds alone") {
  const std::string yaml = std::string(kUnit) + R"(---
apiVersion: v1
kind: Namespace
metadata:
  name: prod
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: reader
rules: []
---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
---
apiVersion: cert-manager.io/v1
kind: ClusterIssuer
metadata:
  name: letsencrypt
---
apiVersion: example.com/v1
kind: Widget
metadata:
  name: w
  namespace: dev
---
just: data
)";
  const SetResult r = Set(yaml, "set-namespace", {"prod"});
  CHECK(Summary(r.mutations) == std::vector<std::string>{
                                    "0 Deployment/web metadata.namespace (none) -> \"prod\"",
                                    "1 Service/web metadata.namespace (none) -> \"prod\"",
                                    "2 ConfigMap/web-config metadata.namespace (none) -> \"prod\"",
                                    "7 Widget/w metadata.namespace \"dev\" -> \"prod\"",
                                });
  CHECK(r.matched == 4);
  // metadata.namespace goes after name, before labels? No: appended at the end of metadata.
  CHECK(r.docs[0].Find("metadata")->AsMapping().back().first == "namespace");
  CHECK(!Set(config::EmitYaml(r.docs), "set-namespace", {"prod"}).changed);
}

// ---- Resources ------------------------------------------------------------------------------

TEST_CASE("set-container-resources") {
  SetResult r =
      Set(kUnit, "set-container-resources", {"web", "--cpu-request=250m", "--memory-limit=512Mi"});
  CHECK(Summary(r.mutations) ==
        std::vector<std::string>{
            "0 Deployment/web spec.template.spec.containers.name=web.resources.requests.cpu "
            "\"100m\" -> \"250m\"",
            "0 Deployment/web spec.template.spec.containers.name=web.resources.limits.memory "
            "(none) -> \"512Mi\"",
        });
  CHECK(config::EmitYaml(r.docs) ==
        Expected(kUnit, {{"cpu: 100m", "cpu: 250m"},
                         {"memory: 128Mi\n",
                          "memory: 128Mi\n            limits:\n              memory: 512Mi\n"}}));
  CHECK(!Set(kUnit, "set-container-resources", {"web", "--memory-request=128Mi"}).changed);

  // A number written unquoted is the same quantity as its text.
  const std::string numeric =
      "kind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n    - name: a\n      resources:\n"
      "        limits: {cpu: 1}\n";
  CHECK(!Set(numeric, "set-container-resources", {"a", "--cpu-limit=1"}).changed);
  CHECK(Set(numeric, "set-container-resources", {"a", "--cpu-limit=1.5"}).changed);

  absl::StatusOr<SetResult> none = R().Set(Args("set-container-resources", {"web"}), Parse(kUnit));
  CHECK(none.status().message().find("set-container-resources: give at least one of "
                                     "--cpu-request, --memory-request, --cpu-limit, "
                                     "--memory-limit; usage: ") == 0);
}

// ---- Paths ----------------------------------------------------------------------------------

TEST_CASE("get-path") {
  CHECK(Summary(Get(kUnit, "get-path", {"metadata.name"})) ==
        std::vector<std::string>{"0 Deployment/web metadata.name \"web\"",
                                 "1 Service/web metadata.name \"web\"",
                                 "2 ConfigMap/web-config metadata.name \"web-config\""});
  CHECK(Summary(Get(kUnit, "get-path", {"spec.ports.0.port", "Service/web"})) ==
        std::vector<std::string>{"1 Service/web spec.ports[0].port 80"});
  CHECK(Summary(Get(kUnit, "get-path", {"metadata.name", "--resource=ConfigMap"})) ==
        std::vector<std::string>{"2 ConfigMap/web-config metadata.name \"web-config\""});
  CHECK(Get(kUnit, "get-path", {"spec.nothing"}).values.empty());
}

TEST_CASE("set-path changes existing paths, and adds them only to a named resource") {
  SetResult r = Set(kUnit, "set-path", {"spec.ports.0.port", "8081"});
  CHECK(Summary(r.mutations) ==
        std::vector<std::string>{"1 Service/web spec.ports[0].port 80 -> 8081"});

  // Without --resource, a path that does not exist is not added anywhere.
  r = Set(kUnit, "set-path", {"spec.minReadySeconds", "10"});
  CHECK(!r.changed);
  CHECK(r.matched == 0);
  r = Set(kUnit, "set-path", {"spec.minReadySeconds", "10", "--resource=Deployment/web"});
  CHECK(Summary(r.mutations) ==
        std::vector<std::string>{"0 Deployment/web spec.minReadySeconds (none) -> 10"});

  // Values are YAML: quoted strings, mappings, lists; plain strings that YAML 1.1 would read
  // as bools are quoted on output.
  r = Set(kUnit, "set-path", {"data.mode", "\"3\""});
  CHECK(r.mutations[0].new_value == "\"3\"");
  r = Set(kUnit, "set-path", {"data.mode", "yes"});
  CHECK(r.mutations[0].new_value == "\"yes\"");
  CHECK(config::EmitYaml(r.docs).find("mode: \"yes\"") != std::string::npos);
  r = Set(kUnit, "set-path", {"data", "{a: x, b: y}"});
  CHECK(r.mutations[0].new_value == "{\"a\":\"x\",\"b\":\"y\"}");
  r = Set(kUnit, "set-path",
          {"metadata.annotations.example\\.com/team", "payments", "--resource=Deployment"});
  CHECK(r.mutations[0].path == "metadata.annotations.\"example.com/team\"");

  absl::StatusOr<SetResult> bad = R().Set(Args("set-path", {"", "1"}), Parse(kUnit));
  CHECK(bad.status().message() ==
        "set-path: path must not be empty; usage: set-path PATH VALUE [--resource=RESOURCE]");
  bad =
      R().Set(Args("set-path", {"spec.ports.3.port", "1", "--resource=Service/web"}), Parse(kUnit));
  CHECK(bad.status().code() == absl::StatusCode::kInvalidArgument);
  CHECK(bad.status().message().find("Service/web: ") == 0);
}

TEST_CASE("mutation paths are merge paths that lib/config reads back") {
  std::vector<Mutation> all;
  for (const auto& [function, args] : std::vector<std::pair<std::string, std::vector<std::string>>>{
           {"set-image-reference-by-uri", {"ghcr.io/acme/acme", ":v2"}},
           {"set-env-var", {"web", "LOG_LEVEL", "x"}},
           {"set-annotation", {"app.kubernetes.io/part-of", "shop"}},
           {"set-path", {"spec.ports.0.port", "81"}},
           {"set-container-resources", {"web", "--cpu-limit=1"}},
       }) {
    for (Mutation& m : Set(kUnit, function, args).mutations) all.push_back(std::move(m));
  }
  REQUIRE(all.size() == 8);
  for (const Mutation& m : all) {
    INFO(m.path);
    absl::StatusOr<config::Path> parsed = config::ParsePath(m.path);
    REQUIRE(parsed.ok());
    CHECK(config::FormatPath(*parsed) == m.path);
  }
}

// ---- Vet ------------------------------------------------------------------------------------

TEST_CASE("vet-format") {
  CHECK(Vet(kUnit, "vet-format").passed);
  const VetResult r = Vet(R"(apiVersion: v1
kind: ConfigMap
metadata: {}
---
kind: Service
metadata: {name: s}
---
apiVersion: v1
kind: ""
metadata: [a]
---
just: data
---
- a list
)",
                          "vet-format");
  CHECK(!r.passed);
  CHECK(r.errors == std::vector<std::string>{
                        "ConfigMap (document 1): metadata.name: missing",
                        "Service/s: apiVersion: missing",
                        "document 3: kind: expected a non-empty string, got string \"\"",
                        "document 3: metadata: expected a mapping, got a sequence",
                        "document 4: apiVersion: missing",
                        "document 4: kind: missing",
                        "document 4: metadata: missing",
                        "document 5: expected a mapping, got a sequence",
                    });
}

TEST_CASE("VetYaml reports text that does not parse as a failure") {
  absl::StatusOr<VetResult> r = R().VetYaml(Args("vet-format", {}), "a: [1\n");
  REQUIRE(r.ok());
  CHECK(!r->passed);
  REQUIRE(r->errors.size() == 1);
  CHECK(r->errors[0].rfind("yaml: line ", 0) == 0);
  r = R().VetYaml(Args("vet-schemas", {}), kUnit);
  REQUIRE(r.ok());
  CHECK(r->passed);
}

TEST_CASE("vet-schemas passes good resources") {
  const VetResult r = Vet(std::string(kUnit) + std::string("---\n") + kCronJob, "vet-schemas");
  INFO(r.errors.size());
  for (const std::string& e : r.errors) UNSCOPED_INFO(e);
  CHECK(r.passed);
}

TEST_CASE("vet-schemas names the resource and path of each failure") {
  const VetResult r = Vet(R"(apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  labels: {app: web, "bad key": x, tier: true}
spec:
  replicas: two
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: other}
    spec:
      containers:
        - name: web
          ports:
            - containerPort: 70000
              protocol: tcp
          env:
            - value: x
          resources:
            limits: {cpu: lots, memory: 1Gi}
        - name: web
          image: ""
          imagePullPolicy: Sometimes
---
apiVersion: v1
kind: Service
metadata:
  name: Web
spec:
  type: Magic
  ports:
    - targetPort: 8080
    - port: 443
      name: https
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: cfg
data:
  replicas: 3
  ok: "3"
---
apiVersion: batch/v1
kind: Job
metadata:
  name: once
spec:
  template:
    spec:
      restartPolicy: Always
      containers: []
---
apiVersion: v1
kind: Secret
metadata: {name: s}
data:
  password: not*base64
---
apiVersion: v1
kind: Namespace
metadata:
  name: Prod
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db}
spec:
  replicas: -1
)",
                          "vet-schemas");
  CHECK(!r.passed);
  CHECK(r.errors ==
        std::vector<std::string>{
            "Deployment/web: metadata.labels.\"bad key\": invalid key (expected [PREFIX/]NAME, "
            "NAME up to 63 of A-Z a-z 0-9 - _ .)",
            "Deployment/web: metadata.labels.tier: expected a string, got bool true",
            "Deployment/web: spec.replicas: expected an integer, got string \"two\"",
            "Deployment/web: spec.template.metadata.labels: does not match "
            "spec.selector.matchLabels: needs app=web",
            "Deployment/web: spec.template.spec.containers.name=web.image: missing required field",
            "Deployment/web: spec.template.spec.containers.name=web.ports[0].containerPort: "
            "expected an integer from 1 to 65535, got int 70000",
            "Deployment/web: spec.template.spec.containers.name=web.ports[0].protocol: expected "
            "one of TCP, UDP, SCTP, got string \"tcp\"",
            "Deployment/web: spec.template.spec.containers.name=web.env[0].name: missing "
            "required field",
            "Deployment/web: spec.template.spec.containers.name=web.resources.limits.cpu: "
            "expected a quantity (such as 250m, 0.5, 512Mi), got string \"lots\"",
            "Deployment/web: spec.template.spec.containers[1].name: duplicate container name "
            "\"web\"",
            "Deployment/web: spec.template.spec.containers.name=web.image: expected a non-empty "
            "string, got string \"\"",
            "Deployment/web: spec.template.spec.containers.name=web.imagePullPolicy: expected "
            "one of Always, IfNotPresent, Never, got string \"Sometimes\"",
            "Service/Web: metadata.name: \"Web\" is not a DNS-1035 label (up to 63 of a-z 0-9 -, "
            "starting with a letter)",
            "Service/Web: spec.type: expected one of ClusterIP, NodePort, LoadBalancer, "
            "ExternalName, got string \"Magic\"",
            "Service/Web: spec.ports[0].port: missing required field",
            "Service/Web: spec.ports[0].name: required when a Service has more than one port",
            "ConfigMap/cfg: data.replicas: expected a string, got int 3",
            "Job/once: spec.template.spec.containers: expected at least one container",
            "Job/once: spec.template.spec.restartPolicy: expected one of OnFailure, Never, got "
            "string \"Always\"",
            "Secret/s: data.password: expected base64 data",
            "Namespace/Prod: metadata.name: \"Prod\" is not a DNS label (up to 63 of a-z 0-9 -, "
            "alphanumeric at both ends)",
            "StatefulSet/db: spec.replicas: expected a non-negative integer, got int -1",
            "StatefulSet/db: spec.selector: missing required field",
            "StatefulSet/db: spec.template: missing required field",
        });
}

TEST_CASE("vet-schemas leaves unknown kinds' specs alone but checks their metadata") {
  const VetResult r = Vet(R"(apiVersion: example.com/v1
kind: Deployment
metadata: {name: Custom_Name, labels: {a: b}}
spec: {replicas: lots}
---
plain: document
)",
                          "vet-schemas");
  CHECK(r.errors == std::vector<std::string>{
                        "document 2: not a Kubernetes resource (no kind)",
                    });
}

TEST_CASE("vet-cel evaluates an expression over each resource as r") {
  CHECK(
      Vet(kUnit, "vet-cel", {"has(r.metadata.name) && r.metadata.name.startsWith('web')"}).passed);
  VetResult r = Vet(kUnit, "vet-cel", {"r.kind != 'Deployment' || r.spec.replicas >= 3"});
  CHECK(r.errors ==
        std::vector<std::string>{"Deployment/web: 'r.kind != 'Deployment' || r.spec.replicas >= "
                                 "3' is false"});
  // A field missing from a resource is an evaluation error, reported for that resource.
  r = Vet(kUnit, "vet-cel", {"r.spec.replicas <= 10"});
  REQUIRE(r.errors.size() == 2);
  CHECK(r.errors[0].rfind("Service/web: cel: evaluated to error: ", 0) == 0);
  CHECK(r.errors[0].find("replicas") != std::string::npos);
  CHECK(r.errors[1].rfind("ConfigMap/web-config: cel: evaluated to error: ", 0) == 0);
  // Containers are lists of maps; documents without kind are skipped.
  CHECK(Vet(std::string(kUnit) + "---\njust: data\n", "vet-cel",
            {"r.kind != 'Deployment' || r.spec.template.spec.containers.all(c, "
             "c.image.contains(':'))"})
            .passed);
  // Expressions are compiled when the arguments are bound.
  CHECK(ParseError("vet-cel", {"r.spec.replicas +"})
            .rfind("vet-cel: expected a bool CEL expression over r (cel: 1:", 0) == 0);
  CHECK(ParseError("vet-cel", {"1 + 2"}).find("must be bool") != std::string::npos);
  CHECK(ParseError("vet-cel", {"x.y"}).find("undeclared reference to 'x'") != std::string::npos);
}

// ---- Performance ----------------------------------------------------------------------------

// Hidden (run with `functions_test [perf]`): prints the cost of one set over a parsed
// Deployment of about 470 bytes, excluding parsing, which the caller does once per Unit.
TEST_CASE("set-image-reference-by-uri on a parsed Deployment takes microseconds", "[.][perf]") {
  const std::string deployment = R"(apiVersion: apps/v1
kind: Deployment
metadata:
  name: acme
  namespace: prod
  labels:
    app: acme
spec:
  replicas: 3
  selector:
    matchLabels:
      app: acme
  template:
    metadata:
      labels:
        app: acme
    spec:
      containers:
        - name: acme
          image: ghcr.io/acme/acme:v451
          env:
            - name: LOG_LEVEL
              value: info
          resources:
            requests:
              cpu: 100m
              memory: 128Mi
)";
  std::printf("Deployment: %zu bytes\n", deployment.size());
  const std::vector<Node> docs = Parse(deployment);
  const Arguments args = Args("set-image-reference-by-uri", {"ghcr.io/acme/acme", ":v452"});
  constexpr int kRuns = 200000;
  using Clock = std::chrono::steady_clock;
  size_t changed = 0;

  // Copy + set (the Unit's parsed documents are reused, so each run gets a copy).
  auto start = Clock::now();
  for (int i = 0; i < kRuns; ++i) {
    absl::StatusOr<SetResult> r = R().Set(args, docs);
    changed += r->changed;
  }
  const double with_copy =
      std::chrono::duration<double, std::micro>(Clock::now() - start).count() / kRuns;

  // The copy alone.
  start = Clock::now();
  for (int i = 0; i < kRuns; ++i) {
    std::vector<Node> copy = docs;
    changed += copy.size();
  }
  const double copy_only =
      std::chrono::duration<double, std::micro>(Clock::now() - start).count() / kRuns;

  // Set on documents moved in and back out, no copy: alternating tags so each run edits.
  std::vector<Node> owned = docs;
  const Arguments back = Args("set-image-reference-by-uri", {"ghcr.io/acme/acme", ":v451"});
  start = Clock::now();
  for (int i = 0; i < kRuns; ++i) {
    absl::StatusOr<SetResult> r = R().Set(i % 2 == 0 ? args : back, std::move(owned));
    changed += r->changed;
    owned = std::move(r->docs);
  }
  const double in_place =
      std::chrono::duration<double, std::micro>(Clock::now() - start).count() / kRuns;

  // Argument parsing, done once per invocation.
  start = Clock::now();
  for (int i = 0; i < kRuns; ++i) {
    changed += R().Parse("set-image-reference-by-uri", {"ghcr.io/acme/acme", ":v452"}).ok();
  }
  const double parse =
      std::chrono::duration<double, std::micro>(Clock::now() - start).count() / kRuns;

  std::printf(
      "set-image-reference-by-uri: %.2f us per set on moved documents; %.2f us with a copy "
      "of the documents (copy alone %.2f us); argument parsing %.2f us (%zu)\n",
      in_place, with_copy, copy_only, parse, changed);
}

}  // namespace
}  // namespace cub::functions
