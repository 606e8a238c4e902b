// Tests for lib/config (Node, YAML parse/emit, canonical JSON, DataHash, paths) and
// lib/util/sha256.

#include <unistd.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "lib/config/json.h"
#include "lib/config/node.h"
#include "lib/config/path.h"
#include "lib/config/scalar.h"
#include "lib/config/yaml.h"
#include "lib/util/sha256.h"

namespace cub::config {
namespace {

// Redirects file descriptor 2 into a temporary file for its lifetime, so tests can assert
// that libfyaml printed nothing.
class StderrCapture {
 public:
  StderrCapture() : file_(std::tmpfile()) {
    std::fflush(stderr);
    saved_ = dup(2);
    dup2(fileno(file_), 2);
  }
  ~StderrCapture() {
    Restore();
    std::fclose(file_);
  }
  std::string Finish() {
    Restore();
    std::string text;
    std::rewind(file_);
    char buf[256];
    size_t n;
    while ((n = std::fread(buf, 1, sizeof(buf), file_)) > 0) text.append(buf, n);
    return text;
  }

 private:
  void Restore() {
    if (saved_ < 0) return;
    std::fflush(stderr);
    dup2(saved_, 2);
    close(saved_);
    saved_ = -1;
  }
  FILE* file_;
  int saved_ = -1;
};

}  // namespace
}  // namespace cub::config

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

Node MustParseOne(const std::string& yaml) {
  std::vector<Node> docs = MustParse(yaml);
  REQUIRE(docs.size() == 1);
  return docs[0];
}

std::string MustHash(const std::string& yaml) {
  absl::StatusOr<std::string> hash = DataHash(yaml);
  INFO(yaml);
  REQUIRE(hash.ok());
  return *hash;
}

constexpr char kDeployment[] = R"(apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: prod
  labels:
    app: web
    tier: "frontend"
  annotations:
    app.kubernetes.io/managed-by: cub
    note: 'it''s fine'
    empty: ""
spec:
  replicas: 3
  selector:
    matchLabels:
      app: web
  strategy: {}
  template:
    metadata:
      labels:
        app: web
    spec:
      containers:
        - name: web
          image: nginx:1.25.3
          args: ["--port", "8080", "-v"]
          ports:
            - containerPort: 8080
              protocol: TCP
          env:
            - name: LOG_LEVEL
              value: "debug"
            - name: WORKERS
              value: "4"
            - name: ENABLED
              value: "true"
            - name: RATIO
              value: "0.5"
            - name: FEATURE
              value: yes
            - name: EMPTY
          resources:
            limits:
              cpu: 500m
              memory: 128Mi
          volumeMounts: []
          command:
            - /bin/sh
            - -c
            - |
              echo "starting"
              exec nginx -g 'daemon off;'
      volumes:
        - name: config
          configMap:
            name: web-config
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: web-config
data:
  nginx.conf: |
    server {
      listen 8080;   # trailing comment inside the block stays
    }

  motd: >
    folded text
    on two lines
  keep: |+
    kept trailing lines


  script: |-
    #!/bin/sh
      indented
    done
)";

TEST_CASE("Sha256Hex matches the FIPS 180-2 vectors", "[sha256]") {
  CHECK(Sha256Hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  CHECK(Sha256Hex("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

TEST_CASE("ParseYaml reads every document and skips empty ones", "[yaml]") {
  std::vector<Node> docs = MustParse(
      "# leading comment\n"
      "a: 1\n"
      "---\n"
      "# nothing but a comment\n"
      "---\n"
      "- x\n"
      "- y\n"
      "...\n"
      "---\n"
      "plain scalar\n"
      "--- null\n");
  REQUIRE(docs.size() == 4);
  CHECK(docs[0].IsMapping());
  CHECK(docs[0].Find("a")->AsInt() == 1);
  REQUIRE(docs[1].IsSequence());
  CHECK(docs[1].size() == 2);
  CHECK(docs[2].AsString() == "plain scalar");
  CHECK(docs[3].IsNull());

  CHECK(MustParse("").empty());
  CHECK(MustParse("\n# only\n---\n---\n").empty());
}

TEST_CASE("ParseYaml types scalars by the YAML 1.2 core schema", "[yaml]") {
  Node n = MustParseOne(R"(
null1: null
null2: ~
null3:
bool1: true
bool2: FALSE
int1: 123
int2: -17
int3: +5
int4: 0x1F
int5: 0o17
float1: 1.5
float2: 1e3
float3: -.inf
float4: .nan
float5: .5
big: 12345678901234567890
str1: yes
str2: 0777x
str3: "123"
str4: 'true'
str5: 1_000
str6: !!str 42
str7: ! 42
tagged_float: !!float 1
octal_like: 0777
)");
  CHECK(n.Find("null1")->IsNull());
  CHECK(n.Find("null2")->IsNull());
  CHECK(n.Find("null3")->IsNull());
  CHECK(n.Find("bool1")->AsBool());
  CHECK_FALSE(n.Find("bool2")->AsBool());
  CHECK(n.Find("int1")->AsInt() == 123);
  CHECK(n.Find("int2")->AsInt() == -17);
  CHECK(n.Find("int3")->AsInt() == 5);
  CHECK(n.Find("int4")->AsInt() == 31);
  CHECK(n.Find("int5")->AsInt() == 15);
  CHECK(n.Find("float1")->AsFloat() == 1.5);
  CHECK(n.Find("float2")->AsFloat() == 1000.0);
  CHECK(n.Find("float3")->AsFloat() == -INFINITY);
  CHECK(std::isnan(n.Find("float4")->AsFloat()));
  CHECK(n.Find("float5")->AsFloat() == 0.5);
  CHECK(n.Find("big")->IsFloat());
  for (const char* key : {"str1", "str2", "str3", "str4", "str5", "str6", "str7"}) {
    INFO(key);
    CHECK(n.Find(key)->IsString());
  }
  CHECK(n.Find("str3")->string_style() == StringStyle::kDoubleQuoted);
  CHECK(n.Find("str6")->AsString() == "42");
  CHECK(n.Find("tagged_float")->IsFloat());
  CHECK(n.Find("octal_like")->AsInt() == 777);  // YAML 1.2: decimal, not octal
}

TEST_CASE("ParseYaml resolves anchors and aliases", "[yaml]") {
  Node n = MustParseOne("base: &b {cpu: 1, mem: 2Gi}\ncopy: *b\nname: &n web\nagain: *n\n");
  CHECK(*n.Find("copy") == *n.Find("base"));
  CHECK(n.Find("again")->AsString() == "web");

  absl::StatusOr<std::vector<Node>> unknown = ParseYaml("a: *missing\n");
  REQUIRE_FALSE(unknown.ok());
  CHECK(unknown.status().message() == "yaml: line 1, column 4: unknown alias *missing");

  // A "billion laughs" stream is refused rather than expanded.
  std::string bomb = "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n";
  for (int i = 1; i < 9; ++i) {
    std::string prev = "*a" + std::to_string(i - 1);
    bomb += "a" + std::to_string(i) + ": &a" + std::to_string(i) + " [";
    for (int k = 0; k < 10; ++k) bomb += (k ? ", " : "") + prev;
    bomb += "]\n";
  }
  absl::StatusOr<std::vector<Node>> exploded = ParseYaml(bomb);
  REQUIRE_FALSE(exploded.ok());
  CHECK(exploded.status().message().find("too many nodes") != absl::string_view::npos);
}

TEST_CASE("Bad YAML is InvalidArgument with a position, and prints nothing", "[yaml]") {
  struct Case {
    const char* name;
    std::string yaml;
    int line;
  };
  const Case cases[] = {
      {"nested mapping on one line", "a: b: c\n", 1},
      {"unclosed quote", "a: ok\nb: 'unclosed\nc: 1\n", 2},
      {"bad indentation", "a:\n  b: 1\n c: 2\n", 3},
      {"tab indentation", "a:\n\tb: 1\n", 2},
      {"unclosed flow mapping", "a: {b: 1\n", 2},
      {"duplicate key", "a: 1\nb: 2\na: 3\n", 3},
      {"unsupported tag", "a: !Ref other\n", 1},
      {"bad !!int", "a: !!int twelve\n", 1},
      {"complex key", "? [a, b]\n: c\n", 1},
      {"invalid UTF-8", "a: 1\nb: \xff\xfe\n", 2},
      {"NUL byte", std::string("a: b\0c\n", 7), 1},
      {"control character", "a: 1\nb: \x01\n", 2},
      {"unsupported core tag", "a: !!binary aGVsbG8=\n", 1},
      {"unsupported version", "%YAML 2.0\n---\na: 1\n", 1},
  };
  for (const Case& c : cases) {
    INFO(c.name);
    StderrCapture capture;
    absl::StatusOr<std::vector<Node>> docs = ParseYaml(c.yaml);
    const std::string printed = capture.Finish();
    REQUIRE_FALSE(docs.ok());
    CHECK(docs.status().code() == absl::StatusCode::kInvalidArgument);
    const std::string message(docs.status().message());
    INFO(message);
    CHECK(message.rfind("yaml: line " + std::to_string(c.line) + ", column ", 0) == 0);
    CHECK(printed.empty());
    CHECK_FALSE(DataHash(c.yaml).ok());
  }
}

TEST_CASE("Nesting is limited to 1000 levels, aliases included", "[yaml]") {
  auto nested = [](int depth) { return std::string(depth, '[') + std::string(depth, ']'); };
  CHECK(ParseYaml(nested(1000)).ok());
  absl::StatusOr<std::vector<Node>> deep = ParseYaml(nested(1001));
  REQUIRE_FALSE(deep.ok());
  CHECK(deep.status().message() == "yaml: line 1, column 1001: nesting deeper than 1000 levels");
  // An alias to a deep subtree counts with its own depth.
  std::string via_alias = "a: &d " + nested(600) + "\nb: " + std::string(500, '[') + "*d" +
                          std::string(500, ']') + "\n";
  CHECK_FALSE(ParseYaml(via_alias).ok());
}

TEST_CASE("Duplicate keys are found in large mappings too", "[yaml]") {
  std::string yaml;
  for (int i = 0; i < 40; ++i) yaml += "k" + std::to_string(i) + ": " + std::to_string(i) + "\n";
  CHECK(ParseYaml(yaml).ok());
  yaml += "k7: again\n";
  absl::StatusOr<std::vector<Node>> docs = ParseYaml(yaml);
  REQUIRE_FALSE(docs.ok());
  CHECK(docs.status().message() == "yaml: line 41, column 1: duplicate mapping key \"k7\"");
}

TEST_CASE("ParseJsonNode reads JSON into the Nodes ParseYaml would", "[json]") {
  const std::string text =
      R"({"_type":"s","subject":[{"name":"dev/release-1","digest":{"sha256":"ab"}}],)"
      R"("n":7,"big":18446744073709551615,"f":1.5,"t":true,"z":null,"e":[],"o":{},)"
      R"("u":"caf\u00e9 \"q\""})";
  absl::StatusOr<Node> json = ParseJsonNode(text);
  REQUIRE(json.ok());
  absl::StatusOr<std::vector<Node>> yaml = ParseYaml(text);
  REQUIRE(yaml.ok());
  REQUIRE(yaml->size() == 1);
  // Equal but for the integer too big for int64, which YAML keeps as its text's float too.
  CHECK(EmitJson(*json, false) == EmitJson((*yaml)[0], false));
  CHECK(json->Find("n")->IsInt());
  CHECK(json->Find("big")->IsFloat());
  CHECK(json->Find("u")->AsString() == "caf\xc3\xa9 \"q\"");

  absl::StatusOr<Node> dup = ParseJsonNode(R"({"a":1,"b":{"c":1,"c":2}})");
  REQUIRE_FALSE(dup.ok());
  CHECK_THAT(std::string(dup.status().message()), Catch::StartsWith("json: "));
  CHECK_THAT(std::string(dup.status().message()), Catch::Contains("\"c\""));
  CHECK_FALSE(ParseJsonNode("{").ok());
  CHECK_FALSE(ParseJsonNode("a: b").ok());

  auto nested = [](int depth) { return std::string(depth, '[') + std::string(depth, ']'); };
  CHECK(ParseJsonNode(nested(1000)).ok());
  absl::StatusOr<Node> deep = ParseJsonNode(nested(1001));
  REQUIRE_FALSE(deep.ok());
  CHECK(deep.status().message() == "json: nested deeper than 1000 arrays and objects");
}

TEST_CASE("DataHash ignores formatting and sees every value", "[hash]") {
  const std::string base =
      "apiVersion: v1\n"
      "kind: ConfigMap\n"
      "metadata:\n"
      "  name: app\n"
      "  labels: {tier: web, team: core}\n"
      "data:\n"
      "  mode: fast\n"
      "  list: [1, 2.5, true, null]\n";
  const std::string reformatted =
      "# a comment\n"
      "kind: 'ConfigMap'      # trailing comment\n"
      "data:\n"
      "    list:\n"
      "    - 1\n"
      "    - 2.50\n"
      "    - True\n"
      "    - ~\n"
      "    mode: \"fast\"\n"
      "metadata: {\"labels\": {\"team\": core, \"tier\": web}, name: app}\n"
      "apiVersion: \"v1\"\n";
  const std::string hash = MustHash(base);
  CHECK(hash.size() == 7 + 64);
  CHECK(hash.rfind("sha256:", 0) == 0);
  CHECK(MustHash(reformatted) == hash);
  CHECK(MustHash("{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"app\","
                 "\"labels\":{\"tier\":\"web\",\"team\":\"core\"}},\"data\":{\"mode\":\"fast\","
                 "\"list\":[1,2.5,true,null]}}") == hash);
  CHECK(MustParseOne(base) == MustParseOne(reformatted));

  SECTION("a changed value changes the hash") {
    std::string changed = base;
    changed.replace(changed.find("fast"), 4, "slow");
    CHECK(MustHash(changed) != hash);
    CHECK(MustHash(base + "extra: null\n") != hash);
  }
  SECTION("types matter: quoted \"1\" is not 1, 1 is not 1.0, true is not \"true\"") {
    CHECK(MustHash("a: \"1\"\n") != MustHash("a: 1\n"));
    CHECK(MustHash("a: '1'\n") == MustHash("a: \"1\"\n"));
    CHECK(MustHash("a: 1\n") != MustHash("a: 1.0\n"));
    CHECK(MustHash("a: 1.0\n") == MustHash("a: 1.00\n"));
    CHECK(MustHash("a: true\n") != MustHash("a: \"true\"\n"));
    CHECK(MustHash("a: null\n") != MustHash("a: \"\"\n"));
    CHECK(MustHash("a: .inf\n") != MustHash("a: \".inf\"\n"));
  }
  SECTION("document order and count matter") {
    CHECK(MustHash("a: 1\n---\nb: 2\n") != MustHash("b: 2\n---\na: 1\n"));
    CHECK(MustHash("a: 1\n---\n") == MustHash("a: 1\n"));
  }
}

TEST_CASE("CanonicalJson is compact, sorted and typed", "[json]") {
  std::vector<Node> docs =
      MustParse("z: 1\nb: [1.0, 2e20, -0.0, .inf, \"q\\\"\\n\\u0001\"]\na: {y: null, x: false}\n");
  CHECK(CanonicalJson(docs) ==
        "[{\"a\":{\"x\":false,\"y\":null},\"b\":[1.0,2.0e+20,-0.0,Infinity,\"q\\\"\\n\\u0001\"],"
        "\"z\":1}]");
  CHECK(CanonicalJson({}) == "[]");
}

TEST_CASE("EmitJson keeps key order, compact or pretty", "[json]") {
  Node n = MustParseOne("b: 1\na: [x, {}]\nc: {}\nd: .nan\n");
  CHECK(EmitJson(n, false) == R"({"b":1,"a":["x",{}],"c":{},"d":".nan"})");
  CHECK(EmitJson(n, true) ==
        "{\n  \"b\": 1,\n  \"a\": [\n    \"x\",\n    {}\n  ],\n  \"c\": {},\n  \"d\": \".nan\"\n}");
}

TEST_CASE("EmitYaml round-trips a realistic Deployment", "[yaml]") {
  std::vector<Node> docs = MustParse(kDeployment);
  REQUIRE(docs.size() == 2);
  const Node& data = *docs[1].Find("data");
  CHECK(data.Find("motd")->AsString() == "folded text on two lines\n");
  CHECK(data.Find("keep")->AsString() == "kept trailing lines\n\n\n");
  CHECK(data.Find("script")->AsString() == "#!/bin/sh\n  indented\ndone");

  const std::string emitted = EmitYaml(docs);
  INFO(emitted);
  std::vector<Node> again = MustParse(emitted);
  CHECK(again == docs);
  CHECK(EmitYaml(again) == emitted);  // stable: a second pass changes nothing
  CHECK(MustHash(emitted) == MustHash(kDeployment));

  // The user's quoting survives, ambiguous strings stay quoted, block scalars stay blocks.
  CHECK(emitted.find("tier: \"frontend\"") != std::string::npos);
  CHECK(emitted.find("note: 'it''s fine'") != std::string::npos);
  CHECK(emitted.find("value: \"4\"") != std::string::npos);
  CHECK(emitted.find("value: yes") != std::string::npos);
  CHECK(emitted.find("- name: EMPTY\n") != std::string::npos);
  CHECK(emitted.find("strategy: {}") != std::string::npos);
  CHECK(emitted.find("volumeMounts: []") != std::string::npos);
  CHECK(emitted.find("nginx.conf: |\n") != std::string::npos);
  CHECK(emitted.find("keep: |+\n") != std::string::npos);
  CHECK(emitted.find("script: |-\n") != std::string::npos);
  CHECK(emitted.find("\n---\n") != std::string::npos);
}

TEST_CASE("EmitYaml writes strings so they read back as the same strings", "[yaml]") {
  const std::vector<std::string> strings = {
      // Empty, blank and YAML words and numbers (1.2 and 1.1 spellings).
      "", " ", "plain", "with space", " leading", "trailing ", "yes", "No", "on", "y", "~", "null",
      "true", "False", "123", "-1", "+1", "0x1F", "0o7", "1.5", ".5", "1e3", ".inf", "-.inf",
      ".nan", "0777", "1_000", "1:30", "2024-01-02", "<<", "=",
      // Indicators and document markers.
      "-", "--", "---", "--- x", "...", "-x", "-Xmx512m", "?", "?x", ":", ":x", "a:", "a: b", "a:b",
      "a #b", "a#b", "#c", "&a", "*a", "!t", "|", ">", "%p", "@x", "`x", "[a]", "{a}", "a,b", "a]b",
      // Quotes (libfyaml 0.7.12 misreads '' pairs that touch, so those must be double-quoted).
      "'", "\"", "'q'", "\"q\"", "it's", "a''b", "''", "'''",
      // Special characters.
      "tab\there", "\ttab", "back\\slash", "caf\xc3\xa9", "\xe2\x80\xa8ls", "nel\xc2\x85",
      "\uFEFFbom", "ctl\x01", "del\x7f", "cr\rlf",
      // Multi-line: chomping, leading blank lines, indentation indicators, markers in content.
      "line1\nline2", "line1\nline2\n", "line1\n\n\n", "\nleading", "\n\nleading\n",
      "  indented\nnext\n", "\n  indented first", "trailing spaces  \nx", "x\n  ", "a\n\tb", "\n",
      "\n\n", " \n", "x\r\ny\n", "a\n---\nb\n", "a\n...\n", "#!/bin/sh\necho\n",
      // Longer than an implicit key may be.
      std::string(1200, 'k')};
  const StringStyle styles[] = {StringStyle::kAuto, StringStyle::kPlain, StringStyle::kSingleQuoted,
                                StringStyle::kDoubleQuoted, StringStyle::kLiteral};
  for (const std::string& s : strings) {
    for (StringStyle style : styles) {
      Node doc = Node::Map();
      doc.Set("value", Node::String(s, style));
      doc.Set(s, Node::String(s, style));  // as a key too
      Node nested = Node::Seq();
      nested.Append(Node::String(s, style));
      nested.Append(Node::Seq({Node::String(s, style)}));
      nested.Append(Node::Map({{"k", Node::String(s, style)}}));
      doc.Set("nested", nested);
      const std::vector<Node> docs = {doc, Node::String(s, style), nested};
      const std::string yaml = EmitYaml(docs);
      INFO("string: [" << s << "] style " << static_cast<int>(style) << "\n" << yaml);
      absl::StatusOr<std::vector<Node>> back = ParseYaml(yaml);
      REQUIRE(back.ok());
      CHECK(*back == docs);
    }
  }
}

TEST_CASE("EmitYaml round-trips every other kind", "[yaml]") {
  Node n = Node::Map();
  n.Set("null", Node());
  n.Set("t", Node::Bool(true));
  n.Set("i", Node::Int(-9223372036854775807 - 1));
  n.Set("f", Node::Float(0.1));
  n.Set("whole", Node::Float(3));
  n.Set("huge", Node::Float(1e300));
  n.Set("tiny", Node::Float(-5e-324));
  n.Set("inf", Node::Float(-INFINITY));
  n.Set("nan", Node::Float(NAN));
  n.Set("negzero", Node::Float(-0.0));
  n.Set("empty_map", Node::Map());
  n.Set("empty_seq", Node::Seq());
  n.Set("seq_of_empty", Node::Seq({Node::Map(), Node::Seq(), Node()}));
  n.Set("deep", Node::Seq({Node::Seq({Node::Seq({Node::Int(1)}), Node::Int(2)})}));
  const std::vector<Node> docs = {n, Node(), Node::Int(7), Node::Map(), Node::Seq()};
  const std::string yaml = EmitYaml(docs);
  INFO(yaml);
  CHECK(MustParse(yaml) == docs);
  CHECK(yaml.find("whole: 3.0\n") != std::string::npos);
  CHECK(EmitYaml({}).empty());
}

TEST_CASE("Node equality, lookup and edits", "[node]") {
  Node a = MustParseOne("x: 1\ny: {p: [1, 2], q: s}\n");
  Node b = MustParseOne("y: {q: s, p: [1, 2]}\nx: 1\n");
  CHECK(a == b);
  CHECK(MustParseOne("[1, 2]") != MustParseOne("[2, 1]"));
  CHECK(Node::Int(1) != Node::Float(1.0));
  CHECK(Node::Float(NAN) == Node::Float(NAN));
  CHECK(Node::Float(0.0) != Node::Float(-0.0));
  CHECK(Node::String("s", StringStyle::kDoubleQuoted) == Node::String("s"));

  // Large mappings compare by sorted keys.
  Node big1 = Node::Map(), big2 = Node::Map();
  for (int i = 0; i < 50; ++i) {
    big1.Set("k" + std::to_string(i), Node::Int(i));
    big2.Set("k" + std::to_string(49 - i), Node::Int(49 - i));
  }
  CHECK(big1 == big2);
  big2.Set("k3", Node::Int(-1));
  CHECK(big1 != big2);

  REQUIRE(a.Find("y") != nullptr);
  CHECK(a.Find("nope") == nullptr);
  CHECK(Node::Int(1).Find("x") == nullptr);
  a.Set("x", Node::String("changed"));
  CHECK(a.AsMapping()[0].first == "x");  // replaced in place
  a.Set("z", Node::Bool(false));
  CHECK(a.AsMapping().back().first == "z");
  CHECK(a.Erase("y"));
  CHECK_FALSE(a.Erase("y"));
  CHECK(a.size() == 2);
  CHECK(std::string(KindName(Node::Kind::kMapping)) == "mapping");
}

TEST_CASE("GetPath and SetPath follow dotted paths", "[path]") {
  Node n = MustParse(kDeployment)[0];
  REQUIRE(GetPath(n, "spec.replicas") != nullptr);
  CHECK(GetPath(n, "spec.replicas")->AsInt() == 3);
  CHECK(GetPath(n, "spec.template.spec.containers.0.image")->AsString() == "nginx:1.25.3");
  CHECK(GetPath(n, "metadata.annotations.app\\.kubernetes\\.io/managed-by")->AsString() == "cub");
  CHECK(GetPath(n, "") == &n);
  CHECK(GetPath(n, "spec.template.spec.containers.7") == nullptr);
  CHECK(GetPath(n, "spec.replicas.x") == nullptr);
  CHECK(GetPath(n, "bad\\escape") == nullptr);

  CHECK(SetPath(n, "spec.replicas", Node::Int(5)).ok());
  CHECK(GetPath(n, "spec.replicas")->AsInt() == 5);
  CHECK(SetPath(n, "spec.template.spec.containers.0.image", Node::String("nginx:1.26")).ok());
  CHECK(SetPath(n, "metadata.labels.new\\.label", Node::String("v")).ok());
  CHECK(n.Find("metadata")->Find("labels")->Find("new.label")->AsString() == "v");
  CHECK(SetPath(n, "brand.new.branch", Node::Int(1)).ok());
  CHECK(GetPath(n, "brand.new.branch")->AsInt() == 1);
  CHECK(SetPath(n, "spec.template.spec.containers.9.image", Node()).code() ==
        absl::StatusCode::kInvalidArgument);
  CHECK(SetPath(n, "spec.replicas.x", Node()).code() == absl::StatusCode::kFailedPrecondition);
}

TEST_CASE("FormatFloat and AmbiguousInYaml11", "[scalar]") {
  CHECK(FormatFloat(1.0) == "1.0");
  CHECK(FormatFloat(0.1) == "0.1");
  CHECK(FormatFloat(1e20) == "1.0e+20");
  CHECK(FormatFloat(-0.0) == "-0.0");
  CHECK(FormatFloat(2.5e-7) == "2.5e-07");
  CHECK(AmbiguousInYaml11("yes"));
  CHECK(AmbiguousInYaml11("0777"));
  CHECK(AmbiguousInYaml11("1:30"));
  CHECK(AmbiguousInYaml11("2024-01-02"));
  CHECK_FALSE(AmbiguousInYaml11("nginx"));
  CHECK_FALSE(AmbiguousInYaml11("v1.2.3"));
}

}  // namespace
}  // namespace cub::config
