// The argocd/ directory of a Git Target with the clusters param (app-of-apps): one Argo CD
// Application per Space and cluster (lib/argocd/application.h), as argocd/<name>.yaml, for a
// parent Application that points Argo CD at this directory. Internal to lib/targets.
//
// Several Spaces share the directory, so its manifest ".cub-files" names each file cub wrote
// with the Space it wrote it for: a first line
//   # cub: Argo CD Applications written by cub, each with its Space; ...
// then "<file> <space>" per line, sorted by file. A Space's Release writes the Space's
// Applications and removes the files the manifest lists for the Space that it no longer renders
// (a cluster dropped from the param). Files of other Spaces, and files cub did not write, stay.
//
// The opt-in rule: a file at argocd/<name>.yaml that the manifest does not list (an
// Application somebody else made, say by hand before cub managed the Space) is overwritten only
// when it carries the annotation cub.dev/allowed-space: <space>; then cub lists it and owns it
// from then on. Otherwise the cluster is held: nothing is written for it, and the Release
// reports it (DeliveredRelease::held_clusters, reason OptInRequired). Deleting the Space leaves
// the file, since cub never wrote it.

#ifndef CUB_LIB_TARGETS_ARGOCD_FILES_H_
#define CUB_LIB_TARGETS_ARGOCD_FILES_H_

#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "lib/argocd/application.h"

namespace cub::targets::internal {

inline constexpr char kArgoDirectory[] = "argocd";

// The manifest's lines: file -> Space. Lines that are comments, malformed, or name no plain
// *.yaml file are ignored (a hand-edited manifest cannot make cub remove anything else).
std::map<std::string, std::string> ParseArgoManifest(std::string_view content);
std::string ArgoManifestContent(const std::map<std::string, std::string>& owned);

// The Applications one Space's Release wants in the directory (empty: none, for a Target
// without clusters, whose earlier Applications are then removed).
struct SpaceApplications {
  std::string space;
  std::string release_id;
  std::vector<argocd::Application> applications;
};

// What the directory holds now.
struct ArgoDirectory {
  std::set<std::string> files;     // names of plain files
  std::set<std::string> subtrees;  // names of directories
  std::string manifest;            // the manifest's text; empty when there is none
};

struct ArgoPlan {
  std::map<std::string, std::string> writes;  // file -> content
  std::set<std::string> removes;              // files
  std::optional<std::string> manifest;        // the new manifest; nullopt: none (removed)
  std::map<std::string, std::map<std::string, std::string>> held;  // release ID -> cluster -> why
  std::set<std::string> owned;  // files cub owns, before and after
};

// The changes that give every Space of `spaces` its Applications. `read` returns the content of
// a file of the directory (called only for files the manifest does not list).
ArgoPlan PlanArgoDirectory(const ArgoDirectory& now, const std::vector<SpaceApplications>& spaces,
                           const std::function<std::string(const std::string&)>& read);

}  // namespace cub::targets::internal

#endif  // CUB_LIB_TARGETS_ARGOCD_FILES_H_
