// The OCI provider (lib/targets/oci.cc) against Debian's docker-registry: params, pushes and
// tags as read back by this client and by skopeo, retries, tag collisions between Spaces, and
// credentials (TLS and basic auth). Registry cases are skipped when docker-registry is missing.

#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "harness/registry_process.h"
#include "harness/scratch_dir.h"
#include "lib/net/http_client.h"
#include "lib/oci/artifact.h"
#include "lib/oci/registry.h"
#include "lib/oci/verify.h"
#include "lib/sign/dsse.h"
#include "lib/sign/key_ring.h"
#include "lib/sign/statement.h"
#include "lib/targets/provider.h"
#include "lib/util/bundle_digest.h"

namespace cub::targets {
namespace {

using cub::testing::RegistryProcess;
using cub::testing::RunCommand;
using cub::testing::ScratchDir;

std::string BadParams(const std::map<std::string, std::string>& params) {
  absl::Status s = ValidateParams("OCI", params);
  return s.ok() ? "" : std::string(s.message());
}

TEST_CASE("OCI target params", "[oci]") {
  CHECK(ValidateParams("OCI", {{"repository", "registry.example.com/cub/prod"}}).ok());
  CHECK(ValidateParams("OCI", {{"repository", "127.0.0.1:5000/cub"}, {"insecure", "true"}}).ok());
  CHECK(ValidateParams("OCI", {{"repository", "localhost:5000/cub"}, {"insecure", "false"}}).ok());
  CHECK(ValidateParams("OCI", {{"repository", "r.example.com/cub"},
                               {"credentials", "docker.json"},
                               {"ca-file", "ca.pem"}})
            .ok());
  CHECK(BadParams({}) == "OCI target: missing param 'repository'");
  CHECK(BadParams({{"repository", "r.io/a"}, {"tag", "x"}}) ==
        "OCI target: unknown param 'tag'; known: repository, insecure, credentials, ca-file");
  CHECK_THAT(BadParams({{"repository", "oci://r.io/a"}}),
             Catch::StartsWith("OCI target: param 'repository': repository \"oci://r.io/a\""));
  CHECK_THAT(BadParams({{"repository", "r.io/App"}}),
             Catch::Contains("the path component \"App\" is not lowercase"));
  CHECK(BadParams({{"repository", "r.io/a"}, {"insecure", "yes"}}) ==
        "OCI target: param 'insecure' must be true or false, not \"yes\"");
  CHECK(BadParams({{"repository", "r.io/a"}, {"insecure", "true"}}) ==
        "OCI target: param 'insecure=true' (plain HTTP) is accepted only for a registry on a "
        "loopback address (127.0.0.1, [::1], localhost), not r.io; use HTTPS, with param "
        "'ca-file' for a private CA");
  CHECK_THAT(BadParams({{"repository", "r.io/a"}, {"credentials", "../x"}}),
             Catch::StartsWith("OCI target: param 'credentials' must be a plain file name"));
  CHECK_THAT(BadParams({{"repository", "r.io/a"}, {"ca-file", "/etc/ssl/ca.pem"}}),
             Catch::StartsWith("OCI target: param 'ca-file' must be a plain file name"));
  CHECK(BadParams({{"repository", "127.0.0.1:5000/a"}, {"insecure", "true"}, {"ca-file", "c"}}) ==
        "OCI target: param 'ca-file' is for HTTPS; it cannot go with 'insecure=true'");
}

// The key cubd signs with in these tests.
const sign::SigningKey& TestKey() {
  static const sign::SigningKey* key = new sign::SigningKey(*sign::SigningKey::Generate());
  return *key;
}

// A Release as cubd records it: its bundle digest and signed provenance, which the evidence
// step pushes and verifies.
Delivery Release(const std::string& space, int64_t num, const std::string& content) {
  Delivery d;
  d.release_id = "release-" + space + "-" + std::to_string(num);
  d.space = space;
  d.release_num = num;
  d.published_at = 1795000000 + num;
  d.files = {{"app.yaml", content}, {"svc.yaml", "kind: Service\n"}};
  d.bundle_digest = BundleDigestOf({{"app.yaml", content}, {"svc.yaml", "kind: Service\n"}});
  const std::string statement = sign::Statement(
      {{space + "/release-" + std::to_string(num), d.bundle_digest.substr(7)}},
      oci::kProvenancePredicateType, {{"Space", space}, {"ReleaseNum", num}, {"ChangeOrder", ""}});
  d.provenance = sign::SignEnvelope(TestKey(), sign::kInTotoPayloadType, statement).ToJson();
  return d;
}

ProviderEnv Env(const std::string& creds_dir = "") {
  ProviderEnv env;
  env.credentials_dir = creds_dir;
  env.keys = sign::FixedKeyRing(TestKey());
  return env;
}

std::string Tag(oci::Registry& reg, const std::string& tag) {
  auto d = reg.ResolveTag(tag);
  REQUIRE(d.ok());
  return d->value_or("");
}

TEST_CASE("OCI target pushes each Release and moves the Space's tag", "[oci][registry]") {
  if (!cub::testing::HaveRegistry()) {
    WARN("/usr/bin/docker-registry is missing: skipped");
    return;
  }
  net::InitHttpClient();
  ScratchDir tmp("cub_oci_target");
  RegistryProcess server(tmp.path() + "/reg", "plain");
  const std::string repo = server.host() + "/cub/prod";
  std::map<std::string, std::string> params = {{"repository", repo}, {"insecure", "true"}};
  auto provider = MakeProvider("OCI", params, Env());
  REQUIRE(provider.ok());
  oci::RegistryOptions opts;
  opts.insecure = true;
  auto reg = oci::Registry::Open(repo, opts);
  REQUIRE(reg.ok());

  const std::vector<Delivery> batch = {Release("acme", 1, "v: 1\n"), Release("acme", 2, "v: 2\n"),
                                       Release("beta", 1, "v: b\n")};
  auto r = (*provider)->Deliver(batch);
  INFO(r.status().message());
  REQUIRE(r.ok());
  REQUIRE(r->releases.size() == 3);
  for (size_t i = 0; i < 3; ++i) {
    const DeliveredRelease& d = r->releases[i];
    const std::string tag = batch[i].space + "-r" + std::to_string(batch[i].release_num);
    CHECK(d.release_id == batch[i].release_id);
    CHECK(d.artifact_ref == repo + ":" + tag);
    CHECK(d.location == d.artifact_ref);
    CHECK(d.commit.empty());
    CHECK_FALSE(d.found_earlier);
    CHECK(oci::IsDigest(d.artifact_digest));
    CHECK(Tag(*reg, tag) == d.artifact_digest);
    CHECK(d.verification_reason == "Verified");
  }
  // The later Release of a Space wins its deploy tag.
  CHECK(Tag(*reg, "acme") == r->releases[1].artifact_digest);
  CHECK(Tag(*reg, "beta") == r->releases[2].artifact_digest);

  // skopeo sees the tags and the layer's files.
  cub::testing::CommandResult tags =
      RunCommand("skopeo list-tags --tls-verify=false docker://" + repo);
  for (const char* t : {"\"acme\"", "\"acme-r1\"", "\"acme-r2\"", "\"beta\"", "\"beta-r1\""}) {
    CHECK_THAT(tags.out, Catch::Contains(t));
  }
  auto m = reg->GetManifest("acme");
  REQUIRE(m.ok());
  REQUIRE(m->has_value());
  auto parsed = oci::ParseImageManifest((*m)->body);
  REQUIRE(parsed.ok());
  CHECK(parsed->annotations.at(oci::kAnnotationReleaseId) == batch[1].release_id);
  auto layer = reg->GetBlob(parsed->layers.at(0).digest, 1 << 20);
  REQUIRE(layer.ok());
  auto files = oci::ReadLayer(*layer);
  REQUIRE(files.ok());
  REQUIRE(files->size() == 2);
  CHECK((*files)[0].name == "app.yaml");
  CHECK((*files)[0].content == "v: 2\n");

  // Again (cubd stopped before recording): every Release found, the same digests.
  auto again = (*provider)->Deliver(batch);
  REQUIRE(again.ok());
  for (size_t i = 0; i < 3; ++i) {
    CHECK(again->releases[i].found_earlier);
    CHECK(again->releases[i].artifact_digest == r->releases[i].artifact_digest);
  }
  CHECK(Tag(*reg, "acme") == r->releases[1].artifact_digest);

  SECTION("the tags of two Spaces meet: neither is overwritten") {
    // Space "acme-r1"'s deploy tag is Space "acme"'s first Release tag.
    auto clash = (*provider)->Deliver({Release("acme-r1", 1, "other\n")});
    CHECK(clash.status().code() == absl::StatusCode::kFailedPrecondition);
    CHECK_THAT(std::string(clash.status().message()),
               Catch::Contains("the tag \"acme-r1\" of space acme-r1 holds an artifact of space "
                               "\"acme\"; cub leaves it alone"));
    CHECK(Tag(*reg, "acme-r1") == r->releases[0].artifact_digest);
  }
  SECTION("a tag cub did not push is left alone") {
    const std::string config = "{}";
    REQUIRE(reg->PutBlob(config, oci::DigestOf(config)).ok());
    const std::string foreign =
        R"({"schemaVersion":2,"mediaType":"application/vnd.oci.image.manifest.v1+json",)"
        R"("config":{"mediaType":"application/vnd.oci.image.config.v1+json","digest":")" +
        oci::DigestOf(config) + R"(","size":2},"layers":[]})";
    REQUIRE(reg->PutManifest("gamma", oci::kOciManifest, foreign).ok());
    auto clash = (*provider)->Deliver({Release("gamma", 1, "g\n")});
    CHECK(clash.status().code() == absl::StatusCode::kFailedPrecondition);
    CHECK_THAT(std::string(clash.status().message()),
               Catch::Contains("holds something cub did not push"));
    CHECK(Tag(*reg, "gamma") == oci::DigestOf(foreign));
  }
  SECTION("without keys, nothing is pushed") {
    ProviderEnv env = Env();
    env.keys = nullptr;
    auto keyless = MakeProvider("OCI", params, env);
    REQUIRE(keyless.ok());
    auto refused = (*keyless)->Deliver({Release("delta", 1, "d\n")});
    CHECK(refused.status().code() == absl::StatusCode::kFailedPrecondition);
    CHECK(Tag(*reg, "delta-r1").empty());
  }
}

TEST_CASE("OCI target over TLS with credentials from a docker config", "[oci][registry]") {
  if (!cub::testing::HaveRegistry()) {
    WARN("/usr/bin/docker-registry is missing: skipped");
    return;
  }
  net::InitHttpClient();
  ScratchDir tmp("cub_oci_target_tls");
  RegistryProcess server(tmp.path() + "/reg", "tls");
  const std::string creds = tmp.path() + "/creds";
  std::filesystem::create_directories(creds);
  std::filesystem::copy_file(server.dir() + "/docker-config.json", creds + "/docker.json");
  std::filesystem::copy_file(server.dir() + "/ca.pem", creds + "/ca.pem");
  chmod((creds + "/docker.json").c_str(), 0600);
  const std::string repo = server.host() + "/cub/prod";
  std::map<std::string, std::string> params = {
      {"repository", repo}, {"credentials", "docker.json"}, {"ca-file", "ca.pem"}};
  auto provider = MakeProvider("OCI", params, Env(creds));
  REQUIRE(provider.ok());
  auto r = (*provider)->Deliver({Release("acme", 1, "tls\n")});
  INFO(r.status().message());
  REQUIRE(r.ok());
  cub::testing::CommandResult raw =
      RunCommand("skopeo inspect --raw --cert-dir " + server.dir() + "/certs --authfile " + creds +
                 "/docker.json docker://" + repo + ":acme");
  CHECK(raw.status == 0);
  CHECK(oci::DigestOf(raw.out) == r->releases[0].artifact_digest);

  SECTION("a credential file readable by others is refused") {
    chmod((creds + "/docker.json").c_str(), 0644);
    auto refused = (*provider)->Deliver({Release("acme", 2, "x\n")});
    CHECK(refused.status().code() == absl::StatusCode::kFailedPrecondition);
    CHECK_THAT(std::string(refused.status().message()),
               Catch::Contains("readable by others (mode 0644)"));
  }
  SECTION("a docker config without this registry") {
    std::ofstream(creds + "/docker.json", std::ios::trunc)
        << R"({"auths":{"other.example.com":{"auth":"eDp5"}}})";
    auto refused = (*provider)->Deliver({Release("acme", 2, "x\n")});
    CHECK(refused.status().code() == absl::StatusCode::kFailedPrecondition);
    CHECK_THAT(std::string(refused.status().message()),
               Catch::EndsWith("docker.json: its \"auths\" has no entry for " + server.host()));
  }
  SECTION("a wrong password") {
    std::ofstream(creds + "/docker.json", std::ios::trunc)
        << R"({"auths":{")" << server.host() << R"(":{"username":"cub-test","password":"nope"}}})";
    auto refused = (*provider)->Deliver({Release("acme", 2, "x\n")});
    CHECK(refused.status().code() == absl::StatusCode::kUnavailable);
    CHECK_THAT(std::string(refused.status().message()), Catch::Contains("refused (401)"));
  }
  SECTION("no credentials dir") {
    auto p = MakeProvider("OCI", params, Env());
    REQUIRE(p.ok());
    auto refused = (*p)->Deliver({Release("acme", 2, "x\n")});
    CHECK(refused.status().code() == absl::StatusCode::kFailedPrecondition);
    CHECK_THAT(std::string(refused.status().message()),
               Catch::Contains("cubd was started without --git-credentials-dir"));
  }
}

}  // namespace
}  // namespace cub::targets
