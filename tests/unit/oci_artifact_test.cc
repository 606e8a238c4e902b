// lib/oci/artifact.h: the deterministic layer and manifest of a Release, read back by GNU tar,
// by ReadLayer, and (pushed to Debian's docker-registry) by skopeo.

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "../harness/registry_process.h"
#include "../harness/scratch_dir.h"
#include "lib/net/http_client.h"
#include "lib/oci/artifact.h"
#include "lib/oci/registry.h"
#include "lib/util/json.h"

namespace cub::oci {
namespace {

using cub::testing::RunCommand;
using cub::testing::ScratchDir;

void WriteFile(const std::string& path, const std::string& data) {
  std::ofstream out(path, std::ios::binary);
  out << data;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

const std::string kLongName = std::string(120, 'n') + ".yaml";

std::vector<LayerFile> SampleFiles() {
  return {{"web.yaml", "kind: Deployment\n"},
          {"db.yaml", "kind: StatefulSet\n"},
          {kLongName, "long: name\n"},
          {"empty.yaml", ""}};
}

ReleaseInfo SampleInfo() {
  ReleaseInfo info;
  info.space = "acme";
  info.release_num = 3;
  info.release_id = "8c0a3c52-8d0e-4a4b-9d3e-0f4c6a1b2c3d";
  info.change_order = "base/co-1";
  info.bundle_digest = DigestOf("bundle");
  info.created = 1795000000;
  return info;
}

TEST_CASE("The layer is the same bytes for the same files", "[oci]") {
  std::vector<LayerFile> reversed = SampleFiles();
  std::reverse(reversed.begin(), reversed.end());
  absl::StatusOr<std::string> a = BuildLayer(SampleFiles()), b = BuildLayer(reversed);
  REQUIRE(a.ok());
  REQUIRE(b.ok());
  CHECK(*a == *b);
  // gzip: no file name (FLG 0), mtime 0.
  REQUIRE(a->size() > 10);
  CHECK(static_cast<unsigned char>((*a)[0]) == 0x1f);
  CHECK(static_cast<unsigned char>((*a)[1]) == 0x8b);
  CHECK((*a)[3] == 0);
  CHECK(a->substr(4, 4) == std::string(4, '\0'));

  absl::StatusOr<ReleaseArtifact> x = BuildReleaseArtifact(SampleInfo(), SampleFiles());
  absl::StatusOr<ReleaseArtifact> y = BuildReleaseArtifact(SampleInfo(), reversed);
  REQUIRE(x.ok());
  REQUIRE(y.ok());
  CHECK(x->manifest == y->manifest);
  CHECK(x->manifest_digest == DigestOf(x->manifest));
  CHECK(x->layer.data == *a);
}

TEST_CASE("GNU tar reads the layer: sorted regular files, 0644, owner 0, time 0", "[oci]") {
  ScratchDir tmp("cub_oci_layer");
  absl::StatusOr<std::string> layer = BuildLayer(SampleFiles());
  REQUIRE(layer.ok());
  WriteFile(tmp.path() + "/layer.tar.gz", *layer);
  cub::testing::CommandResult list =
      RunCommand("TZ=UTC tar --numeric-owner -tvzf " + tmp.path() + "/layer.tar.gz");
  REQUIRE(list.status == 0);
  std::istringstream lines(list.out);
  std::string line;
  std::vector<std::string> names;
  while (std::getline(lines, line)) {
    INFO(line);
    CHECK_THAT(line, Catch::StartsWith("-rw-r--r-- 0/0"));
    CHECK_THAT(line, Catch::Contains("1970-01-01 00:00"));
    names.push_back(line.substr(line.rfind(' ') + 1));
  }
  CHECK(names == std::vector<std::string>{"db.yaml", "empty.yaml", kLongName, "web.yaml"});
  REQUIRE(RunCommand("tar -xzf " + tmp.path() + "/layer.tar.gz -C " + tmp.path()).status == 0);
  CHECK(ReadFile(tmp.path() + "/web.yaml") == "kind: Deployment\n");
  CHECK(ReadFile(tmp.path() + "/" + kLongName) == "long: name\n");
}

TEST_CASE("ReadLayer gives back the files", "[oci]") {
  absl::StatusOr<std::string> layer = BuildLayer(SampleFiles());
  REQUIRE(layer.ok());
  absl::StatusOr<std::vector<LayerFile>> files = ReadLayer(*layer);
  REQUIRE(files.ok());
  REQUIRE(files->size() == 4);
  CHECK((*files)[0].name == "db.yaml");
  CHECK((*files)[0].content == "kind: StatefulSet\n");
  CHECK((*files)[1].name == "empty.yaml");
  CHECK((*files)[1].content.empty());
  CHECK((*files)[2].name == kLongName);

  LayerLimits few;
  few.max_entries = 3;
  CHECK(ReadLayer(*layer, few).status().code() == absl::StatusCode::kResourceExhausted);
  LayerLimits small;
  small.max_total_bytes = 20;
  CHECK(ReadLayer(*layer, small).status().code() == absl::StatusCode::kResourceExhausted);
  CHECK(ReadLayer(layer->substr(0, layer->size() - 9)).status().code() ==
        absl::StatusCode::kInvalidArgument);
  CHECK(ReadLayer("not gzip").status().code() == absl::StatusCode::kInvalidArgument);
  CHECK(ReadLayer(*layer + "x").status().message() == "layer: bytes follow the gzip stream");

  // A gzip bomb stops at the bound, not at the end of the stream.
  absl::StatusOr<std::string> big = BuildLayer({{"zeros", std::string(8 << 20, '\0')}});
  REQUIRE(big.ok());
  LayerLimits tight;
  tight.max_total_bytes = 1 << 20;
  tight.max_entries = 10;
  CHECK(ReadLayer(*big, tight).status().code() == absl::StatusCode::kResourceExhausted);
}

TEST_CASE("ReadLayer takes regular files with plain names only", "[oci]") {
  ScratchDir tmp("cub_oci_layer_bad");
  const std::string d = tmp.path() + "/src";
  std::filesystem::create_directories(d + "/sub");
  WriteFile(d + "/a.yaml", "a");
  WriteFile(d + "/sub/b.yaml", "b");
  std::filesystem::create_symlink("/etc/passwd", d + "/link.yaml");
  struct Case {
    const char* members;
    const char* message;
  };
  for (Case c : {Case{"sub", "is not a regular file (type '5')"},
                 Case{"sub/b.yaml", "layer: entry \"sub/b.yaml\" is not a plain file name"},
                 Case{"link.yaml", "layer: entry \"link.yaml\" is not a regular file (type '2')"},
                 Case{"./a.yaml", "layer: entry \"./a.yaml\" is not a plain file name"}}) {
    INFO(c.members);
    REQUIRE(RunCommand(std::string("tar --format=ustar --no-recursion -czf ") + tmp.path() +
                       "/t.tar.gz -C " + d + " " + c.members)
                .status == 0);
    absl::StatusOr<std::vector<LayerFile>> files = ReadLayer(ReadFile(tmp.path() + "/t.tar.gz"));
    CHECK(files.status().code() == absl::StatusCode::kInvalidArgument);
    CHECK_THAT(std::string(files.status().message()), Catch::Contains(c.message));
  }
  // GNU tar's own layer of plain files is read.
  REQUIRE(RunCommand("tar --format=ustar -czf " + tmp.path() + "/ok.tar.gz -C " + d + " a.yaml")
              .status == 0);
  absl::StatusOr<std::vector<LayerFile>> ok = ReadLayer(ReadFile(tmp.path() + "/ok.tar.gz"));
  REQUIRE(ok.ok());
  CHECK(ok->size() == 1);

  CHECK(BuildLayer({{"a/b", "x"}}).status().code() == absl::StatusCode::kInvalidArgument);
  CHECK(BuildLayer({{".hidden", "x"}}).status().code() == absl::StatusCode::kInvalidArgument);
  CHECK(BuildLayer({{"x", "1"}, {"x", "2"}}).status().message() ==
        "layer: file name \"x\" appears twice");
}

TEST_CASE("The manifest names the Release", "[oci]") {
  absl::StatusOr<ReleaseArtifact> a = BuildReleaseArtifact(SampleInfo(), SampleFiles());
  REQUIRE(a.ok());
  absl::StatusOr<ImageManifest> m = ParseImageManifest(a->manifest);
  REQUIRE(m.ok());
  CHECK(m->media_type == kOciManifest);
  CHECK(m->config_media_type == kReleaseConfigMediaType);
  CHECK(m->config_digest == a->config.digest);
  CHECK(m->config_digest == DigestOf(a->config.data));
  REQUIRE(m->layers.size() == 1);
  CHECK(m->layers[0].media_type == kLayerMediaType);
  CHECK(m->layers[0].digest == DigestOf(a->layer.data));
  CHECK(m->layers[0].size == static_cast<int64_t>(a->layer.data.size()));
  CHECK(m->annotations.at("org.opencontainers.image.title") == "acme");
  CHECK(m->annotations.at("org.opencontainers.image.created") == "2026-11-18T11:06:40Z");
  CHECK(m->annotations.at(kAnnotationSpace) == "acme");
  CHECK(m->annotations.at(kAnnotationRelease) == "3");
  CHECK(m->annotations.at(kAnnotationReleaseId) == SampleInfo().release_id);
  CHECK(m->annotations.at(kAnnotationChangeOrder) == "base/co-1");
  CHECK(m->annotations.at(kAnnotationBundleDigest) == DigestOf("bundle"));
  CHECK(m->subject_digest.empty());

  absl::StatusOr<Json> config = ParseJson(a->config.data);
  REQUIRE(config.ok());
  CHECK((*config)["files"].size() == 4);
  CHECK((*config)["releaseID"] == SampleInfo().release_id);

  CHECK_FALSE(ParseImageManifest("{}").ok());
  CHECK_FALSE(ParseImageManifest(R"({"schemaVersion":2,"config":{"digest":"x"}})").ok());
  CHECK(ParseImageManifest(
            R"({"schemaVersion":2,"mediaType":"application/vnd.oci.image.index.v1+json"})")
            .status()
            .code() == absl::StatusCode::kInvalidArgument);
}

TEST_CASE("skopeo copies a pushed Release artifact out of a registry", "[oci][registry]") {
  if (!cub::testing::HaveRegistry()) {
    WARN("/usr/bin/docker-registry is missing: skipped");
    return;
  }
  net::InitHttpClient();
  ScratchDir tmp("cub_oci_artifact");
  cub::testing::RegistryProcess server(tmp.path() + "/reg", "plain");
  RegistryOptions opts;
  opts.insecure = true;
  absl::StatusOr<Registry> reg = Registry::Open(server.host() + "/cub/acme", opts);
  REQUIRE(reg.ok());
  absl::StatusOr<ReleaseArtifact> a = BuildReleaseArtifact(SampleInfo(), SampleFiles());
  REQUIRE(a.ok());
  REQUIRE(reg->PutBlob(a->config.data, a->config.digest).ok());
  REQUIRE(reg->PutBlob(a->layer.data, a->layer.digest).ok());
  absl::StatusOr<std::string> digest = reg->PutManifest("acme-r3", kOciManifest, a->manifest);
  REQUIRE(digest.ok());
  CHECK(*digest == a->manifest_digest);

  const std::string out = tmp.path() + "/copy";
  cub::testing::CommandResult copy =
      RunCommand("skopeo copy --src-tls-verify=false docker://" + server.host() +
                 "/cub/acme:acme-r3 dir:" + out + " 2>&1");
  INFO(copy.out);
  REQUIRE(copy.status == 0);
  CHECK(ReadFile(out + "/manifest.json") == a->manifest);
  const std::string layer_file = out + "/" + a->layer.digest.substr(7);
  CHECK(ReadFile(layer_file) == a->layer.data);
  REQUIRE(RunCommand("tar -xzf " + layer_file + " -C " + tmp.path()).status == 0);
  CHECK(ReadFile(tmp.path() + "/db.yaml") == "kind: StatefulSet\n");
}

}  // namespace
}  // namespace cub::oci
