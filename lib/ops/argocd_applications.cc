#include "lib/ops/argocd_applications.h"

#include <map>
#include <optional>
#include <string>

#include "absl/strings/str_cat.h"
#include "lib/argocd/application.h"
#include "lib/ops/page_token.h"
#include "lib/ops/releases.h"
#include "lib/util/status_macros.h"

namespace cub::ops {
namespace {

// The Release asked for: number N, or the newest Delivered one.
absl::StatusOr<v1::Release> WantedRelease(store::ConnectionPool& db, const Principal& p,
                                          const v1::ReleaseApplicationsRequest& req) {
  if (req.release() < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("Release ", req.release(), " is not valid: give a number >= 1, or 0"));
  }
  if (req.release() > 0) {
    v1::GetReleaseRequest get;
    get.set_space(req.space());
    get.set_release(req.release());
    return GetRelease(db, p, get);
  }
  v1::ListReleasesRequest list;
  list.set_space(req.space());
  list.set_limit(kMaxPageSize);
  std::optional<v1::Release> newest;
  do {  // every page: ListReleases is paged (lib/ops/page_token.h)
    CUB_ASSIGN_OR_RETURN(v1::ListReleasesResponse page, ListReleases(db, p, list));
    for (v1::Release& r : *page.mutable_releases()) {
      if (r.delivery_state() == "Delivered" &&
          (!newest || r.release_num() > newest->release_num())) {
        newest = std::move(r);
      }
    }
    list.set_page_token(page.next_page_token());
  } while (!list.page_token().empty());
  if (!newest) {
    return absl::FailedPreconditionError(absl::StrCat(
        "space '", req.space(), "' has no Delivered release yet; name one with Release N"));
  }
  return *newest;
}

}  // namespace

absl::StatusOr<v1::ReleaseApplicationsResponse> ReleaseApplications(
    store::ConnectionPool& db, const Principal& p, const v1::ReleaseApplicationsRequest& req) {
  CUB_ASSIGN_OR_RETURN(const v1::Release release, WantedRelease(db, p, req));
  const std::string& target_name = release.target();
  const size_t slash = target_name.find('/');
  if (slash == std::string::npos) {
    return absl::FailedPreconditionError(absl::StrCat("release ", release.release_num(),
                                                      " of space '", release.space_slug(),
                                                      "' names no Target"));
  }
  v1::GetTargetRequest get;
  get.set_space(target_name.substr(0, slash));
  get.set_target(target_name.substr(slash + 1));
  CUB_ASSIGN_OR_RETURN(const v1::Target target, GetTarget(db, p, get));
  const std::map<std::string, std::string> params(target.params().begin(), target.params().end());
  const std::optional<argocd::Settings> settings = argocd::SettingsOf(params);
  if (!settings || settings->clusters.empty()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "Target ", target_name, " names no clusters: set its param clusters=NAME=API-URL,..."));
  }
  const std::string what =
      absl::StrCat("release ", release.release_num(), " of space '", release.space_slug(), "'");
  argocd::Source source;
  if (target.provider() == "Git") {
    if (release.commit().empty()) {
      return absl::FailedPreconditionError(
          absl::StrCat(what, " has no commit yet (DeliveryState ", release.delivery_state(), ")"));
    }
    source = argocd::GitSource(params.at("repository"), release.location(), release.commit());
  } else if (target.provider() == "OCI") {
    if (release.artifact_digest().empty()) {
      return absl::FailedPreconditionError(absl::StrCat(
          what, " has no artifact digest yet (DeliveryState ", release.delivery_state(), ")"));
    }
    source = argocd::OciSource(params.at("repository"), release.artifact_digest());
  } else {
    return absl::FailedPreconditionError(
        absl::StrCat("Target ", target_name, " is a ", target.provider(),
                     " Target, which Argo CD cannot read; use a Git or OCI Target"));
  }
  v1::ReleaseApplicationsResponse out;
  for (const argocd::Application& app :
       argocd::RenderAll(release.space_slug(), release.release_num(), *settings, source)) {
    v1::ArgoApplication* a = out.add_applications();
    a->set_name(app.name);
    a->set_cluster(app.cluster);
    a->set_server(app.server);
    a->set_namespace_(app.namespace_name);
    a->set_manifest_json(argocd::ApplicationJson(app));
  }
  *out.mutable_held() = release.held_clusters();
  return out;
}

}  // namespace cub::ops
