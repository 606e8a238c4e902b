// Tests for the Link engine's pure parts (lib/links): reading a definition strictly from YAML
// and JSON (and the JSON `cub link get` prints), validation refusals with their paths, finding
// the upstream resource and value, running setters on the spec's registrybot example, the
// paths a Protect Link holds, and Insert/Upsert copies.

#include <google/protobuf/util/json_util.h>

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "lib/config/yaml.h"
#include "lib/links/copy.h"
#include "lib/links/definition.h"
#include "lib/links/resource.h"
#include "lib/links/transform.h"
#include "lib/links/validate.h"
#include "lib/ops/resolve.h"

namespace cub::links {
namespace {

using config::Node;

constexpr char kRegistrybotLink[] = R"(Protect: true
UpstreamPaths:
  - Name: tag
    Path: streams.stable.tag
    Resource:
      ResourceType: registrybot.confighub.com/v1alpha4
      ResourceName: acme
DownstreamSetters:
  - Parameters: [tag]
    FunctionInvocation:
      FunctionName: set-container-image-reference
      Arguments:
        - ParameterName: container-name
          Value: acme
        - ParameterName: image-reference
          Value: ":{{.Params.tag}}"
          Evaluator: template
)";

constexpr char kRegistrybotUnit[] = R"(configHub:
  configSchema: registrybot.confighub.com/v1alpha4
  configName: acme
repository: ghcr.io/acme/acme
streams:
  stable:
    tag: v453
    digest: sha256:41aa0c3b5e9d7f2a8c6e1b4d0f3a9c7e5b2d8f6a4c1e9b7d3f0a6c8e2b5d9f1a
)";

constexpr char kDeployment[] = R"(apiVersion: apps/v1
kind: Deployment
metadata:
  name: acme
spec:
  template:
    spec:
      containers:
        - name: acme
          image: ghcr.io/acme/acme:v452  # pinned by the link
        - name: sidecar
          image: ghcr.io/acme/sidecar:v1
)";

std::vector<Node> Docs(const char* yaml) {
  auto docs = config::ParseYaml(yaml);
  REQUIRE(docs.ok());
  return *std::move(docs);
}

Definition Parsed(const char* text) {
  auto def = ParseDefinition(text);
  INFO(def.status().message());
  REQUIRE(def.ok());
  return *std::move(def);
}

std::string ParseError(const std::string& text) {
  auto def = ParseDefinition(text);
  REQUIRE_FALSE(def.ok());
  CHECK(def.status().code() == absl::StatusCode::kInvalidArgument);
  return std::string(def.status().message());
}

std::string ValidateError(const std::string& type, const std::string& text) {
  absl::Status s = ValidateDefinition(type, Parsed(text.c_str()), "Kubernetes/YAML");
  REQUIRE_FALSE(s.ok());
  CHECK(s.code() == absl::StatusCode::kInvalidArgument);
  return std::string(s.message());
}

TEST_CASE("the spec's registrybot link parses and validates") {
  Definition def = Parsed(kRegistrybotLink);
  CHECK(def.protect == true);
  CHECK_FALSE(def.auto_update.has_value());
  CHECK_FALSE(def.update_type.has_value());
  REQUIRE(def.upstream_paths.size() == 1);
  CHECK(def.upstream_paths[0].name == "tag");
  CHECK(def.upstream_paths[0].path == "streams.stable.tag");
  CHECK(def.upstream_paths[0].resource.type == "registrybot.confighub.com/v1alpha4");
  CHECK(def.upstream_paths[0].resource.name == "acme");
  REQUIRE(def.setters.size() == 1);
  CHECK(def.setters[0].parameters == std::vector<std::string>{"tag"});
  CHECK(def.setters[0].function_name == "set-container-image-reference");
  REQUIRE(def.setters[0].arguments.size() == 2);
  CHECK(def.setters[0].arguments[1].value == ":{{.Params.tag}}");
  CHECK(def.setters[0].arguments[1].evaluator == "template");
  CHECK(ValidateDefinition("TransformPaths", def, "Kubernetes/YAML").ok());
}

TEST_CASE("a definition reads from JSON, with scalar values kept as text") {
  Definition def = Parsed(
      R"({"AutoUpdate": false, "UpdateType": "TransformPaths",
          "UpstreamPaths": [{"Name": "n", "Path": "spec.replicas",
                             "Resource": {"ResourceType": "apps/v1/Deployment"}}],
          "DownstreamSetters": [{"Parameters": ["n"], "FunctionInvocation": {
            "FunctionName": "set-replicas",
            "Arguments": [{"ParameterName": "replicas", "Value": "{{ .Params.n }}",
                           "Evaluator": "template"}]}}]})");
  CHECK(def.auto_update == false);
  CHECK(def.update_type == "TransformPaths");
  CHECK(ValidateDefinition("TransformPaths", def, "Kubernetes/YAML").ok());
  Definition literal = Parsed(R"(DownstreamSetters:
  - FunctionInvocation:
      FunctionName: set-replicas
      Arguments: [{ParameterName: replicas, Value: 3}]
)");
  CHECK(literal.setters[0].arguments[0].value == "3");
}

TEST_CASE("unknown fields and wrong types are refused by path") {
  CHECK(ParseError("Protect: true\nProtectd: false\n") ==
        "Protectd: unknown field; did you mean Protect?");
  CHECK(ParseError("UpstreamPaths:\n  - Name: a\n    Pth: x\n") ==
        "UpstreamPaths[0].Pth: unknown field; did you mean Path?");
  CHECK(ParseError("UpstreamPaths:\n  - Resource: {ResourceKind: x}\n") ==
        "UpstreamPaths[0].Resource.ResourceKind: unknown field (fields: ResourceType, "
        "ResourceName)");
  CHECK(ParseError("DownstreamSetters:\n  - FunctionInvocation:\n      Arguments:\n"
                   "        - {ParameterName: a, Valeu: b}\n") ==
        "DownstreamSetters[0].FunctionInvocation.Arguments[0].Valeu: unknown field; did you "
        "mean Value?");
  CHECK(ParseError("DownstreamSetters:\n  - Setter: x\n") ==
        "DownstreamSetters[0].Setter: unknown field (fields: Parameters, FunctionInvocation)");
  CHECK(ParseError("Protect: yes please\n") == "Protect: must be true or false, got string");
  CHECK(ParseError("UpstreamPaths: {Name: a}\n") == "UpstreamPaths: must be a list, got mapping");
  CHECK(ParseError("DownstreamSetters:\n  - Parameters: [[a]]\n") ==
        "DownstreamSetters[0].Parameters[0]: must be a string, got sequence");
  CHECK(ParseError("- a\n") ==
        "link definition must be a mapping of Protect, AutoUpdate, UpstreamPaths and "
        "DownstreamSetters, got sequence");
  CHECK(ParseError("") == "link definition is empty");
  CHECK(ParseError("Protect: true\n---\nProtect: false\n") ==
        "link definition must be one document, got 2");
}

TEST_CASE("what `cub link get -o json` prints reads back as the same definition") {
  auto def = ParseDefinition(kRegistrybotLink);
  REQUIRE(def.ok());
  v1::Link link;
  link.set_link_id("8a1f0c3e-0000-4000-8000-000000000001");
  link.set_space_id("8a1f0c3e-0000-4000-8000-000000000002");
  link.set_slug("acme-tag");
  link.set_from_unit_id("x");
  link.set_from_unit_slug("deployment");
  link.set_to_unit_id("y");
  link.set_to_unit_slug("acme");
  link.set_to_space_id("z");
  link.set_to_space_slug("registry-facts");
  link.set_update_type("TransformPaths");
  link.set_auto_update(false);
  link.set_protect(true);
  link.set_upstream_revision_num(3);
  link.set_created_at("2024-01-01T00:00:00Z");
  ops::PutDefinition(*def, &link);
  std::string json;
  google::protobuf::util::JsonPrintOptions options;
  options.always_print_primitive_fields = true;  // as cub prints it
  REQUIRE(google::protobuf::util::MessageToJsonString(link, &json, options).ok());
  auto parsed_back = ops::ParseLinkDefinition(json);
  INFO(parsed_back.status().message());
  REQUIRE(parsed_back.ok());
  Definition back = *parsed_back;
  CHECK(back.protect == true);
  CHECK(back.update_type == "TransformPaths");
  v1::Link again;
  ops::PutDefinition(back, &again);
  CHECK(again.upstream_paths_size() == 1);
  CHECK(again.downstream_setters(0).function_invocation().arguments(1).evaluator() == "template");
  CHECK(ops::DefinitionOf(again).setters[0].arguments[1].value == ":{{.Params.tag}}");
  // An UpgradeUnit Link prints empty lists, which validate for its type.
  v1::Link plain;
  plain.set_update_type("UpgradeUnit");
  std::string plain_json;
  REQUIRE(google::protobuf::util::MessageToJsonString(plain, &plain_json, options).ok());
  auto plain_back = ops::ParseLinkDefinition(plain_json);
  INFO(plain_json);
  REQUIRE(plain_back.ok());
  CHECK(ValidateDefinition("UpgradeUnit", *plain_back, "Kubernetes/YAML").ok());
  // Without the skip list, the entity fields are unknown.
  CHECK(ParseError(plain_json) ==
        "LinkID: unknown field (fields: Protect, AutoUpdate, UpdateType, "
        "UpstreamPaths, DownstreamSetters)");
}

TEST_CASE("validation refuses what could not resolve, naming where") {
  const std::string paths = R"(UpstreamPaths:
  - Name: tag
    Path: streams.stable.tag
)";
  auto setter = [](const std::string& params, const std::string& fn, const std::string& args) {
    return "DownstreamSetters:\n  - Parameters: [" + params +
           "]\n    FunctionInvocation:\n      FunctionName: " + fn + "\n      Arguments:\n" + args;
  };
  const std::string image_args =
      "        - {ParameterName: container-name, Value: acme}\n"
      "        - {ParameterName: image-reference, Value: ':{{.Params.tag}}', Evaluator: "
      "template}\n";

  CHECK(ValidateError("TransformPaths", "Protect: true\n") ==
        "a TransformPaths link needs UpstreamPaths (the values to read upstream) and "
        "DownstreamSetters (the functions that write them): pass them with --from-stdin");
  CHECK(ValidateError("Upsert", paths) ==
        "only TransformPaths links have UpstreamPaths and DownstreamSetters; this one is Upsert");
  CHECK(ValidateDefinition("Nope", Definition{}, "Kubernetes/YAML").message() ==
        "link update type 'Nope' is not supported: use UpgradeUnit, MergeUnits, TransformPaths, "
        "Insert or Upsert");
  CHECK(ValidateError("TransformPaths",
                      paths + setter("tag", "set-container-imag-reference", image_args)) ==
        "DownstreamSetters[0].FunctionInvocation.FunctionName: no function named "
        "'set-container-imag-reference'; `cub function list` names them");
  CHECK(ValidateError("TransformPaths", paths + setter("tag", "get-replicas", "        []\n")) ==
        "DownstreamSetters[0].FunctionInvocation.FunctionName: get-replicas is a get function; "
        "a setter runs a set function");
  CHECK(ValidateError("TransformPaths",
                      paths + "  - Name: digest\n    Path: streams.stable.digest\n" +
                          setter("tag", "set-container-image-reference", image_args)) ==
        "UpstreamPaths[1].Name: 'digest' is not used by any DownstreamSetter (list it in a "
        "setter's Parameters)");
  CHECK(ValidateError("TransformPaths",
                      paths + setter("tag, tga", "set-container-image-reference", image_args)) ==
        "DownstreamSetters[0].Parameters: 'tga' is not the Name of an UpstreamPath (names: tag)");
  CHECK(ValidateError("TransformPaths",
                      "UpstreamPaths:\n  - Name: tag\n    Path: streams..tag\n" +
                          setter("tag", "set-container-image-reference", image_args))
            .rfind("UpstreamPaths[0].Path 'streams..tag': ", 0) == 0);
  CHECK(ValidateError("TransformPaths",
                      "UpstreamPaths:\n  - Name: tag\n    Path: 'apps/v1/Deployment//x:spec'\n" +
                          setter("tag", "set-container-image-reference", image_args))
            .find("leave out the document part") != std::string::npos);
  CHECK(ValidateError("TransformPaths",
                      "UpstreamPaths:\n  - Name: tag\n    Path: 'spec.*.image'\n" +
                          setter("tag", "set-container-image-reference", image_args)) ==
        "UpstreamPaths[0].Path 'spec.*.image': path has a wildcard; it must name one value");
  CHECK(ValidateError("TransformPaths",
                      paths + setter("tag", "set-container-image-reference",
                                     "        - {ParameterName: container-name, Value: acme}\n"
                                     "        - {ParameterName: image-reference, Value: "
                                     "':{{.Params.tag}}'}\n")) ==
        "DownstreamSetters[0].FunctionInvocation.Arguments[1].Value: expected an image reference "
        "(':TAG', '@sha256:DIGEST' or ':TAG@sha256:DIGEST') for image-reference, got "
        "':{{.Params.tag}}'");
  CHECK(ValidateError("TransformPaths",
                      paths + setter("tag", "set-container-image-reference",
                                     "        - {ParameterName: containr-name, Value: acme}\n")) ==
        "DownstreamSetters[0].FunctionInvocation.Arguments[0].ParameterName: "
        "set-container-image-reference has no parameter 'containr-name'; did you mean "
        "container-name?");
  CHECK(ValidateError("TransformPaths",
                      paths + setter("tag", "set-container-image-reference",
                                     "        - {ParameterName: image-reference, Value: "
                                     "':{{.Params.tag}}', Evaluator: template}\n")) ==
        "DownstreamSetters[0].FunctionInvocation.Arguments: set-container-image-reference needs "
        "container-name (usage: set-container-image-reference CONTAINER-NAME IMAGE-REFERENCE)");
  CHECK(ValidateError("TransformPaths",
                      paths + setter("tag", "set-container-image-reference",
                                     "        - {ParameterName: container-name, Value: acme}\n"
                                     "        - {ParameterName: image-reference, Value: "
                                     "':{{.Params.other}}', Evaluator: template}\n")) ==
        "DownstreamSetters[0].FunctionInvocation.Arguments[1].Value: the template uses 'other', "
        "which is not one of the setter's Parameters (tag)");
  CHECK(ValidateError("TransformPaths",
                      paths + setter("tag", "set-container-image-reference",
                                     "        - {ParameterName: container-name, Value: acme}\n"
                                     "        - {ParameterName: image-reference, Value: "
                                     "':{{.Params.tag}}', Evaluator: jinja}\n")) ==
        "DownstreamSetters[0].FunctionInvocation.Arguments[1].Evaluator: 'jinja' is not an "
        "evaluator: use template, or leave it out to pass Value as written");
  CHECK(
      ValidateError("TransformPaths",
                    paths + setter("tag", "set-container-image-reference",
                                   "        - {ParameterName: container-name, Value: acme}\n"
                                   "        - {ParameterName: image-reference, Value: ':v1'}\n")) ==
      "DownstreamSetters[0].Parameters: 'tag' is not used by any argument (a Value that uses "
      "it needs Evaluator: template)");
  // The function must edit the downstream Unit's toolchain.
  absl::Status s = ValidateDefinition(
      "TransformPaths",
      Parsed((paths + setter("tag", "set-container-image-reference", image_args)).c_str()),
      "ConfigHub/YAML");
  CHECK(s.message() ==
        "DownstreamSetters[0].FunctionInvocation.FunctionName: set-container-image-reference "
        "works on Kubernetes/YAML, but the downstream unit holds ConfigHub/YAML");
}

TEST_CASE("resources match by schema or apiVersion/kind, and by name") {
  std::vector<Node> docs = Docs(
      "configHub: {configSchema: registrybot.confighub.com/v1alpha4, configName: acme}\n"
      "---\n"
      "configHub: {configSchema: registrybot.confighub.com/v1alpha4, configName: web}\n"
      "---\n"
      "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: env, namespace: prod}\n"
      "---\n"
      "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: env}\n");
  auto find = [&docs](std::string type, std::string name) {
    return FindResource(docs, ResourceRef{std::move(type), std::move(name)});
  };
  CHECK(*find("registrybot.confighub.com/v1alpha4", "acme") == 0);
  CHECK(*find("registrybot.confighub.com/v1alpha4", "web") == 1);
  CHECK(*find("v1/ConfigMap", "env") == 2);
  CHECK(*find("v1/ConfigMap", "prod/env") == 2);
  CHECK(*find("v1", "") == 2);
  CHECK(*find("apps/v1/Deployment", "") == 3);
  CHECK(find("registrybot.confighub.com/v1alpha4", "nope").status().message() ==
        "no resource registrybot.confighub.com/v1alpha4 named nope in the upstream unit");
  CHECK(find("registrybot.confighub.com/v1alpha4", "").status().message() ==
        "2 resources of type registrybot.confighub.com/v1alpha4 match in the upstream unit; "
        "name one with ResourceType and ResourceName");
  CHECK(find("", "").status().message() ==
        "the upstream unit holds 4 documents; say which with Resource (ResourceType, "
        "ResourceName)");
  CHECK(*FindResource(Docs(kRegistrybotUnit), ResourceRef{}) == 0);
}

TEST_CASE("values are found by merge path") {
  Node doc = Docs(kDeployment)[0];
  auto value = [&doc](const char* path) -> std::string {
    auto p = ParseValuePath(path);
    REQUIRE(p.ok());
    const Node* v = FindValue(doc, *p);
    return v == nullptr ? "<none>" : ValueText(*v).value_or("<null>");
  };
  CHECK(value("spec.template.spec.containers.name=sidecar.image") == "ghcr.io/acme/sidecar:v1");
  CHECK(value("spec.template.spec.containers[0].name") == "acme");
  CHECK(value("metadata") == R"({"name":"acme"})");
  CHECK(value("spec.template.spec.containers.name=nope.image") == "<none>");
  CHECK(value("spec.replicas") == "<none>");
  CHECK(ParseValuePath("").status().message() == "path is empty");
  CHECK(ValueText(Node::Int(3)) == "3");
  CHECK(ValueText(Node::Bool(true)) == "true");
  CHECK_FALSE(ValueText(Node::Null()).has_value());
}

TEST_CASE("the registrybot link sets the image from the upstream tag") {
  Definition def = Parsed(kRegistrybotLink);
  auto values = ReadValues(def, Docs(kRegistrybotUnit));
  REQUIRE(values.ok());
  CHECK(values->at("tag") == "v453");
  auto result = ApplySetters(def, *values, Docs(kDeployment));
  REQUIRE(result.ok());
  CHECK(result->changed);
  std::string yaml = config::EmitYaml(result->docs);
  CHECK(yaml.find("image: ghcr.io/acme/acme:v453 # pinned by the link") != std::string::npos);
  CHECK(yaml.find("ghcr.io/acme/sidecar:v1") != std::string::npos);
  // Once applied, applying again changes nothing.
  auto again = ApplySetters(def, *values, result->docs);
  REQUIRE(again.ok());
  CHECK_FALSE(again->changed);

  auto missing = ReadValues(def, Docs("configHub: {configSchema: "
                                      "registrybot.confighub.com/v1alpha4, configName: acme}\n"
                                      "streams: {beta: {tag: v1}}\n"));
  CHECK(missing.status().code() == absl::StatusCode::kFailedPrecondition);
  CHECK(missing.status().message() ==
        "UpstreamPath 'tag': no value at streams.stable.tag in "
        "registrybot.confighub.com/v1alpha4 named acme of the upstream unit");
  auto no_resource =
      ReadValues(def, Docs("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n"));
  CHECK(no_resource.status().message() ==
        "UpstreamPath 'tag': no resource registrybot.confighub.com/v1alpha4 named acme in the "
        "upstream unit");
  // A value the function refuses once the template is filled in.
  auto bad = ApplySetters(def, {{"tag", "not a tag"}}, Docs(kDeployment));
  CHECK(bad.status().code() == absl::StatusCode::kInvalidArgument);
  CHECK(bad.status().message().rfind(
            "DownstreamSetters[0] (set-container-image-reference): set-container-image-reference: "
            "expected an image reference",
            0) == 0);
}

TEST_CASE("setter paths name the places a Protect link holds") {
  Definition def = Parsed(kRegistrybotLink);
  std::vector<Node> docs = Docs(kDeployment);
  auto paths = SetterPaths(def, {{"tag", "v453"}}, docs);
  REQUIRE(paths.ok());
  CHECK(*paths == std::vector<std::string>{
                      "apps/v1/Deployment//acme:spec.template.spec.containers.name=acme.image"});
  auto same = SetterPaths(def, {{"tag", "v452"}}, docs);
  REQUIRE(same.ok());
  CHECK(same->empty());
}

TEST_CASE("Insert adds what is missing; Upsert also replaces what differs") {
  std::vector<Node> upstream = Docs(
      "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndata: {k: upstream}\n"
      "---\n"
      "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: b}\ndata: {k: new}\n"
      "---\n"
      "configHub: {configSchema: s, configName: c}\nv: 2\n"
      "---\n"
      "plain: document\n");
  std::vector<Node> downstream = Docs(
      "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndata: {k: downstream}\n"
      "---\n"
      "configHub: {configSchema: s, configName: c}\nv: 1\n");

  CopyResult inserted = CopyResources(upstream, downstream, CopyMode::kInsert);
  CHECK(inserted.changed);
  CHECK(inserted.added == 2);
  CHECK(inserted.replaced == 0);
  REQUIRE(inserted.docs.size() == 4);
  CHECK(inserted.docs[0] == downstream[0]);
  CHECK(inserted.docs[1] == downstream[1]);
  CHECK(inserted.docs[2] == upstream[1]);
  CHECK(inserted.docs[3] == upstream[3]);

  CopyResult upserted = CopyResources(upstream, downstream, CopyMode::kUpsert);
  CHECK(upserted.added == 2);
  CHECK(upserted.replaced == 2);
  REQUIRE(upserted.docs.size() == 4);
  CHECK(upserted.docs[0] == upstream[0]);
  CHECK(upserted.docs[1] == upstream[2]);

  // Idempotent: a second copy changes nothing, and the identity-less document is not doubled.
  CHECK_FALSE(CopyResources(upstream, upserted.docs, CopyMode::kUpsert).changed);
  CHECK_FALSE(CopyResources(upstream, inserted.docs, CopyMode::kInsert).changed);
  // A namespace is part of the identity.
  CHECK(ResourceIdentity(Docs("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n")[0]) !=
        ResourceIdentity(
            Docs("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, namespace: x}\n")[0]));
  CHECK_FALSE(ResourceIdentity(Docs("plain: document\n")[0]).has_value());
  // An empty Unit takes the copies alone.
  CopyResult into_empty = CopyResources(upstream, Docs(""), CopyMode::kInsert);
  CHECK(into_empty.docs.size() == 4);
}

}  // namespace
}  // namespace cub::links
