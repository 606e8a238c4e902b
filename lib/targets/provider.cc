#include "lib/targets/provider.h"

#include <cctype>
#include <cstring>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "lib/argocd/application.h"
#include "lib/targets/internal.h"
#include "lib/targets/oci_internal.h"
#include "lib/util/status_macros.h"

namespace cub::targets {
namespace internal {
namespace {

bool HasLineBreakOrNul(const std::string& s) {
  return s.find_first_of(std::string("\r\n\0", 3)) != std::string::npos;
}

bool IsLowerHex(const std::string& s) {
  for (char c : s) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

}  // namespace

std::string ErrnoText(int err) { return std::strerror(err); }

absl::Status ValidateDelivery(const Delivery& d) {
  if (d.space.empty() || d.space[0] == '.' ||
      d.space.find_first_of(std::string("/\0", 2)) != std::string::npos) {
    return absl::InvalidArgumentError(absl::StrCat(
        "delivery: space name '", d.space,
        "' is not valid: it must be non-empty, contain no '/' and not start with '.'"));
  }
  if (d.release_num < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("delivery: release number ", d.release_num, " is not valid: must be >= 1"));
  }
  const std::string kDigestPrefix = "sha256:";
  if (d.bundle_digest.size() != kDigestPrefix.size() + 64 ||
      d.bundle_digest.compare(0, kDigestPrefix.size(), kDigestPrefix) != 0 ||
      !IsLowerHex(d.bundle_digest.substr(kDigestPrefix.size()))) {
    return absl::InvalidArgumentError(
        absl::StrCat("delivery: bundle digest '", d.bundle_digest,
                     "' is not valid: expected 'sha256:' and 64 lowercase hex digits"));
  }
  if (HasLineBreakOrNul(d.change_order)) {
    return absl::InvalidArgumentError("delivery: change order contains a line break or NUL");
  }
  if (d.release_id.empty() ||
      d.release_id.find_first_of(std::string(" \t\r\n\0", 5)) != std::string::npos) {
    return absl::InvalidArgumentError(absl::StrCat("delivery: release ID '", d.release_id,
                                                   "' is not valid: it must be non-empty, without "
                                                   "spaces or line breaks"));
  }
  // The author and email become the commit's author line, where '<' and '>' delimit the email.
  if (HasLineBreakOrNul(d.author) || d.author.find_first_of("<>") != std::string::npos) {
    return absl::InvalidArgumentError("delivery: author contains a line break, NUL, '<' or '>'");
  }
  if (HasLineBreakOrNul(d.author_email) ||
      d.author_email.find_first_of("<>") != std::string::npos) {
    return absl::InvalidArgumentError(
        "delivery: author email contains a line break, NUL, '<' or '>'");
  }
  std::set<std::string> seen;
  for (const BundleFile& f : d.files) {
    if (f.name.empty() || f.name[0] == '.' ||
        f.name.find_first_of(std::string("/\0", 2)) != std::string::npos) {
      return absl::InvalidArgumentError(
          absl::StrCat("delivery: file name '", f.name, "' of space ", d.space,
                       " is not valid: expected a plain file name (no "
                       "'/', not starting with '.')"));
    }
    if (!seen.insert(f.name).second) {
      return absl::InvalidArgumentError(
          absl::StrCat("delivery: file name '", f.name, "' appears more than once"));
    }
  }
  return absl::OkStatus();
}

std::string ExpandPathTemplate(const std::string& tmpl, const std::string& space) {
  static const std::string kPlaceholder = "{space}";
  std::string out;
  size_t pos = 0;
  while (true) {
    size_t at = tmpl.find(kPlaceholder, pos);
    if (at == std::string::npos) break;
    out.append(tmpl, pos, at - pos);
    out += space;
    pos = at + kPlaceholder.size();
  }
  out.append(tmpl, pos, std::string::npos);
  return out;
}

absl::Status ValidateRepoRelativePath(const std::string& what, const std::string& path) {
  if (path.empty()) return absl::InvalidArgumentError(absl::StrCat(what, " is empty"));
  if (path[0] == '/') {
    return absl::InvalidArgumentError(
        absl::StrCat(what, " '", path, "' is absolute; it must be relative to the repository"));
  }
  if (path.find('\0') != std::string::npos) {
    return absl::InvalidArgumentError(absl::StrCat(what, " contains NUL"));
  }
  size_t start = 0;
  while (true) {
    size_t slash = path.find('/', start);
    std::string comp =
        path.substr(start, slash == std::string::npos ? std::string::npos : slash - start);
    std::string lower = comp;
    for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (comp.empty() || comp == "." || comp == ".." || lower == ".git") {
      return absl::InvalidArgumentError(absl::StrCat(
          what, " '", path,
          "' must stay inside the repository: no empty, '.', '..' or '.git' components"));
    }
    if (slash == std::string::npos) break;
    start = slash + 1;
  }
  return absl::OkStatus();
}

}  // namespace internal

namespace {

absl::Status CheckKnown(const std::string& provider,
                        const std::map<std::string, std::string>& params,
                        const std::vector<std::string>& known,
                        const std::vector<std::string>& required) {
  for (const auto& [k, v] : params) {
    bool ok = false;
    for (const std::string& n : known) ok = ok || n == k;
    if (!ok) {
      return absl::InvalidArgumentError(absl::StrCat(provider, " target: unknown param '", k,
                                                     "'; known: ", absl::StrJoin(known, ", ")));
    }
  }
  for (const std::string& r : required) {
    auto it = params.find(r);
    if (it == params.end() || it->second.empty()) {
      return absl::InvalidArgumentError(absl::StrCat(provider, " target: missing param '", r, "'"));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::optional<std::string>> Provider::ReleaseAt(const std::string& commit,
                                                               const std::string& space,
                                                               const std::vector<Recorded>&) {
  return absl::UnimplementedError(absl::StrCat("this Target keeps no history, so commit '", commit,
                                               "' cannot name a Release of space '", space,
                                               "'; name the Release instead"));
}

absl::Status ValidateParams(std::string_view provider,
                            const std::map<std::string, std::string>& params) {
  // OCI Targets take the Argo CD params too (for `cub release applications`): checked here,
  // then left out of what the OCI provider checks.
  if (provider == "OCI" && (params.count("clusters") != 0 || params.count("namespace") != 0 ||
                            params.count("project") != 0)) {
    CUB_RETURN_IF_ERROR(argocd::ValidateParams(provider, params));
    std::map<std::string, std::string> rest = params;
    for (const std::string& n : argocd::ParamNames()) rest.erase(n);
    return ValidateParams(provider, rest);
  }
  if (provider == "Directory") {
    CUB_RETURN_IF_ERROR(CheckKnown("Directory", params, {"path"}, {"path"}));
    const std::string& path = params.at("path");
    if (path[0] != '/') {
      return absl::InvalidArgumentError(absl::StrCat(
          "Directory target: param 'path' must be an absolute path, not '", path, "'"));
    }
    if (path.find('\0') != std::string::npos) {
      return absl::InvalidArgumentError("Directory target: param 'path' contains NUL");
    }
    return absl::OkStatus();
  }
  if (provider == "Git") {
    std::vector<std::string> known = {"repository", "branch", "path", "kustomization"};
    for (const std::string& n : internal::GitAuthParamNames()) known.push_back(n);
    for (const std::string& n : argocd::ParamNames()) known.push_back(n);
    CUB_RETURN_IF_ERROR(CheckKnown("Git", params, known, {"repository"}));
    CUB_RETURN_IF_ERROR(argocd::ValidateParams("Git", params));
    return internal::ValidateGitParams(params);
  }
  if (provider == "OCI") {
    CUB_RETURN_IF_ERROR(CheckKnown("OCI", params, internal::OciParamNames(), {"repository"}));
    return internal::ValidateOciParams(params);
  }
  return absl::InvalidArgumentError(absl::StrCat("unknown target provider '", std::string(provider),
                                                 "'; known: Directory, Git, OCI"));
}

absl::StatusOr<std::unique_ptr<Provider>> MakeProvider(
    std::string_view provider, const std::map<std::string, std::string>& params,
    const ProviderEnv& env) {
  CUB_RETURN_IF_ERROR(ValidateParams(provider, params));
  if (provider == "Directory") return internal::MakeDirectoryProvider(params);
  if (provider == "OCI") return internal::MakeOciProvider(params, env);
  const std::string& work_dir = env.work_dir;
  if (work_dir.empty() || work_dir[0] != '/') {
    return absl::InvalidArgumentError(absl::StrCat(
        "Git target: the work directory must be an absolute path, not '", work_dir, "'"));
  }
  return internal::MakeGitProvider(params, env);
}

}  // namespace cub::targets
