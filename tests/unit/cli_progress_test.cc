// The pure parts of cub's progress lines (cli/progress.h), of the watch's live line
// (cli/watch_render.h) and of streamed list tables (cli/paged_list.h, cli/output.h).
#include <catch2/catch.hpp>

#include "cli/paged_list.h"
#include "cli/progress.h"
#include "cli/watch_render.h"

namespace cub::cli {
namespace {

TEST_CASE("ElapsedText: tenths below a minute, then minutes and hours", "[cli][progress]") {
  CHECK(ElapsedText(absl::Milliseconds(0)) == "0.0s");
  CHECK(ElapsedText(absl::Milliseconds(3250)) == "3.2s");
  CHECK(ElapsedText(absl::Seconds(59.99)) == "59.9s");
  CHECK(ElapsedText(absl::Seconds(125)) == "2m05s");
  CHECK(ElapsedText(absl::Seconds(3720)) == "1h02m");
}

TEST_CASE("ProgressLine: spinner, text, elapsed; never wider than the terminal",
          "[cli][progress]") {
  CHECK(ProgressLine(0, "Promoting a/b into stage prod", absl::Seconds(1), 0) ==
        "| Promoting a/b into stage prod ... 1.0s");
  CHECK(ProgressLine(1, "x", absl::Seconds(1), 0).substr(0, 1) == "/");
  CHECK(ProgressLine(5, "x", absl::Seconds(1), 0).substr(0, 1) == "/");
  const std::string cut = ProgressLine(0, std::string(200, 'a'), absl::Seconds(1), 40);
  CHECK(cut.size() == 39);
  // Cut on a character boundary, counting characters, not bytes.
  const std::string wide = ProgressLine(0, "ééééééééééé", absl::Seconds(1), 6);
  CHECK(wide == "| ééé");
}

TEST_CASE("TerminalProgress disabled draws nothing and stops cleanly", "[cli][progress]") {
  TerminalProgress p(false, "nothing");
  p.Set("still nothing");
  p.Stop();
  p.Stop();
}

TEST_CASE("WatchActivity names the ChangeOrder and its last snapshot", "[cli][watch]") {
  CHECK(WatchActivity("acme-base/v2", nullptr) ==
        "Watching acme-base/v2: waiting for the first snapshot");
  v1::ChangeOrderProgress p;
  p.set_state("InProgress");
  v1::StageProgress* s = p.add_stages();
  s->set_stage("dev");
  s->set_total(2);
  s->set_taken(1);
  CHECK(WatchActivity("acme-base/v2", &p) ==
        "Watching acme-base/v2: InProgress: dev 1/2 taken 0/2 released 0/2 healthy");
}

TEST_CASE("NextPageLimit: the rest of --limit, at most a server page", "[cli][paging]") {
  CHECK(NextPageLimit(PageFlags{0, ""}, 0) == 0);
  CHECK(NextPageLimit(PageFlags{0, ""}, 5000) == 0);
  CHECK(NextPageLimit(PageFlags{10, ""}, 0) == 10);
  CHECK(NextPageLimit(PageFlags{10, ""}, 7) == 3);
  CHECK(NextPageLimit(PageFlags{2500, ""}, 1000) == 1000);
  CHECK(NextPageLimit(PageFlags{2500, ""}, 2000) == 500);
}

TEST_CASE("later pages of a streamed table keep the first page's columns", "[cli][paging]") {
  Table first{{"NAME", "ID"}, {{"a", "1"}, {"bbbb", "2"}}};
  const std::vector<size_t> widths = first.Widths();
  CHECK(first.RenderWith(widths, true) == "NAME   ID\na      1\nbbbb   2\n");
  Table later{{"NAME", "ID"}, {{"cc", "3"}, {"dddddddd", "4"}}};
  CHECK(later.RenderWith(widths, false) == "cc     3\ndddddddd   4\n");
  CHECK(first.RenderWith(widths, true) == first.Render());
}

}  // namespace
}  // namespace cub::cli
