// lib/oci/registry.h against a real registry: Debian's docker-registry (distribution 2.8)
// started by tests/harness/registry.sh, plain and with TLS and basic auth; skopeo reads back
// what the client wrote. The registry cases are skipped when docker-registry is missing.

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "../harness/registry_process.h"
#include "../harness/scratch_dir.h"
#include "lib/net/http_client.h"
#include "lib/oci/auth_challenge.h"
#include "lib/oci/registry.h"

namespace cub::oci {
namespace {

using cub::testing::RegistryProcess;
using cub::testing::RunCommand;
using cub::testing::ScratchDir;

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// A minimal OCI image manifest naming one config and one layer blob.
std::string ManifestOf(const std::string& config, const std::string& layer) {
  return R"({"schemaVersion":2,"mediaType":"application/vnd.oci.image.manifest.v1+json",)"
         R"("config":{"mediaType":"application/vnd.cub.test.config.v1+json","digest":")" +
         DigestOf(config) + R"(","size":)" + std::to_string(config.size()) +
         R"(},"layers":[{"mediaType":"application/vnd.oci.image.layer.v1.tar+gzip","digest":")" +
         DigestOf(layer) + R"(","size":)" + std::to_string(layer.size()) + "}]}";
}

TEST_CASE("Registry::Open checks the repository", "[oci]") {
  for (const char* ok : {"127.0.0.1:5000/cub/acme", "registry.example.com/a", "localhost/a/b/c",
                         "r.io/a.b/c_d/e__f/g-h/i---j", "[::1]:5000/x"}) {
    INFO(ok);
    absl::StatusOr<Registry> r = Registry::Open(ok, {});
    REQUIRE(r.ok());
  }
  absl::StatusOr<Registry> r = Registry::Open("127.0.0.1:5000/cub/acme", {});
  CHECK(r->host() == "127.0.0.1:5000");
  CHECK(r->repository() == "cub/acme");
  for (const char* bad : {"", "registry.example.com", "r.io/", "r.io/A", "r.io/a:tag",
                          "r.io/a@sha256:00", "r.io/a//b", "r.io/-a", "r.io/a..b", "r.io/a___b",
                          "r.io:99999/a", "r.io:/a", "user@r.io/a", "https://r.io/a", "r.io/a/"}) {
    INFO(bad);
    absl::StatusOr<Registry> b = Registry::Open(bad, {});
    CHECK(b.status().code() == absl::StatusCode::kInvalidArgument);
    CHECK_THAT(std::string(b.status().message()),
               Catch::StartsWith(std::string("repository \"") + bad + "\""));
  }
}

TEST_CASE("Digests", "[oci]") {
  CHECK(DigestOf("") == "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  CHECK(IsDigest(DigestOf("x")));
  CHECK_FALSE(IsDigest("sha256:E3B0C44298FC1C149AFBF4C8996FB92427AE41E4649B934CA495991B7852B855"));
  CHECK_FALSE(IsDigest("sha512:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"));
  CHECK_FALSE(IsDigest("sha256:e3b0"));
}

TEST_CASE("ParseAuthChallenge reads Basic and Bearer challenges", "[oci]") {
  absl::StatusOr<AuthChallenge> c = ParseAuthChallenge(R"(Basic realm="cub test")");
  REQUIRE(c.ok());
  CHECK(c->scheme == "basic");
  CHECK(c->params.at("realm") == "cub test");
  c = ParseAuthChallenge(
      R"(Bearer realm="https://auth.example.com/token",service="registry.example.com",)"
      R"(scope="repository:cub/acme:pull,push")");
  REQUIRE(c.ok());
  CHECK(c->scheme == "bearer");
  CHECK(c->params.at("realm") == "https://auth.example.com/token");
  CHECK(c->params.at("service") == "registry.example.com");
  CHECK(c->params.at("scope") == "repository:cub/acme:pull,push");
  c = ParseAuthChallenge(R"(Basic realm=x, Bearer realm="y")");
  REQUIRE(c.ok());
  CHECK(c->scheme == "basic");
  CHECK(c->params.size() == 1);
  CHECK_FALSE(ParseAuthChallenge("").ok());
  CHECK_FALSE(ParseAuthChallenge(R"(Bearer realm="open)").ok());
}

TEST_CASE("CredentialsFromDockerConfig finds the host's entry", "[oci]") {
  // "cub:s3cr:t" in base64.
  const std::string doc = R"({"auths":{"https://other.example.com/v1/":{"auth":"eDp5"},
      "https://Reg.Example.com:5000/v1/":{"auth":"Y3ViOnMzY3I6dA=="},
      "plain.example.com":{"username":"u","password":"p"}}})";
  auto c = CredentialsFromDockerConfig(doc, "reg.example.com:5000");
  REQUIRE(c.ok());
  REQUIRE(c->has_value());
  CHECK((*c)->username == "cub");
  CHECK((*c)->password == "s3cr:t");
  c = CredentialsFromDockerConfig(doc, "plain.example.com");
  REQUIRE(c.ok());
  REQUIRE(c->has_value());
  CHECK((*c)->username == "u");
  CHECK((*c)->password == "p");
  c = CredentialsFromDockerConfig(doc, "reg.example.com");  // another port: another registry
  REQUIRE(c.ok());
  CHECK_FALSE(c->has_value());
  c = CredentialsFromDockerConfig(R"({"credsStore":"desktop"})", "reg.example.com");
  REQUIRE(c.ok());
  CHECK_FALSE(c->has_value());

  CHECK(CredentialsFromDockerConfig("{", "x").status().code() ==
        absl::StatusCode::kInvalidArgument);
  // A half-written file must not put the password into the error (the parser's own message
  // quotes the last token it read).
  auto torn = CredentialsFromDockerConfig(R"({"auths":{"x":{"password":"hunter2-secret)", "x");
  CHECK(torn.status().code() == absl::StatusCode::kInvalidArgument);
  CHECK_THAT(std::string(torn.status().message()), !Catch::Contains("hunter2"));
  CHECK(CredentialsFromDockerConfig(R"({"auths":[]})", "x").status().message() ==
        "docker config: \"auths\" is not an object");
  CHECK(CredentialsFromDockerConfig(R"({"auths":{"x":{"auth":"bm9jb2xvbg=="}}})", "x")
            .status()
            .message() ==
        "docker config: auths[\"x\"]: \"auth\" is not the base64 of "
        "\"user:password\"");
  CHECK_THAT(
      std::string(CredentialsFromDockerConfig(R"({"auths":{"x":{}}})", "x").status().message()),
      Catch::StartsWith("docker config: auths[\"x\"] has neither"));
}

// Pushes a config and a layer and a manifest under `tag`; returns the manifest's digest.
std::string PushSample(Registry& reg, const std::string& tag, const std::string& layer) {
  const std::string config = R"({"cub":"test"})";
  REQUIRE(reg.PutBlob(config, DigestOf(config)).ok());
  absl::Status put = reg.PutBlob(layer, DigestOf(layer));
  INFO(put.message());
  REQUIRE(put.ok());
  REQUIRE(reg.PutBlob(layer, DigestOf(layer)).ok());  // present: HEAD says so, no upload
  absl::StatusOr<std::string> digest =
      reg.PutManifest(tag, kOciManifest, ManifestOf(config, layer));
  INFO(digest.status().message());
  REQUIRE(digest.ok());
  CHECK(*digest == DigestOf(ManifestOf(config, layer)));
  return *digest;
}

TEST_CASE("Registry pushes and reads back on a plain registry", "[oci][registry]") {
  if (!cub::testing::HaveRegistry()) {
    WARN("/usr/bin/docker-registry is missing: skipped");
    return;
  }
  net::InitHttpClient();
  ScratchDir tmp("cub_oci_plain");
  RegistryProcess server(tmp.path() + "/reg", "plain");
  RegistryOptions opts;
  opts.insecure = true;
  absl::StatusOr<Registry> reg = Registry::Open(server.host() + "/cub/acme", opts);
  REQUIRE(reg.ok());

  // A large layer (over libcurl's 1 MiB "Expect: 100-continue" threshold).
  std::string layer(3 << 20, '\0');
  for (size_t i = 0; i < layer.size(); ++i) layer[i] = static_cast<char>((i * 7919) >> 3);
  const std::string digest = PushSample(*reg, "acme-r1", layer);

  absl::StatusOr<std::string> blob = reg->GetBlob(DigestOf(layer), 4 << 20);
  REQUIRE(blob.ok());
  CHECK(*blob == layer);
  CHECK(reg->GetBlob(DigestOf(layer), 1 << 20).status().code() ==
        absl::StatusCode::kResourceExhausted);
  CHECK(reg->GetBlob(DigestOf("absent"), 100).status().code() == absl::StatusCode::kNotFound);
  CHECK(reg->GetBlob("sha256:x", 100).status().code() == absl::StatusCode::kInvalidArgument);
  CHECK(reg->PutBlob("data", DigestOf("other")).code() == absl::StatusCode::kInvalidArgument);

  auto byTag = reg->GetManifest("acme-r1");
  REQUIRE(byTag.ok());
  REQUIRE(byTag->has_value());
  CHECK((*byTag)->digest == digest);
  CHECK((*byTag)->media_type == kOciManifest);
  auto byDigest = reg->GetManifest(digest);
  REQUIRE(byDigest.ok());
  REQUIRE(byDigest->has_value());
  CHECK((*byDigest)->body == (*byTag)->body);
  auto resolved = reg->ResolveTag("acme-r1");
  REQUIRE(resolved.ok());
  CHECK(resolved->value_or("") == digest);
  auto absent = reg->ResolveTag("acme-r2");
  REQUIRE(absent.ok());
  CHECK_FALSE(absent->has_value());
  auto none = reg->GetManifest("acme-r2");
  REQUIRE(none.ok());
  CHECK_FALSE(none->has_value());

  // The registry refuses a manifest naming a blob it does not have, in its own words.
  absl::StatusOr<std::string> dangling =
      reg->PutManifest("bad", kOciManifest, ManifestOf("no such config", "no such layer"));
  CHECK(dangling.status().code() == absl::StatusCode::kInvalidArgument);
  CHECK_THAT(std::string(dangling.status().message()),
             Catch::Contains("PUT manifest bad: rejected (400): MANIFEST_BLOB_UNKNOWN"));
  CHECK(reg->PutManifest(DigestOf("x"), kOciManifest, "{}").status().code() ==
        absl::StatusCode::kInvalidArgument);

  // distribution 2.8 has no referrers API.
  CHECK(reg->Referrers(digest).status().code() == absl::StatusCode::kUnimplemented);

  // skopeo, another client, sees what was pushed.
  cub::testing::CommandResult raw = RunCommand("skopeo inspect --raw --tls-verify=false docker://" +
                                               server.host() + "/cub/acme:acme-r1");
  CHECK(raw.status == 0);
  CHECK(DigestOf(raw.out) == digest);
  cub::testing::CommandResult tags =
      RunCommand("skopeo list-tags --tls-verify=false docker://" + server.host() + "/cub/acme");
  CHECK_THAT(tags.out, Catch::Contains("\"acme-r1\""));

  REQUIRE(reg->DeleteManifest(digest).ok());
  auto gone = reg->GetManifest(digest);
  REQUIRE(gone.ok());
  CHECK_FALSE(gone->has_value());
  CHECK(reg->DeleteManifest(digest).code() == absl::StatusCode::kNotFound);
}

TEST_CASE("Registry checks what it reads against its digest", "[oci][registry]") {
  if (!cub::testing::HaveRegistry()) {
    WARN("/usr/bin/docker-registry is missing: skipped");
    return;
  }
  net::InitHttpClient();
  ScratchDir tmp("cub_oci_tamper");
  RegistryProcess server(tmp.path() + "/reg", "plain");
  RegistryOptions opts;
  opts.insecure = true;
  absl::StatusOr<Registry> reg = Registry::Open(server.host() + "/cub/acme", opts);
  REQUIRE(reg.ok());
  const std::string layer = "the layer's bytes";
  PushSample(*reg, "t", layer);
  // Changed in the registry's storage behind its back: it serves the changed bytes.
  const std::string hex = DigestOf(layer).substr(7);
  const std::string data = server.dir() + "/data/docker/registry/v2/blobs/sha256/" +
                           hex.substr(0, 2) + "/" + hex + "/data";
  REQUIRE(std::filesystem::exists(data));
  std::ofstream(data, std::ios::trunc) << "the layer's bytEs";
  absl::StatusOr<std::string> blob = reg->GetBlob(DigestOf(layer), 1000);
  CHECK(blob.status().code() == absl::StatusCode::kDataLoss);
  CHECK_THAT(std::string(blob.status().message()), Catch::Contains("as served hashes to"));
}

TEST_CASE("Registry over TLS with basic auth", "[oci][registry]") {
  if (!cub::testing::HaveRegistry()) {
    WARN("/usr/bin/docker-registry is missing: skipped");
    return;
  }
  net::InitHttpClient();
  ScratchDir tmp("cub_oci_tls");
  RegistryProcess server(tmp.path() + "/reg", "tls");
  const std::string repo = server.host() + "/cub/acme";
  auto creds =
      CredentialsFromDockerConfig(ReadFile(server.dir() + "/docker-config.json"), server.host());
  REQUIRE(creds.ok());
  REQUIRE(creds->has_value());
  CHECK((*creds)->username == "cub-test");

  RegistryOptions opts;
  opts.ca_file = server.dir() + "/ca.pem";
  opts.auth = *creds;
  absl::StatusOr<Registry> reg = Registry::Open(repo, opts);
  REQUIRE(reg.ok());
  const std::string digest = PushSample(*reg, "acme-r1", "layer over TLS");
  auto resolved = reg->ResolveTag("acme-r1");
  REQUIRE(resolved.ok());
  CHECK(resolved->value_or("") == digest);
  // A copy shares what the first learnt (Basic from the start) and works alike.
  Registry copy = *reg;
  auto m = copy.GetManifest(digest);
  REQUIRE(m.ok());
  CHECK(m->has_value());

  cub::testing::CommandResult raw =
      RunCommand("skopeo inspect --raw --cert-dir " + server.dir() + "/certs --authfile " +
                 server.dir() + "/docker-config.json docker://" + repo + ":acme-r1");
  CHECK(raw.status == 0);
  CHECK(DigestOf(raw.out) == digest);

  SECTION("no credentials") {
    RegistryOptions anon;
    anon.ca_file = opts.ca_file;
    absl::StatusOr<Registry> r = Registry::Open(repo, anon);
    auto got = r->ResolveTag("acme-r1");
    CHECK(got.status().code() == absl::StatusCode::kUnavailable);
    CHECK(got.status().message() ==
          "registry " + server.host() +
              ": HEAD manifest acme-r1: the registry asks for a user name and password (401), "
              "and none is configured");
  }
  SECTION("a wrong password, never shown") {
    RegistryOptions wrong = opts;
    wrong.auth->password = "not-the-password";
    absl::StatusOr<Registry> r = Registry::Open(repo, wrong);
    absl::Status put = r->PutBlob("x", DigestOf("x"));
    CHECK(put.code() == absl::StatusCode::kUnavailable);
    CHECK_THAT(std::string(put.message()), Catch::Contains("refused (401)"));
    CHECK_THAT(std::string(put.message()), !Catch::Contains("not-the-password"));
  }
  SECTION("an untrusted certificate") {
    RegistryOptions system_roots = opts;
    system_roots.ca_file.clear();
    absl::StatusOr<Registry> r = Registry::Open(repo, system_roots);
    auto got = r->GetManifest("acme-r1");
    CHECK(got.status().code() == absl::StatusCode::kUnavailable);
    CHECK_THAT(
        std::string(got.status().message()),
        Catch::StartsWith("registry " + server.host() + ": GET manifest acme-r1: GET https://"));
  }
  SECTION("plain HTTP to a TLS port") {
    RegistryOptions plain = opts;
    plain.insecure = true;
    absl::StatusOr<Registry> r = Registry::Open(repo, plain);
    auto got = r->GetManifest("acme-r1");
    CHECK_FALSE(got.ok());
  }
}

TEST_CASE("Registry reports an unreachable registry as UNAVAILABLE", "[oci]") {
  net::InitHttpClient();
  RegistryOptions opts;
  opts.insecure = true;
  opts.timeout = absl::Seconds(5);
  // Port 1 on loopback: nothing listens there.
  absl::StatusOr<Registry> reg = Registry::Open("127.0.0.1:1/cub/acme", opts);
  REQUIRE(reg.ok());
  auto got = reg->ResolveTag("x");
  CHECK(got.status().code() == absl::StatusCode::kUnavailable);
  CHECK_THAT(std::string(got.status().message()),
             Catch::StartsWith("registry 127.0.0.1:1: HEAD manifest x: HEAD http://127.0.0.1:1/"));
}

}  // namespace
}  // namespace cub::oci
