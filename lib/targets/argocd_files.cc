#include "lib/targets/argocd_files.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace cub::targets::internal {
namespace {

bool IsAppFileName(std::string_view n) {
  static constexpr std::string_view kSuffix = ".yaml";
  return n.size() > kSuffix.size() && n[0] != '.' &&
         n.compare(n.size() - kSuffix.size(), kSuffix.size(), kSuffix) == 0 &&
         n.find_first_of(std::string_view("/ \t\0", 4)) == std::string_view::npos;
}

}  // namespace

std::map<std::string, std::string> ParseArgoManifest(std::string_view content) {
  std::map<std::string, std::string> owned;
  for (absl::string_view line :
       absl::StrSplit(absl::string_view(content.data(), content.size()), '\n')) {
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty() || line[0] == '#') continue;
    size_t sp = line.find(' ');
    if (sp == absl::string_view::npos || sp + 1 == line.size()) continue;
    absl::string_view file = line.substr(0, sp);
    absl::string_view space = line.substr(sp + 1);
    if (!IsAppFileName(std::string_view(file.data(), file.size())) ||
        space.find(' ') != absl::string_view::npos) {
      continue;
    }
    owned.emplace(std::string(file), std::string(space));
  }
  return owned;
}

std::string ArgoManifestContent(const std::map<std::string, std::string>& owned) {
  std::string out =
      "# cub: Argo CD Applications written by cub, each with its Space; cub removes a file "
      "listed here when its Space no longer renders it\n";
  for (const auto& [file, space] : owned) absl::StrAppend(&out, file, " ", space, "\n");
  return out;
}

ArgoPlan PlanArgoDirectory(const ArgoDirectory& now, const std::vector<SpaceApplications>& spaces,
                           const std::function<std::string(const std::string&)>& read) {
  ArgoPlan plan;
  const std::map<std::string, std::string> before = ParseArgoManifest(now.manifest);
  std::map<std::string, std::string> owned = before;
  for (const auto& [file, space] : before) plan.owned.insert(file);
  for (const SpaceApplications& s : spaces) {
    std::set<std::string> wanted;
    for (const argocd::Application& app : s.applications) {
      const std::string file = app.name + ".yaml";
      auto mine = before.find(file);
      const bool listed = mine != before.end() && mine->second == s.space;
      if (!listed) {
        std::string why;
        if (now.subtrees.count(file) != 0) {
          why = absl::StrCat(kArgoDirectory, "/", file, " is a directory");
        } else if (mine != before.end()) {
          why = absl::StrCat("cub wrote ", kArgoDirectory, "/", file, " for space ", mine->second);
        } else if (now.files.count(file) != 0 && !argocd::AllowsSpace(read(file), s.space)) {
          why = absl::StrCat(
              kArgoDirectory, "/", file, " exists and cub did not write it; add the annotation ",
              argocd::kAllowedSpaceAnnotation, ": ", s.space, " to it to let cub manage it");
        }
        if (!why.empty()) {
          plan.held[s.release_id][app.cluster] = std::move(why);
          continue;
        }
      }
      wanted.insert(file);
      owned[file] = s.space;
      plan.owned.insert(file);
      plan.writes[file] = argocd::ApplicationYaml(app);
    }
    for (const auto& [file, space] : before) {
      if (space != s.space || wanted.count(file) != 0) continue;
      owned.erase(file);
      if (now.files.count(file) != 0) plan.removes.insert(file);
    }
  }
  if (!owned.empty()) plan.manifest = ArgoManifestContent(owned);
  return plan;
}

}  // namespace cub::targets::internal
