// How `cub changeorder watch` draws progress (cli/watch_render.h).
#include "cli/watch_render.h"

#include <catch2/catch.hpp>

namespace cub::cli {
namespace {

v1::ChangeOrderProgress Sample() {
  v1::ChangeOrderProgress p;
  p.set_state("InProgress");
  p.mutable_change_order()->set_space_slug("acme-base");
  p.mutable_change_order()->set_slug("v2");
  p.mutable_change_order()->set_stage("dev");
  auto add = [&p](const char* name, int total, int taken, int released, int healthy) {
    v1::StageProgress* s = p.add_stages();
    s->set_stage(name);
    s->set_total(total);
    s->set_taken(taken);
    s->set_released(released);
    s->set_healthy(healthy);
  };
  add("dev", 3, 3, 3, 2);
  add("staging", 2, 0, 0, 0);
  return p;
}

TEST_CASE("StageLines: one aligned line per Stage", "[cli][watch]") {
  CHECK(StageLines(Sample()) ==
        std::vector<std::string>{"dev      3/3 taken  3/3 released  2/3 healthy",
                                 "staging  0/2 taken  0/2 released  0/2 healthy"});
  v1::ChangeOrderProgress p = Sample();
  p.mutable_stages(1)->set_stage("production-eu");
  CHECK(StageLines(p)[0] == "dev           3/3 taken  3/3 released  2/3 healthy");
}

TEST_CASE("HeadLine and SnapshotLine", "[cli][watch]") {
  v1::ChangeOrderProgress p = Sample();
  CHECK(HeadLine(p) == "ChangeOrder acme-base/v2: InProgress, Stage dev");
  CHECK(SnapshotLine(p) ==
        "InProgress: dev 3/3 taken 3/3 released 2/3 healthy; staging 0/2 taken 0/2 released 0/2 "
        "healthy");
  p.set_state("Completed");
  p.mutable_change_order()->set_stage("Completed");
  CHECK(HeadLine(p) == "ChangeOrder acme-base/v2: Completed");
  p.clear_stages();
  CHECK(SnapshotLine(p) == "Completed: no stages");
}

TEST_CASE("Redraw moves up over what it drew and clears each line", "[cli][watch]") {
  CHECK(Redraw(0, {"a", "b"}) == "\r\x1b[2Ka\n\r\x1b[2Kb\n");
  CHECK(Redraw(2, {"c", "d"}) == "\x1b[2A\r\x1b[2Kc\n\r\x1b[2Kd\n");
  CHECK(Redraw(3, {"e"}) == "\x1b[3A\r\x1b[2Ke\n\r\x1b[2K\n\r\x1b[2K\n");
}

}  // namespace
}  // namespace cub::cli
