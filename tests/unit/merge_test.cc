// Tests for the upgrade engine in lib/config: merge paths (ParsePath/FormatPath), comments kept
// by ParseYaml/EmitYaml, Diff/ComputeChange, protection and the 3-way merge (Apply).

#include "lib/config/merge.h"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "lib/config/diff.h"
#include "lib/config/documents.h"
#include "lib/config/json.h"
#include "lib/config/merge_keys.h"
#include "lib/config/path.h"
#include "lib/config/protection.h"
#include "lib/config/yaml.h"

namespace Catch {
template <>
struct StringMaker<cub::config::Node> {
  static std::string convert(const cub::config::Node& n) { return cub::config::EmitJson(n, false); }
};
}  // namespace Catch

namespace cub::config {
namespace {

std::vector<Node> MustParse(const std::string& yaml) {
  absl::StatusOr<std::vector<Node>> docs = ParseYaml(yaml);
  INFO(yaml);
  REQUIRE(docs.ok());
  return *std::move(docs);
}

Node Yaml(const std::string& yaml) {
  std::vector<Node> docs = MustParse(yaml);
  REQUIRE(docs.size() == 1);
  return docs[0];
}

Protection MustProtect(const std::vector<std::string>& paths) {
  absl::StatusOr<Protection> p = Protection::Parse(paths);
  REQUIRE(p.ok());
  return *std::move(p);
}

// The base revision (the Link's merge cursor) of an upstream Unit: a Deployment and a Service.
constexpr char kBase[] = R"(apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: shop
  labels:
    app: web
spec:
  replicas: 3
  selector:
    matchLabels:
      app: web
  template:
    metadata:
      labels:
        app: web
    spec:
      containers:
        - name: web
          image: nginx:1.25.3
          args: ["--port", "8080"]
          ports:
            - containerPort: 8080
              name: http
          env:
            - name: LOG_LEVEL
              value: info
            - name: WORKERS
              value: "4"
          resources:
            limits:
              cpu: 500m
              memory: 128Mi
---
apiVersion: v1
kind: Service
metadata:
  name: web
  namespace: shop
spec:
  selector:
    app: web
  ports:
    - name: http
      port: 80
      targetPort: 8080
)";

// A downstream variant: its own replicas, an env var of its own, comments, and a reordered
// metadata block.
constexpr char kDownstream[] = R"(# prod variant of web
apiVersion: apps/v1
kind: Deployment
metadata:
  namespace: shop
  name: web
  labels:
    app: web
    team: storefront  # owned by the storefront team
spec:
  replicas: 10  # prod traffic
  selector:
    matchLabels:
      app: web
  template:
    metadata:
      labels:
        app: web
    spec:
      containers:
        # the main container
        - name: web
          image: nginx:1.25.3
          args: ["--port", "8080"]
          ports:
            - containerPort: 8080
              name: http
          env:
            - name: LOG_LEVEL
              value: info
            - name: WORKERS
              value: "4"
            # prod only
            - name: REGION
              value: eu-west-1
          resources:
            limits:
              cpu: 500m
              memory: 128Mi
---
apiVersion: v1
kind: Service
metadata:
  name: web
  namespace: shop
spec:
  selector:
    app: web
  ports:
    - name: http
      port: 80
      targetPort: 8080
)";

// `base` with each (from, to) text replacement applied, to build upstream revisions.
std::string Edit(std::string text, const std::vector<std::pair<std::string, std::string>>& edits) {
  for (const auto& [from, to] : edits) {
    const size_t at = text.find(from);
    INFO(from);
    REQUIRE(at != std::string::npos);
    text.replace(at, from.size(), to);
  }
  return text;
}

const Node& At(const std::vector<Node>& docs, size_t doc, const std::string& path) {
  const Node* n = GetPath(docs[doc], path);
  INFO(path);
  REQUIRE(n != nullptr);
  return *n;
}

// Applies `change` twice: the second application must change nothing, override nothing and
// report the same conflicts.
MergeResult ApplyChecked(const Change& change, const std::vector<Node>& downstream,
                         const Protection& protection = Protection()) {
  MergeResult first = Apply(change, downstream, protection);
  MergeResult again = Apply(change, first.documents, protection);
  CHECK(again.documents == first.documents);
  CHECK(EmitYaml(again.documents) == EmitYaml(first.documents));
  CHECK_FALSE(again.changed);
  CHECK(again.overrides.empty());
  REQUIRE(again.conflicts.size() == first.conflicts.size());
  for (size_t i = 0; i < first.conflicts.size(); ++i) {
    CHECK(again.conflicts[i].path == first.conflicts[i].path);
    CHECK(again.conflicts[i].reason == first.conflicts[i].reason);
  }
  return first;
}

// ---- Paths ----

TEST_CASE("ParsePath reads keys, selectors, indexes, quotes and document prefixes", "[path]") {
  absl::StatusOr<Path> p = ParsePath("spec.template.spec.containers.name=web.image");
  REQUIRE(p.ok());
  CHECK_FALSE(p->document.has_value());
  REQUIRE(p->segments.size() == 6);
  CHECK(p->segments[4] == PathSegment::Selector("name", "web"));
  CHECK(p->segments[5] == PathSegment::Key("image"));

  p = ParsePath(R"(metadata.annotations."app.kubernetes.io/name")");
  REQUIRE(p.ok());
  CHECK(p->segments.back() == PathSegment::Key("app.kubernetes.io/name"));
  // The dotted-path escape works too.
  p = ParsePath(R"(metadata.annotations.app\.kubernetes\.io/name)");
  REQUIRE(p.ok());
  CHECK(p->segments.back() == PathSegment::Key("app.kubernetes.io/name"));

  p = ParsePath("spec.containers[0].args[12]");
  REQUIRE(p.ok());
  REQUIRE(p->segments.size() == 5);
  CHECK(p->segments[2] == PathSegment::Index(0));
  CHECK(p->segments[4] == PathSegment::Index(12));

  p = ParsePath("apps/v1/Deployment/prod/web:spec.replicas");
  REQUIRE(p.ok());
  REQUIRE(p->document.has_value());
  CHECK(p->document->api_version == "apps/v1");
  CHECK(p->document->kind == "Deployment");
  CHECK(p->document->namespace_name == "prod");
  CHECK(p->document->name == "web");
  CHECK(p->segments.size() == 2);

  p = ParsePath("v1/Namespace//prod:");
  REQUIRE(p.ok());
  CHECK(p->document->api_version == "v1");
  CHECK(p->document->namespace_name.empty());
  CHECK(p->segments.empty());

  p = ParsePath("[2]:data.key");
  REQUIRE(p.ok());
  CHECK(p->document->ordinal == std::optional<size_t>(2));

  p = ParsePath("**.metadata.labels.*");
  REQUIRE(p.ok());
  CHECK(p->segments[0].kind == PathSegment::Kind::kAnyDepth);
  CHECK(p->segments[3].kind == PathSegment::Kind::kAny);
  CHECK(p->HasWildcard());
  p = ParsePath(R"(a."*")");
  REQUIRE(p.ok());
  CHECK(p->segments[1] == PathSegment::Key("*"));
  CHECK_FALSE(p->HasWildcard());

  CHECK(ParsePath("")->segments.empty());
}

TEST_CASE("ParsePath rejects malformed paths with InvalidArgument", "[path]") {
  for (const char* bad :
       {"a..b", "a.", ".a", "a[x]", "a[1", "a]", "a[0]b", "\"open", "a\\", "x=", "=x", "a:b:c",
        "v1/Kind/name:a", "a/b/c/d/e/f:x", "a\"b\"", "[1]x:a", "a[99999999999999999999999]"}) {
    INFO(bad);
    absl::StatusOr<Path> p = ParsePath(bad);
    REQUIRE_FALSE(p.ok());
    CHECK(p.status().code() == absl::StatusCode::kInvalidArgument);
  }
}

TEST_CASE("FormatPath writes what ParsePath reads back", "[path]") {
  for (const char* text : {
           "spec.replicas",
           "spec.template.spec.containers.name=web.image",
           "spec.template.spec.containers.name=web.ports.containerPort=8080",
           R"(metadata.annotations."app.kubernetes.io/name")",
           R"(data."key with spaces"."a\"quote".".")",
           R"(a."*"."**"."x=y"."")",
           "spec.containers[0].args[1]",
           "[0]",
           "apps/v1/Deployment/prod/web:spec.replicas",
           "v1/Namespace//prod:",
           R"("a/b/c"/K/"ns:x"/"[n]":k)",
           "*/Deployment/*/*:spec.replicas",
           "[3]:data",
           "**.metadata.labels.team",
           R"(env.name="A.B".value)",
       }) {
    INFO(text);
    absl::StatusOr<Path> p = ParsePath(text);
    REQUIRE(p.ok());
    const std::string formatted = FormatPath(*p);
    INFO(formatted);
    absl::StatusOr<Path> back = ParsePath(formatted);
    REQUIRE(back.ok());
    CHECK(*back == *p);
    CHECK(FormatPath(*back) == formatted);
  }
  // Canonical spellings.
  CHECK(FormatPath(*ParsePath(R"(metadata.annotations.app\.kubernetes\.io/name)")) ==
        R"(metadata.annotations."app.kubernetes.io/name")");
  Path p;
  p.document = DocumentRef{"apps/v1", "Deployment", "prod", "web", std::nullopt};
  p.segments = {PathSegment::Key("spec"), PathSegment::Key("containers"),
                PathSegment::Selector("name", "web"), PathSegment::Key("image")};
  CHECK(FormatPath(p) == "apps/v1/Deployment/prod/web:spec.containers.name=web.image");
}

TEST_CASE("DocumentRefs use the Kubernetes identity, else an ordinal", "[documents]") {
  std::vector<Node> docs = MustParse(
      "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, namespace: ns}\n---\n"
      "just: data\n---\n"
      "apiVersion: v1\nkind: Namespace\nmetadata: {name: ns}\n---\n"
      "- a list\n");
  std::vector<DocumentRef> refs = DocumentRefs(docs);
  REQUIRE(refs.size() == 4);
  CHECK(refs[0].kind == "ConfigMap");
  CHECK(refs[0].namespace_name == "ns");
  CHECK(refs[1].ordinal == std::optional<size_t>(0));
  CHECK(refs[2].namespace_name.empty());
  CHECK(refs[3].ordinal == std::optional<size_t>(1));
  CHECK(DocumentMatches(ParsePath("*/ConfigMap/*/a:")->document.value(), refs[0]));
  CHECK(DocumentMatches(ParsePath("v1/*/ns/*:")->document.value(), refs[0]));
  CHECK_FALSE(DocumentMatches(ParsePath("apps/*/ns/a:")->document.value(), refs[0]));
  CHECK(DocumentMatches(ParsePath("[1]:")->document.value(), refs[3]));
}

TEST_CASE("Merge keys follow the Kubernetes lists", "[merge_keys]") {
  Node containers = Yaml("[{name: a, image: x}, {name: b}]");
  CHECK(ListMergeKey("containers", &containers, nullptr) == std::optional<std::string>("name"));
  Node ports = Yaml("[{containerPort: 80, name: http}, {containerPort: 443}]");
  CHECK(ListMergeKey("ports", &ports, nullptr) == std::optional<std::string>("containerPort"));
  // The same containerPort twice (TCP and UDP): fall back to the names.
  Node dns = Yaml("[{containerPort: 53, name: tcp}, {containerPort: 53, name: udp}]");
  CHECK(ListMergeKey("ports", &dns, nullptr) == std::optional<std::string>("name"));
  Node service = Yaml("[{port: 80, targetPort: 8080}]");
  CHECK(ListMergeKey("ports", &service, nullptr) == std::optional<std::string>("port"));
  Node mounts = Yaml("[{name: v, mountPath: /a}, {name: v, mountPath: /b}]");
  CHECK(ListMergeKey("volumeMounts", &mounts, nullptr) == std::optional<std::string>("mountPath"));
  Node unnamed = Yaml("[{image: x}]");
  CHECK_FALSE(ListMergeKey("containers", &unnamed, nullptr).has_value());
  Node tolerations = Yaml("[{key: a, operator: Exists}]");
  CHECK_FALSE(ListMergeKey("tolerations", &tolerations, nullptr).has_value());
  Node env_from = Yaml("[{configMapRef: {name: a}}]");
  CHECK_FALSE(ListMergeKey("envFrom", &env_from, nullptr).has_value());
}

// ---- Comments ----

TEST_CASE("ParseYaml keeps comments and EmitYaml writes them back", "[comments]") {
  const std::string yaml = R"(# head of the document
apiVersion: apps/v1 # the group
kind: Deployment
metadata: # about metadata
  # above name
  name: web
spec:
  containers:
    # the main container
    - name: web # its name
      args: # flow list
        - "a"
      command: | # a block scalar
        run # not a comment
    - # an item comment
      name: side
  replicas: 3
# foot of the document
---
# second document
a: 1
)";
  std::vector<Node> docs = MustParse(yaml);
  REQUIRE(docs.size() == 2);
  REQUIRE(docs[0].comments() != nullptr);
  CHECK(docs[0].comments()->head == "# head of the document");
  CHECK(docs[0].comments()->foot == "# foot of the document");
  CHECK(At(docs, 0, "apiVersion").comments()->line == "# the group");
  CHECK(At(docs, 0, "metadata").comments()->line == "# about metadata");
  CHECK(At(docs, 0, "metadata.name").comments()->head == "# above name");
  CHECK(At(docs, 0, "spec.containers.0").comments()->head == "# the main container");
  CHECK(At(docs, 0, "spec.containers.0.name").comments()->line == "# its name");
  CHECK(At(docs, 0, "spec.containers.0.command").AsString() == "run # not a comment\n");
  CHECK(At(docs, 0, "spec.containers.0.command").comments()->line == "# a block scalar");
  CHECK(At(docs, 0, "spec.containers.1").comments()->line == "# an item comment");
  CHECK(docs[1].comments()->head == "# second document");

  // Written back as they were read (this text is already in EmitYaml's layout).
  CHECK(EmitYaml(docs) == yaml);

  // Comments are never part of equality or hashes.
  const std::string bare = "apiVersion: apps/v1\nkind: Deployment\n";
  CHECK(MustParse("# c\napiVersion: apps/v1 # x\nkind: Deployment\n") == MustParse(bare));
  CHECK(*DataHash("# c\napiVersion: apps/v1 # x\nkind: Deployment\n") == *DataHash(bare));
  CHECK(CanonicalJson(MustParse("a: 1 # c\n")) == CanonicalJson(MustParse("a: 1\n")));

  // A comment after a root scalar, and after "---".
  docs = MustParse("--- # on the marker\ntext # after text\n---\n[a, b] # after flow\n");
  REQUIRE(docs.size() == 2);
  CHECK(docs[0].comments()->line == "# on the marker # after text");
  CHECK(docs[1].comments()->line == "# after flow");
  CHECK(EmitYaml(docs) == "text # on the marker # after text\n---\n# after flow\n- a\n- b\n");
}

TEST_CASE("Comments in flow style, odd places and hand-set text stay comments", "[comments]") {
  std::vector<Node> docs = MustParse(
      "a: [1, 2] # after flow\n"
      "b: {x: 1, # after x\n"
      "    y: 2}\n"
      "c: # empty value\n"
      "d: 'q # not' # real\n"
      "e: &anchor v # anchored\n");
  CHECK(At(docs, 0, "a").comments()->line == "# after flow");
  CHECK(At(docs, 0, "b.x").comments()->line == "# after x");
  CHECK(At(docs, 0, "c").comments()->line == "# empty value");
  CHECK(At(docs, 0, "d").AsString() == "q # not");
  CHECK(At(docs, 0, "d").comments()->line == "# real");
  CHECK(At(docs, 0, "e").comments()->line == "# anchored");
  const std::string emitted = EmitYaml(docs);
  CHECK(MustParse(emitted) == docs);
  CHECK(EmitYaml(MustParse(emitted)) == emitted);

  // Comments below "key: # c" or "- # c" belong to the first entry or item, and stay there.
  const std::string nested =
      "a: # on a\n  # above x\n  x: 1\nb:\n  - # on the item\n    # above the inner item\n"
      "    - 1\n";
  docs = MustParse(nested);
  CHECK(At(docs, 0, "a").comments()->line == "# on a");
  CHECK(At(docs, 0, "a.x").comments()->head == "# above x");
  CHECK(At(docs, 0, "b.0").comments()->line == "# on the item");
  CHECK(At(docs, 0, "b.0.0").comments()->head == "# above the inner item");
  CHECK(EmitYaml(docs) == nested);

  // Text that is not a comment, or could end a line, is made safe.
  Node n = Node::Map();
  Node& v = n.Set("k", Node::String("v"));
  v.set_comments(Comments{"no hash\nsecond", "line\nbreak\u2028x", ""});
  n.Set("k2", Node::String("w")).set_comments(Comments{"", "# ends in NEL\u0085", ""});
  const std::string out = EmitYaml({n});
  CHECK(out == "# no hash\n# second\nk: v # line break x\nk2: w # ends in NEL\n");
  CHECK(MustParse(out) == std::vector<Node>{n});
  CHECK(EmitYaml(MustParse(out)) == out);
}

TEST_CASE("Single-quoted scalars read as YAML 1.2 says", "[yaml]") {
  // libfyaml 0.7.12 gets these wrong (and leaks on runs of ''); ParseYaml reads them itself.
  CHECK(Yaml("a: 'a''''b'").Find("a")->AsString() == "a''b");
  CHECK(Yaml("a: 'it''s'").Find("a")->AsString() == "it's");
  CHECK(Yaml("'a\n'").AsString() == "a ");
  CHECK(Yaml("' 1st non-empty\n\n 2nd non-empty \n\t3rd non-empty '").AsString() ==
        " 1st non-empty\n2nd non-empty 3rd non-empty ");
  CHECK(Yaml("k: 'x\r\n  y'").Find("k")->AsString() == "x y");
  CHECK(Yaml("k: ''").Find("k")->AsString().empty());
}

TEST_CASE("Block scalars read as YAML 1.2 says", "[yaml]") {
  // libfyaml 0.7.12 misreads these layouts (dropping the last line break, taking a comment
  // below for content, or returning uninitialised bytes); ParseYaml reads them itself.
  CHECK(Yaml("k:\n |\n a\n  b\n").Find("k")->AsString() == "a\n b\n");
  CHECK(Yaml("k:\n >-\n a\n b c\n   b c\nz: 1\n").Find("k")->AsString() == "a b c\n  b c");
  CHECK(Yaml("k:\n |+\n #h\n  b c\n\n").Find("k")->AsString() == "#h\n b c\n\n");
  CHECK(Yaml("a:\n  k: |\n  # a comment, not content\n").Find("a")->Find("k")->AsString().empty());
  CHECK(Yaml("--- >-\n\n #h\n\n  x y z\n").AsString() == "\n#h\n\n x y z");
  CHECK(Yaml("k: >\n  folded\n  text\n\n  next\n").Find("k")->AsString() == "folded text\nnext\n");
  CHECK(Yaml("k: |2-\n    indented\n  x\n").Find("k")->AsString() == "  indented\nx");
  CHECK(Yaml("- |\n  a\r\n  b\r\n").AsSequence()[0].AsString() == "a\nb\n");
  // Content in column 0 of a document-level block scalar is refused, as other readers do.
  absl::StatusOr<std::vector<Node>> docs = ParseYaml("--- |\nab\n c\n");
  REQUIRE_FALSE(docs.ok());
  CHECK(docs.status().message().find("yaml: line 2, column 1: unsupported block scalar layout") ==
        0);
  CHECK(Yaml("--- |\n ab\n  c\n").AsString() == "ab\n c\n");
}

TEST_CASE("A block scalar's header is the first indicator, not one in its comment or a key",
          "[yaml]") {
  // Found by merge_fuzz: "- |- # |" was read with the comment's '|', keeping the line break
  // that "|-" strips, so EmitYaml's output of "a\na" with that comment read back as "a\na\n".
  CHECK(Yaml("- |- # |\n  a\n  a\n").AsSequence()[0].AsString() == "a\na");
  CHECK(Yaml("k: >- # a > b\n  x\n  y\n").Find("k")->AsString() == "x y");
  CHECK(Yaml("k: |+ # >\n  x\n\n").Find("k")->AsString() == "x\n\n");
  // A '|' or '>' in a quoted key, before a comment, is not the header either.
  CHECK(Yaml("'a | # b': |-\n  x\n").Find("a | # b")->AsString() == "x");
  CHECK(Yaml("\"a > \\\" #\": |-\n  x\n").Find("a > \" #")->AsString() == "x");
  CHECK(Yaml("'it''s | #': |-\n  x\n").Find("it's | #")->AsString() == "x");
  // A quote inside a plain key does not open a quoted scalar.
  CHECK(Yaml("it's: |-\n  x\n").Find("it's")->AsString() == "x");
  const std::vector<Node> docs = MustParse("- |- # |\n  a\n  a\n");
  CHECK(EmitYaml(docs) == "- |- # |\n  a\n  a\n");
  CHECK(MustParse(EmitYaml(docs)) == docs);
}

TEST_CASE("Set and SetPath keep the replaced value's comments", "[comments]") {
  Node doc = Yaml("image: nginx:1.25 # pinned\nreplicas: 2 # prod\n");
  doc.Set("image", Node::String("nginx:1.26"));
  REQUIRE(SetPath(doc, "replicas", Node::Int(3)).ok());
  CHECK(EmitYaml({doc}) == "image: nginx:1.26 # pinned\nreplicas: 3 # prod\n");
}

// ---- Diff ----

TEST_CASE("Diff lists mutations with merge paths", "[diff]") {
  const std::vector<Node> base = MustParse(kBase);
  const std::vector<Node> next =
      MustParse(Edit(kBase,
                     {
                         {"nginx:1.25.3", "nginx:1.26.0"},
                         {"            - name: WORKERS\n"
                          "              value: \"4\"\n",
                          ""},
                         {"  replicas: 3\n", ""},
                         {"args: [\"--port\", \"8080\"]", "args: [\"--port\", \"9090\"]"},
                     }) +
                "---\napiVersion: v1\nkind: ConfigMap\n"
                "metadata: {name: extra, namespace: shop}\n");
  std::vector<Mutation> m = Diff(base, next);
  REQUIRE(m.size() == 5);
  const std::string d = "apps/v1/Deployment/shop/web:";
  CHECK(m[0].path == d + "spec.template.spec.containers.name=web.image");
  CHECK(m[0].kind == MutationKind::kReplace);
  CHECK(m[0].old_value.AsString() == "nginx:1.25.3");
  CHECK(m[0].new_value.AsString() == "nginx:1.26.0");
  CHECK(m[1].path == d + "spec.template.spec.containers.name=web.args");
  CHECK(m[1].kind == MutationKind::kReplace);
  CHECK(m[2].path == d + "spec.template.spec.containers.name=web.env.name=WORKERS");
  CHECK(m[2].kind == MutationKind::kRemove);
  CHECK(m[2].old_value == Yaml("{name: WORKERS, value: \"4\"}"));
  CHECK(m[3].path == d + "spec.replicas");
  CHECK(m[3].kind == MutationKind::kRemove);
  CHECK(m[4].path == "v1/ConfigMap/shop/extra:");
  CHECK(m[4].kind == MutationKind::kAdd);
  CHECK(std::string(MutationKindName(m[4].kind)) == "Add");

  CHECK(Diff(base, base).empty());
  CHECK(ComputeChange(base, MustParse(kDownstream)).documents().size() == 1);
  // Reordering keys or keyed items, and formatting, is no change.
  CHECK(Diff(MustParse("a: 1\nb: [{name: x}, {name: y}]\nenv: [{name: x}, {name: y}]\n"),
             MustParse("env: [{name: y}, {name: x}]\nb: [{name: x}, {name: y}]\na: 1\n"))
            .empty());
  // A non-Kubernetes document is named by its ordinal.
  m = Diff(MustParse("x: 1\n"), MustParse("x: 2\n"));
  REQUIRE(m.size() == 1);
  CHECK(m[0].path == "[0]:x");
}

// ---- Merge ----

TEST_CASE("An upstream image bump merges into a downstream with its own edits", "[merge]") {
  const std::string end = Edit(kBase, {{"nginx:1.25.3", "nginx:1.26.0"}});
  const Change change = ComputeChange(MustParse(kBase), MustParse(end));
  MergeResult r = ApplyChecked(change, MustParse(kDownstream));
  CHECK(r.changed);
  CHECK(r.conflicts.empty());
  CHECK(r.overrides.empty());
  REQUIRE(r.documents.size() == 2);
  CHECK(At(r.documents, 0, "spec.template.spec.containers.0.image").AsString() == "nginx:1.26.0");
  CHECK(At(r.documents, 0, "spec.replicas").AsInt() == 10);
  CHECK(At(r.documents, 0, "metadata.labels.team").AsString() == "storefront");
  // Only the image line differs from the downstream text: key order and comments are kept.
  const std::string expected =
      Edit(EmitYaml(MustParse(kDownstream)), {{"image: nginx:1.25.3", "image: nginx:1.26.0"}});
  CHECK(EmitYaml(r.documents) == expected);
  CHECK(expected.find("# prod variant of web\napiVersion: apps/v1\n") == 0);
  CHECK(expected.find("metadata:\n  namespace: shop\n  name: web\n") != std::string::npos);
  CHECK(expected.find("replicas: 10 # prod traffic\n") != std::string::npos);
  CHECK(expected.find("    # the main container\n        - name: web\n") != std::string::npos);
  CHECK(expected.find("            # prod only\n            - name: REGION\n") !=
        std::string::npos);
}

TEST_CASE("Env vars and containers added on both sides all survive", "[merge]") {
  const std::string end = Edit(kBase,
                               {
                                   {"            - name: WORKERS\n"
                                    "              value: \"4\"\n",
                                    "            - name: WORKERS\n"
                                    "              value: \"4\"\n"
                                    "            - name: FEATURE_X\n"
                                    "              value: \"on\"\n"},
                                   {"          resources:\n",
                                    "          volumeMounts:\n"
                                    "            - name: cache\n"
                                    "              mountPath: /cache\n"
                                    "          resources:\n"},
                               }) +
                          "";
  std::string with_sidecar = Edit(end, {{"---\napiVersion: v1\nkind: Service",
                                         "        - name: proxy # added upstream\n"
                                         "          image: envoy:1.29\n"
                                         "---\napiVersion: v1\nkind: Service"}});
  const Change change = ComputeChange(MustParse(kBase), MustParse(with_sidecar));
  MergeResult r = ApplyChecked(change, MustParse(kDownstream));
  CHECK(r.conflicts.empty());
  const Node& env = At(r.documents, 0, "spec.template.spec.containers.0.env");
  REQUIRE(env.size() == 4);
  // FEATURE_X goes right after WORKERS, its upstream predecessor; REGION stays.
  CHECK(env.AsSequence()[2].Find("name")->AsString() == "FEATURE_X");
  CHECK(env.AsSequence()[3].Find("name")->AsString() == "REGION");
  // volumeMounts goes after env, where upstream put it.
  const Node& web = At(r.documents, 0, "spec.template.spec.containers.0");
  CHECK(web.AsMapping()[4].first == "env");
  CHECK(web.AsMapping()[5].first == "volumeMounts");
  const Node& containers = At(r.documents, 0, "spec.template.spec.containers");
  REQUIRE(containers.size() == 2);
  CHECK(containers.AsSequence()[1].Find("name")->AsString() == "proxy");
  CHECK(EmitYaml(r.documents).find("        - name: proxy # added upstream\n") !=
        std::string::npos);
}

TEST_CASE("Both sides changed a scalar: upstream wins and the override is reported", "[merge]") {
  const Change change =
      ComputeChange(MustParse(kBase), MustParse(Edit(kBase, {{"value: info", "value: warn"}})));
  MergeResult r =
      ApplyChecked(change, MustParse(Edit(kDownstream, {{"value: info", "value: debug"}})));
  CHECK(r.conflicts.empty());
  REQUIRE(r.overrides.size() == 1);
  CHECK(r.overrides[0].path ==
        "apps/v1/Deployment/shop/web:spec.template.spec.containers.name=web.env.name=LOG_LEVEL."
        "value");
  CHECK(r.overrides[0].downstream.AsString() == "debug");
  CHECK(r.overrides[0].upstream.AsString() == "warn");
  CHECK(At(r.documents, 0, "spec.template.spec.containers.0.env.0.value").AsString() == "warn");
}

TEST_CASE("Protected paths hold the downstream value and report the upstream one", "[merge]") {
  const std::string end = Edit(kBase, {{"replicas: 3", "replicas: 4"},
                                       {"nginx:1.25.3", "nginx:1.26.0"},
                                       {"cpu: 500m", "cpu: 750m"}});
  const Change change = ComputeChange(MustParse(kBase), MustParse(end));
  const std::vector<Node> downstream = MustParse(kDownstream);

  SECTION("a plain path, edited downstream or not") {
    MergeResult r = ApplyChecked(change, downstream, MustProtect({"spec.replicas"}));
    REQUIRE(r.conflicts.size() == 1);
    CHECK(r.conflicts[0].path == "apps/v1/Deployment/shop/web:spec.replicas");
    CHECK(r.conflicts[0].reason == ConflictReason::kProtectedPath);
    CHECK(std::string(ConflictReasonName(r.conflicts[0].reason)) == "ProtectedPath");
    CHECK(r.conflicts[0].UpstreamJson() == "4");
    CHECK(r.conflicts[0].downstream == std::optional<Node>(Node::Int(10)));
    CHECK(At(r.documents, 0, "spec.replicas").AsInt() == 10);
    CHECK(At(r.documents, 0, "spec.template.spec.containers.0.image").AsString() == "nginx:1.26.0");
    CHECK(r.overrides.empty());  // replicas was held, so nothing was overridden

    // Unedited downstream: held all the same.
    MergeResult same = ApplyChecked(change, MustParse(kBase), MustProtect({"spec.replicas"}));
    REQUIRE(same.conflicts.size() == 1);
    CHECK(At(same.documents, 0, "spec.replicas").AsInt() == 3);
  }
  SECTION("a selector path, a subtree and a document-qualified wildcard") {
    MergeResult r = ApplyChecked(
        change, downstream,
        MustProtect({"spec.template.spec.containers.name=web.image",
                     "*/Deployment/shop/*:spec.template.spec.containers.*.resources"}));
    REQUIRE(r.conflicts.size() == 2);
    CHECK(r.conflicts[0].path ==
          "apps/v1/Deployment/shop/web:spec.template.spec.containers.name=web.image");
    CHECK(r.conflicts[0].UpstreamJson() == "\"nginx:1.26.0\"");
    CHECK(r.conflicts[1].path ==
          "apps/v1/Deployment/shop/web:spec.template.spec.containers.name=web.resources.limits."
          "cpu");
    CHECK(At(r.documents, 0, "spec.template.spec.containers.0.image").AsString() == "nginx:1.25.3");
    CHECK(At(r.documents, 0, "spec.replicas").AsInt() == 4);  // upstream won there
    REQUIRE(r.overrides.size() == 1);
    CHECK(r.overrides[0].path == "apps/v1/Deployment/shop/web:spec.replicas");
  }
  SECTION("a pattern for another document holds nothing here") {
    MergeResult r =
        ApplyChecked(change, downstream, MustProtect({"v1/Service/shop/web:spec.replicas"}));
    CHECK(r.conflicts.empty());
  }
  SECTION("removing or replacing an enclosing value is held too") {
    const Change remove_container = ComputeChange(
        MustParse(kBase),
        MustParse(Edit(kBase, {{"args: [\"--port\", \"8080\"]", "args: [\"--port\", \"9090\"]"}})));
    MergeResult r = ApplyChecked(remove_container, MustParse(kBase),
                                 MustProtect({"spec.template.spec.containers.name=web.args[1]"}));
    REQUIRE(r.conflicts.size() == 1);
    CHECK(r.conflicts[0].path ==
          "apps/v1/Deployment/shop/web:spec.template.spec.containers.name=web.args");
    // A protected path the atomic list change leaves alone does not hold it.
    r = ApplyChecked(remove_container, MustParse(kBase),
                     MustProtect({"spec.template.spec.containers.name=web.args[0]"}));
    CHECK(r.conflicts.empty());
    CHECK(At(r.documents, 0, "spec.template.spec.containers.0.args.1").AsString() == "9090");
  }
  SECTION("an upstream addition at a protected path is held") {
    const Change add_replicas =
        ComputeChange(MustParse(Edit(kBase, {{"  replicas: 3\n", ""}})), MustParse(kBase));
    MergeResult r = ApplyChecked(add_replicas, MustParse(Edit(kBase, {{"  replicas: 3\n", ""}})),
                                 MustProtect({"spec.replicas"}));
    REQUIRE(r.conflicts.size() == 1);
    CHECK(r.conflicts[0].downstream == std::nullopt);
    CHECK(GetPath(r.documents[0], "spec.replicas") == nullptr);
  }
  CHECK_FALSE(Protection::Parse({"spec..replicas"}).ok());
}

TEST_CASE("Documents added and removed upstream", "[merge]") {
  const std::string config_map =
      "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web-config\n  namespace: shop\n"
      "data:\n  mode: fast\n";
  const std::vector<Node> base = MustParse(kBase);
  // The ConfigMap is added between the Deployment and the Service; the Service is removed.
  std::string end = kBase;
  end.insert(end.find("---\n") + 4, config_map + "---\n");
  end = end.substr(0, end.rfind("---\n"));
  const Change change = ComputeChange(base, MustParse(end));

  SECTION("unchanged downstream: added and removed") {
    MergeResult r = ApplyChecked(change, MustParse(kDownstream));
    CHECK(r.conflicts.empty());
    REQUIRE(r.documents.size() == 2);
    CHECK(r.documents[1].Find("kind")->AsString() == "ConfigMap");
  }
  SECTION("removed upstream but edited downstream: kept, with a conflict") {
    MergeResult r =
        ApplyChecked(change, MustParse(Edit(kDownstream, {{"port: 80", "port: 8000"}})));
    REQUIRE(r.conflicts.size() == 1);
    CHECK(r.conflicts[0].path == "v1/Service/shop/web:");
    CHECK(r.conflicts[0].reason == ConflictReason::kRemovedUpstreamEditedDownstream);
    CHECK_FALSE(r.conflicts[0].upstream.has_value());
    CHECK(r.conflicts[0].UpstreamJson().empty());
    REQUIRE(r.documents.size() == 3);
    CHECK(r.documents[1].Find("kind")->AsString() == "ConfigMap");  // after its predecessor
    CHECK(r.documents[2].Find("kind")->AsString() == "Service");
  }
  SECTION("a document the downstream removed itself stays removed") {
    std::string only_deployment = kDownstream;
    only_deployment = only_deployment.substr(0, only_deployment.find("---\n"));
    const Change edit_service =
        ComputeChange(base, MustParse(Edit(kBase, {{"targetPort: 8080", "targetPort: 9090"}})));
    MergeResult r = ApplyChecked(edit_service, MustParse(only_deployment));
    REQUIRE(r.conflicts.size() == 1);
    CHECK(r.conflicts[0].reason == ConflictReason::kDeletedDownstream);
    CHECK(r.conflicts[0].path == "v1/Service/shop/web:");
    CHECK(r.documents.size() == 1);
  }
  SECTION("a document protected as a whole is not removed") {
    MergeResult r = ApplyChecked(change, MustParse(kDownstream),
                                 MustProtect({"v1/Service/shop/web:", "v1/ConfigMap/*/*:"}));
    REQUIRE(r.conflicts.size() == 2);
    CHECK(r.conflicts[0].path == "v1/ConfigMap/shop/web-config:");
    CHECK(r.conflicts[1].path == "v1/Service/shop/web:");
    REQUIRE(r.documents.size() == 2);
    CHECK(r.documents[1].Find("kind")->AsString() == "Service");
  }
}

TEST_CASE("Atomic lists: replaced when only upstream changed, conflict when both did", "[merge]") {
  const std::string end =
      Edit(kBase, {{"args: [\"--port\", \"8080\"]", "args: [\"--port\", \"8080\", \"--gzip\"]"}});
  const Change change = ComputeChange(MustParse(kBase), MustParse(end));
  MergeResult r = ApplyChecked(change, MustParse(kDownstream));
  CHECK(r.conflicts.empty());
  CHECK(At(r.documents, 0, "spec.template.spec.containers.0.args").size() == 3);

  r = ApplyChecked(change, MustParse(Edit(kDownstream, {{"args: [\"--port\", \"8080\"]",
                                                         "args: [\"--port\", \"8081\"]"}})));
  REQUIRE(r.conflicts.size() == 1);
  CHECK(r.conflicts[0].reason == ConflictReason::kListEditedDownstream);
  CHECK(r.conflicts[0].path ==
        "apps/v1/Deployment/shop/web:spec.template.spec.containers.name=web.args");
  CHECK(r.conflicts[0].UpstreamJson() == R"(["--port","8080","--gzip"])");
  CHECK(At(r.documents, 0, "spec.template.spec.containers.0.args.1").AsString() == "8081");
}

TEST_CASE("Removals and deletions on either side", "[merge]") {
  const std::string end = Edit(kBase, {{"              memory: 128Mi\n", ""},
                                       {"            - name: WORKERS\n"
                                        "              value: \"4\"\n",
                                        ""}});
  const Change change = ComputeChange(MustParse(kBase), MustParse(end));
  SECTION("unchanged downstream: removed") {
    MergeResult r = ApplyChecked(change, MustParse(kDownstream));
    CHECK(r.conflicts.empty());
    CHECK(GetPath(r.documents[0], "spec.template.spec.containers.0.resources.limits.memory") ==
          nullptr);
    CHECK(At(r.documents, 0, "spec.template.spec.containers.0.env").size() == 2);
  }
  SECTION("edited downstream: kept with conflicts") {
    MergeResult r =
        ApplyChecked(change, MustParse(Edit(kDownstream, {{"memory: 128Mi", "memory: 1Gi"},
                                                          {"value: \"4\"", "value: \"8\""}})));
    REQUIRE(r.conflicts.size() == 2);
    CHECK(r.conflicts[0].reason == ConflictReason::kRemovedUpstreamEditedDownstream);
    CHECK(r.conflicts[0].path ==
          "apps/v1/Deployment/shop/web:spec.template.spec.containers.name=web.env.name=WORKERS");
    CHECK(r.conflicts[1].path ==
          "apps/v1/Deployment/shop/web:spec.template.spec.containers.name=web.resources.limits."
          "memory");
  }
  SECTION("deleted downstream, changed upstream: stays deleted") {
    const Change bump =
        ComputeChange(MustParse(kBase), MustParse(Edit(kBase, {{"cpu: 500m", "cpu: 1"}})));
    MergeResult r =
        ApplyChecked(bump, MustParse(Edit(kDownstream, {{"          resources:\n"
                                                         "            limits:\n"
                                                         "              cpu: 500m\n"
                                                         "              memory: 128Mi\n",
                                                         ""}})));
    REQUIRE(r.conflicts.size() == 1);
    CHECK(r.conflicts[0].reason == ConflictReason::kDeletedDownstream);
    CHECK(r.conflicts[0].path ==
          "apps/v1/Deployment/shop/web:spec.template.spec.containers.name=web.resources");
    CHECK(GetPath(r.documents[0], "spec.template.spec.containers.0.resources") == nullptr);
  }
}

TEST_CASE("Matching documents: namespace fallback and duplicates", "[merge]") {
  const Change change =
      ComputeChange(MustParse(kBase), MustParse(Edit(kBase, {{"nginx:1.25.3", "nginx:1.26.0"}})));
  SECTION("a variant in its own namespace still receives the change") {
    MergeResult r = ApplyChecked(
        change, MustParse(Edit(kDownstream, {{"namespace: shop", "namespace: shop-prod"}})));
    CHECK(r.conflicts.empty());
    CHECK(At(r.documents, 0, "spec.template.spec.containers.0.image").AsString() == "nginx:1.26.0");
    CHECK(At(r.documents, 0, "metadata.namespace").AsString() == "shop-prod");
  }
  SECTION("a duplicated identity is not merged") {
    std::string twice = kDownstream;
    twice += "---\n" + twice.substr(0, twice.find("---\n"));
    MergeResult r = ApplyChecked(change, MustParse(twice));
    REQUIRE(r.conflicts.size() == 1);
    CHECK(r.conflicts[0].reason == ConflictReason::kDuplicateDocument);
    CHECK_FALSE(r.changed);
  }
}

TEST_CASE("Keyed lists and mappings added on both sides merge key by key", "[merge]") {
  const Change change = ComputeChange(
      MustParse(
          "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {containers: [{name: a}]}\n"),
      MustParse("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n"
                "    - name: a\n      env: [{name: X, value: up}, {name: Y, value: up}]\n"
                "      resources: {limits: {cpu: 1}}\n"));
  MergeResult r = ApplyChecked(
      change,
      MustParse("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n"
                "    - name: a\n      env: [{name: Z, value: down}, {name: Y, value: down}]\n"
                "      resources: {limits: {memory: 1Gi}}\n"));
  CHECK(r.conflicts.empty());
  const Node& a = At(r.documents, 0, "spec.containers.0");
  CHECK(*a.Find("env") == Yaml("[{name: Z, value: down}, {name: X, value: up}, "
                               "{name: Y, value: up}]"));
  CHECK(*a.Find("resources") == Yaml("{limits: {memory: 1Gi, cpu: 1}}"));
  REQUIRE(r.overrides.size() == 1);
  CHECK(r.overrides[0].path == "v1/Pod//p:spec.containers.name=a.env.name=Y.value");
}

TEST_CASE("Documents without a Kubernetes identity merge by position", "[merge]") {
  const Change change = ComputeChange(MustParse("a: 1\nb: [x]\n---\nc: 1\n"),
                                      MustParse("a: 2\nb: [x]\n---\nc: 1\nd: 2\n"));
  MergeResult r = ApplyChecked(change, MustParse("b: [x, y] # mine\na: 1\n---\nc: 5\n"));
  CHECK(r.conflicts.empty());
  CHECK(r.overrides.empty());
  CHECK(EmitYaml(r.documents) == "b: # mine\n  - x\n  - y\na: 2\n---\nc: 5\nd: 2\n");
}

TEST_CASE("Identity-less documents that do not line up are not merged", "[merge]") {
  const Change change =
      ComputeChange(MustParse("a: 1\n---\nb: 1\n"), MustParse("a: 2\n---\nb: 1\n---\nc: 1\n"));
  // The downstream has three identity-less documents, upstream two and then three: merged
  // as if already at the end revision.
  MergeResult r = ApplyChecked(change, MustParse("a: 1\n---\nb: 1\n---\nc: 0\n"));
  CHECK(r.conflicts.empty());
  CHECK(EmitYaml(r.documents) == "a: 2\n---\nb: 1\n---\nc: 1\n");
  REQUIRE(r.overrides.size() == 1);  // both sides "added" c
  CHECK(r.overrides[0].path == "[2]:c");
  // One identity-less document: neither count; nothing merged, every change reported.
  r = ApplyChecked(change, MustParse("a: 1\n"));
  REQUIRE(r.conflicts.size() == 2);
  CHECK(r.conflicts[0].path == "[0]:");
  CHECK(r.conflicts[0].reason == ConflictReason::kUnmatchedDocument);
  CHECK(r.conflicts[1].path == "[2]:");
  CHECK_FALSE(r.changed);
  // A merge that would give an identity-less document an identity is undone.
  const Change named = ComputeChange(MustParse("kind: K\napiVersion: v1\n"),
                                     MustParse("kind: K\napiVersion: v1\nmetadata: {name: n}\n"));
  // (Base and end have different identities: a removal and an addition, not a merge.)
  CHECK(named.documents().size() == 2);
  const Change meta = ComputeChange(MustParse("kind: K\nmetadata: {labels: {}}\n"),
                                    MustParse("kind: K\nmetadata: {name: n, labels: {}}\n"));
  r = ApplyChecked(meta, MustParse("kind: K\napiVersion: v1\nmetadata: {labels: {}}\n"));
  REQUIRE(r.conflicts.size() == 1);
  CHECK(r.conflicts[0].reason == ConflictReason::kUnmatchedDocument);
  CHECK(GetPath(r.documents[0], "metadata.name") == nullptr);
}

TEST_CASE("Apply is deterministic and an empty change changes nothing", "[merge]") {
  const std::vector<Node> base = MustParse(kBase);
  const Change none = ComputeChange(base, base);
  CHECK(none.empty());
  MergeResult r = Apply(none, MustParse(kDownstream));
  CHECK_FALSE(r.changed);
  CHECK(EmitYaml(r.documents) == EmitYaml(MustParse(kDownstream)));

  const Change change =
      ComputeChange(base, MustParse(Edit(kBase, {{"replicas: 3", "replicas: 4"}})));
  const std::vector<Node> downstream = MustParse(kDownstream);
  MergeResult a = Apply(change, downstream);
  MergeResult b = Apply(change, std::vector<Node>(downstream));
  CHECK(EmitYaml(a.documents) == EmitYaml(b.documents));
  CHECK(a.overrides.size() == 1);
  CHECK(b.overrides.size() == 1);
}

}  // namespace
}  // namespace cub::config
