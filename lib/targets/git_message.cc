#include "lib/targets/git_message.h"

#include <set>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace cub::targets::internal {
namespace {

constexpr absl::string_view kCubRelease = "Cub-Release: ";

// `s` without trailing whitespace and newlines, so a description's own blank lines at its end do
// not leave an empty paragraph before the trailers.
absl::string_view TrimRight(absl::string_view s) {
  while (!s.empty() &&
         (s.back() == '\n' || s.back() == '\r' || s.back() == ' ' || s.back() == '\t')) {
    s.remove_suffix(1);
  }
  return s;
}

}  // namespace

std::string BatchCommitMessage(const std::vector<const Delivery*>& carried) {
  const Delivery& first = *carried.front();
  bool same_co = !first.change_order.empty();
  for (const Delivery* d : carried) same_co = same_co && d->change_order == first.change_order;

  std::string m;
  if (carried.size() == 1) {
    m = absl::StrCat("Release ", first.release_num, " of ", first.space, "\n\n");
  } else {
    m = absl::StrCat("Publish ", carried.size(), " releases",
                     same_co ? absl::StrCat(" of ", first.change_order) : "", "\n\n");
  }
  std::set<absl::string_view> descriptions;
  for (const Delivery* d : carried) {
    absl::string_view text = TrimRight(d->description);
    if (text.empty() || !descriptions.insert(text).second) continue;
    absl::StrAppend(&m, text, "\n\n");
  }
  if (same_co) absl::StrAppend(&m, "ChangeOrder: ", first.change_order, "\n");
  if (carried.size() == 1) absl::StrAppend(&m, "Bundle-Digest: ", first.bundle_digest, "\n");
  std::set<absl::string_view> authors;
  for (const Delivery* d : carried) {
    if (authors.insert(d->author).second) absl::StrAppend(&m, "Published-By: ", d->author, "\n");
  }
  for (const Delivery* d : carried) {
    absl::StrAppend(&m, kCubRelease, d->release_id, " ", d->space, " ", d->release_num, " ",
                    d->bundle_digest, "\n");
  }
  return m;
}

std::vector<CubReleaseTrailer> ParseCubReleaseTrailers(std::string_view whole) {
  std::vector<CubReleaseTrailer> out;
  absl::string_view message = TrimRight(absl::string_view(whole.data(), whole.size()));
  size_t cut = message.rfind("\n\n");
  if (cut == absl::string_view::npos) return out;  // a subject alone has no trailers
  for (absl::string_view line : absl::StrSplit(message.substr(cut + 2), '\n')) {
    if (!absl::ConsumePrefix(&line, kCubRelease)) continue;
    std::vector<absl::string_view> parts = absl::StrSplit(line, ' ');
    CubReleaseTrailer t;
    if (parts.size() != 4 || parts[0].empty() || !absl::SimpleAtoi(parts[2], &t.release_num)) {
      continue;
    }
    t.release_id = std::string(parts[0]);
    t.space = std::string(parts[1]);
    t.bundle_digest = std::string(parts[3]);
    out.push_back(std::move(t));
  }
  return out;
}

}  // namespace cub::targets::internal
