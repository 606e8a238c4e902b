#include "cli/watch_render.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace cub::cli {
namespace {

std::string Counts(const v1::StageProgress& s, const char* sep) {
  return absl::StrCat(s.taken(), "/", s.total(), " taken", sep, s.released(), "/", s.total(),
                      " released", sep, s.healthy(), "/", s.total(), " healthy");
}

}  // namespace

std::vector<std::string> StageLines(const v1::ChangeOrderProgress& p) {
  size_t width = 8;
  for (const auto& s : p.stages()) width = std::max(width, s.stage().size());
  std::vector<std::string> out;
  for (const auto& s : p.stages()) {
    std::string name = s.stage();
    name.resize(width, ' ');
    out.push_back(absl::StrCat(name, " ", Counts(s, "  ")));
  }
  return out;
}

std::string HeadLine(const v1::ChangeOrderProgress& p) {
  const auto& c = p.change_order();
  std::string line = absl::StrCat("ChangeOrder ", c.space_slug(), "/", c.slug(), ": ", p.state());
  if (!c.stage().empty() && c.stage() != p.state()) absl::StrAppend(&line, ", Stage ", c.stage());
  return line;
}

std::string WatchActivity(const std::string& name, const v1::ChangeOrderProgress* last) {
  if (last == nullptr) return absl::StrCat("Watching ", name, ": waiting for the first snapshot");
  return absl::StrCat("Watching ", name, ": ", SnapshotLine(*last));
}

std::string SnapshotLine(const v1::ChangeOrderProgress& p) {
  std::vector<std::string> stages;
  for (const auto& s : p.stages()) stages.push_back(absl::StrCat(s.stage(), " ", Counts(s, " ")));
  if (stages.empty()) stages.push_back("no stages");
  return absl::StrCat(p.state(), ": ", absl::StrJoin(stages, "; "));
}

std::string Redraw(int previous_lines, const std::vector<std::string>& lines) {
  std::string out;
  if (previous_lines > 0) absl::StrAppend(&out, "\x1b[", previous_lines, "A");
  for (const auto& l : lines) absl::StrAppend(&out, "\r\x1b[2K", l, "\n");
  // Lines left over from a longer drawing are cleared.
  for (int i = static_cast<int>(lines.size()); i < previous_lines; ++i) {
    absl::StrAppend(&out, "\r\x1b[2K\n");
  }
  return out;
}

}  // namespace cub::cli
