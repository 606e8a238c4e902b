// The OCI provider (lib/targets/oci_internal.h): each Release pushed to a registry as an
// artifact (lib/oci/artifact.h), tagged per Space and Release.
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "lib/oci/artifact.h"
#include "lib/oci/registry.h"
#include "lib/targets/internal.h"
#include "lib/targets/oci_internal.h"
#include "lib/util/json.h"
#include "lib/util/status_macros.h"

namespace cub::targets::internal {
namespace {

constexpr char kRepository[] = "repository";
constexpr char kInsecure[] = "insecure";
constexpr char kCredentials[] = "credentials";
constexpr char kCaFile[] = "ca-file";

bool IsLoopbackHost(std::string host) {
  if (absl::StartsWith(host, "[")) {
    host = host.substr(1, host.find(']') - 1);
  } else {
    host = host.substr(0, host.find(':'));
  }
  host = absl::AsciiStrToLower(host);
  in_addr v4{};
  in6_addr v6{};
  return host == "localhost" ||
         (::inet_pton(AF_INET, host.c_str(), &v4) == 1 && (ntohl(v4.s_addr) >> 24) == 127) ||
         (::inet_pton(AF_INET6, host.c_str(), &v6) == 1 && IN6_IS_ADDR_LOOPBACK(&v6));
}

absl::Status CheckFileName(const std::string& param, const std::string& name) {
  if (name.empty() || name[0] == '.' || name.find('/') != std::string::npos ||
      name.find('\0') != std::string::npos) {
    return absl::InvalidArgumentError(
        absl::StrCat("OCI target: param '", param,
                     "' must be a plain file name in cubd's credentials "
                     "directory (no '/', not starting with '.'), not ",
                     JsonQuote(name)));
  }
  return absl::OkStatus();
}

std::string Param(const std::map<std::string, std::string>& params, const char* name) {
  auto it = params.find(name);
  return it == params.end() ? "" : it->second;
}

// A credential file of the Target's Space: a regular file not readable by others, at most
// 1 MiB. Read at each Deliver, so a rotated password is used at once.
absl::StatusOr<std::string> ReadSecretFile(const std::string& what, const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    int err = errno;
    return absl::FailedPreconditionError(
        absl::StrCat(what, ": cannot open: ", ErrnoText(err),
                     err == ENOENT ? " (the file must be in cubd's --git-credentials-dir, in "
                                     "the directory of the Target's space)"
                                   : ""));
  }
  struct stat st;
  std::string text;
  absl::Status status;
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    status = absl::FailedPreconditionError(absl::StrCat(what, ": not a regular file"));
  } else if (st.st_mode & S_IROTH) {
    status = absl::FailedPreconditionError(absl::StrFormat(
        "%s: readable by others (mode %04o); a credential must not be: chmod o-rwx it", what,
        st.st_mode & 07777));
  } else {
    char buf[8192];
    ssize_t n;
    while ((n = ::read(fd, buf, sizeof buf)) > 0 && text.size() < (1 << 20)) text.append(buf, n);
    if (n < 0) status = absl::FailedPreconditionError(absl::StrCat(what, ": ", ErrnoText(errno)));
  }
  ::close(fd);
  if (!status.ok()) return status;
  return text;
}

class OciProvider : public Provider {
 public:
  OciProvider(std::map<std::string, std::string> params, ProviderEnv env)
      : params_(std::move(params)), env_(std::move(env)) {}

  absl::StatusOr<DeliveryResult> Deliver(const std::vector<Delivery>& batch) override {
    for (const Delivery& d : batch) CUB_RETURN_IF_ERROR(ValidateDelivery(d));
    if (!env_.keys) {
      return absl::FailedPreconditionError(
          absl::StrCat("OCI target ", Param(params_, kRepository),
                       ": cubd has no signing keys for the artifacts' evidence"));
    }
    CUB_ASSIGN_OR_RETURN(oci::Registry registry, Open());
    DeliveryResult result;
    for (const Delivery& d : batch) {
      CUB_ASSIGN_OR_RETURN(DeliveredRelease r, DeliverOne(registry, d));
      result.releases.push_back(std::move(r));
    }
    return result;
  }

 private:
  std::string Where() const { return absl::StrCat("OCI target ", Param(params_, kRepository)); }

  absl::StatusOr<oci::Registry> Open() const {
    oci::RegistryOptions opts;
    opts.insecure = Param(params_, kInsecure) == "true";
    std::string dir = env_.credentials_dir;
    while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
    for (const char* param : {kCredentials, kCaFile}) {
      if (!Param(params_, param).empty() && dir.empty()) {
        return absl::FailedPreconditionError(
            absl::StrCat(Where(), ": param '", param, "' names file '", Param(params_, param),
                         "', but cubd was started without --git-credentials-dir"));
      }
    }
    CUB_ASSIGN_OR_RETURN(oci::Registry probe,
                         oci::Registry::Open(Param(params_, kRepository), opts));
    if (std::string ca = Param(params_, kCaFile); !ca.empty()) {
      opts.ca_file = absl::StrCat(dir, "/", ca);
      struct stat st;
      if (::stat(opts.ca_file.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) {
        return absl::FailedPreconditionError(absl::StrCat(
            Where(), ": param 'ca-file': ", opts.ca_file, " is not a readable regular file"));
      }
      // Whoever may write the CA bundle may add a CA and read the registry credentials.
      if ((st.st_mode & (S_IWGRP | S_IWOTH)) != 0) {
        return absl::FailedPreconditionError(absl::StrCat(
            Where(), ": param 'ca-file': ", opts.ca_file, " is writable by others (mode ",
            absl::StrFormat("%04o", st.st_mode & 0777), "); chmod go-w it"));
      }
    }
    if (std::string creds = Param(params_, kCredentials); !creds.empty()) {
      const std::string path = absl::StrCat(dir, "/", creds);
      const std::string what = absl::StrCat(Where(), ": param 'credentials': ", path);
      CUB_ASSIGN_OR_RETURN(std::string text, ReadSecretFile(what, path));
      auto found = oci::CredentialsFromDockerConfig(text, probe.host());
      if (!found.ok()) {
        return absl::FailedPreconditionError(absl::StrCat(what, ": ", found.status().message()));
      }
      if (!found->has_value()) {
        return absl::FailedPreconditionError(
            absl::StrCat(what, ": its \"auths\" has no entry for ", probe.host()));
      }
      opts.auth = **found;
    }
    return oci::Registry::Open(Param(params_, kRepository), opts);
  }

  absl::StatusOr<DeliveredRelease> DeliverOne(oci::Registry& registry, const Delivery& d) {
    OciPushed pushed;
    pushed.delivery = &d;
    pushed.tag = absl::StrCat(d.space, "-r", d.release_num);
    pushed.deploy_tag = d.space;
    if (pushed.tag.size() > 128) {
      return absl::InvalidArgumentError(absl::StrCat(
          Where(), ": the tag of space ", d.space, "'s release ", d.release_num,
          " would be over 128 characters (the registry's limit); use a shorter space name"));
    }
    pushed.ref = absl::StrCat(registry.host(), "/", registry.repository(), ":", pushed.tag);
    DeliveredRelease out;
    out.release_id = d.release_id;
    if (!d.rollback_of.release_id.empty()) return DeliverEarlier(registry, d, pushed, out);
    CUB_ASSIGN_OR_RETURN(std::optional<oci::Manifest> existing, registry.GetManifest(pushed.tag));
    if (existing) {
      absl::StatusOr<oci::ImageManifest> m = oci::ParseImageManifest(existing->body);
      if (m.ok() && m->annotations[oci::kAnnotationReleaseId] == d.release_id) {
        out.found_earlier = true;
        pushed.manifest_digest = existing->digest;
        pushed.manifest = std::move(existing->body);
      } else if (ArtifactSpace(existing->body) != d.space) {
        // A Space's Release tag ("a-r1") can be another Space's deploy tag (Space "a-r1").
        return absl::FailedPreconditionError(absl::StrCat(
            Where(), ": the tag ", JsonQuote(pushed.tag), " for space ", d.space, "'s release ",
            d.release_num,
            " holds an artifact that is not this space's; cub leaves it alone (give the spaces "
            "repositories of their own)"));
      }
      // Otherwise an earlier Space of the same name had this number: its tag is replaced.
    }
    if (!out.found_earlier) CUB_RETURN_IF_ERROR(Push(registry, d, &pushed));
    out.location = pushed.ref;
    out.artifact_ref = pushed.ref;
    out.artifact_digest = pushed.manifest_digest;
    CUB_RETURN_IF_ERROR(PushEvidenceVerifyAndDeploy(registry, pushed, env_, &out));
    return out;
  }

  // A rollback deploys Release N's artifact again, as verified now: nothing is pushed.
  absl::StatusOr<DeliveredRelease> DeliverEarlier(oci::Registry& registry, const Delivery& d,
                                                  OciPushed earlier, DeliveredRelease out) {
    earlier.tag = absl::StrCat(d.space, "-r", d.rollback_of.release_num);
    earlier.ref = absl::StrCat(registry.host(), "/", registry.repository(), ":", earlier.tag);
    out.location = earlier.ref;
    out.artifact_ref = earlier.ref;
    CUB_RETURN_IF_ERROR(VerifyEarlierAndDeploy(registry, earlier, env_, &out));
    return out;
  }

  absl::Status Push(oci::Registry& registry, const Delivery& d, OciPushed* pushed) {
    oci::ReleaseInfo info = ReleaseInfoOf(d);
    std::vector<oci::LayerFile> files;
    files.reserve(d.files.size());
    for (const BundleFile& f : d.files) files.push_back({f.name, f.content});
    CUB_ASSIGN_OR_RETURN(oci::ReleaseArtifact a, oci::BuildReleaseArtifact(info, std::move(files)));
    CUB_RETURN_IF_ERROR(registry.PutBlob(a.config.data, a.config.digest));
    CUB_RETURN_IF_ERROR(registry.PutBlob(a.layer.data, a.layer.digest));
    CUB_ASSIGN_OR_RETURN(pushed->manifest_digest,
                         registry.PutManifest(pushed->tag, oci::kOciManifest, a.manifest));
    pushed->manifest = std::move(a.manifest);
    return absl::OkStatus();
  }

  const std::map<std::string, std::string> params_;
  const ProviderEnv env_;
};

}  // namespace

const std::vector<std::string>& OciParamNames() {
  static const std::vector<std::string> kNames = {kRepository, kInsecure, kCredentials, kCaFile};
  return kNames;
}

absl::Status ValidateOciParams(const std::map<std::string, std::string>& params) {
  absl::StatusOr<oci::Registry> reg = oci::Registry::Open(Param(params, kRepository), {});
  if (!reg.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("OCI target: param 'repository': ", reg.status().message()));
  }
  const std::string insecure = Param(params, kInsecure);
  if (params.count(kInsecure) && insecure != "true" && insecure != "false") {
    return absl::InvalidArgumentError(absl::StrCat(
        "OCI target: param 'insecure' must be true or false, not ", JsonQuote(insecure)));
  }
  if (insecure == "true" && !IsLoopbackHost(reg->host())) {
    return absl::InvalidArgumentError(absl::StrCat(
        "OCI target: param 'insecure=true' (plain HTTP) is accepted only for a registry on a "
        "loopback address (127.0.0.1, [::1], localhost), not ",
        reg->host(), "; use HTTPS, with param 'ca-file' for a private CA"));
  }
  for (const char* param : {kCredentials, kCaFile}) {
    if (params.count(param)) CUB_RETURN_IF_ERROR(CheckFileName(param, params.at(param)));
  }
  if (insecure == "true" && params.count(kCaFile)) {
    return absl::InvalidArgumentError(
        "OCI target: param 'ca-file' is for HTTPS; it cannot go with 'insecure=true'");
  }
  return absl::OkStatus();
}

std::unique_ptr<Provider> MakeOciProvider(const std::map<std::string, std::string>& params,
                                          const ProviderEnv& env) {
  return std::make_unique<OciProvider>(params, env);
}

}  // namespace cub::targets::internal
