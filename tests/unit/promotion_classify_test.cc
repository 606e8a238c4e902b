// Tests for the pure steps of planning a promotion (lib/ops/promotion_classify.h), without a
// database: each outcome ClassifySpace can give a target Space (AlreadyPromoted, the three
// Space failures) and each of its Units (Failed for several Links or a partial merge,
// AlreadyHadChange, Unchanged, OutsideChange, marked untouched, upgraded with the prior
// revisions included, skipped or refused, cloned), the single-Unit mode, the revision spans
// the UnitJobs read, and FinalizeSpace.

#include "lib/ops/promotion_classify.h"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

namespace cub::ops {
namespace {

constexpr char kBase[] = "S-base";
constexpr char kDev[] = "S-dev";
constexpr char kOther[] = "S-other";

// A ChangeOrder "co1" of `update_type` over base, its upstream Unit base/app changed by it
// (revisions 2..4), and dev (upstream: base) whose Unit app follows it, merged to `cursor`.
struct World {
  ResolvedChangeOrder rco;
  PlanOptions opts;
  PromotionFacts facts;
  v1::Space dev;

  explicit World(const std::string& update_type = "UpgradeUnit") {
    rco.co.id = "CO";
    rco.co.slug = "co1";
    rco.co.update_type = update_type;
    rco.update_type = *domain::ParseUpdateType(update_type);
    rco.co.start_tag_id = "T-start";
    rco.co.end_tag_id = "T-end";
    rco.co.publish_tag_id = "T-pub";
    opts.rco = &rco;
    opts.prior_revisions = domain::PriorRevisions::kInclude;
    opts.resolved = {kBase};
    dev.set_space_id(kDev);
    dev.set_slug("dev");
    dev.set_upstream_space_id(kBase);
    AddSpace(kBase, "base");
    AddSpace(kDev, "dev");
    AddUnit(kBase, "U-app", "app", 4).start_mark = 2;
    facts.units.back().end_mark = 4;
    AddUnit(kDev, "D-app", "app", 3);
    AddLink("L-app", "D-app", kDev, "U-app", kBase, 2);
  }

  void AddSpace(const std::string& id, const std::string& slug) {
    facts.spaces[id].set_space_id(id);
    facts.spaces[id].set_slug(slug);
  }
  store::PromotionUnit& AddUnit(const std::string& space, const std::string& id,
                                const std::string& slug, int64_t head) {
    store::PromotionUnit u;
    u.id = id;
    u.space_id = space;
    u.slug = slug;
    u.toolchain_type = "Kubernetes/YAML";
    u.head = head;
    facts.units.push_back(u);
    return facts.units.back();
  }
  store::PromotionUnit& Unit(const std::string& id) {
    for (auto& u : facts.units) {
      if (u.id == id) return u;
    }
    FAIL("no unit " << id);
    throw;
  }
  void AddLink(const std::string& id, const std::string& from, const std::string& from_space,
               const std::string& to, const std::string& to_space, int64_t cursor) {
    store::PromotionLink l;
    l.id = id;
    l.slug = id;
    l.from_unit_id = from;
    l.from_space_id = from_space;
    l.to_unit_id = to;
    l.to_space_id = to_space;
    l.cursor = cursor;
    facts.links.push_back(l);
  }
  SpaceClassification Classify() {
    facts.Index();
    return ClassifySpace(opts, facts, dev);
  }
};

std::vector<std::string> Marks(const SpacePlan& plan) {
  std::vector<std::string> out;
  for (const auto& m : plan.writes.marks) {
    out.push_back(m.tag_id + ":" + m.unit_id + "@" + std::to_string(m.num));
  }
  return out;
}

TEST_CASE("a Space that has the change is AlreadyPromoted, with nothing to do") {
  World w;
  w.opts.resolved.insert(kDev);
  auto c = w.Classify();
  CHECK(c.settled());
  CHECK(c.plan.report.status() == "AlreadyPromoted");
  CHECK(c.plan.report.space_id() == kDev);
  CHECK(c.plan.report.space() == "dev");
  CHECK(c.plan.report.units_size() == 0);
  CHECK(c.jobs.empty());
  CHECK(c.plan.writes.empty());
}

TEST_CASE("a Space with no Link to a Space the change is in fails") {
  World w;
  w.dev.clear_upstream_space_id();
  w.facts.links.clear();
  auto c = w.Classify();
  CHECK(c.plan.failed());
  CHECK(c.plan.report.error() ==
        "no UpgradeUnit Links lead from 'dev' to a Space the change is in");
  CHECK(c.jobs.empty());
}

TEST_CASE("an upgrade of a Space that takes changes from several Spaces fails") {
  World w;
  w.AddSpace(kOther, "other");
  w.opts.resolved.insert(kOther);
  w.AddUnit(kOther, "O-db", "db", 1);
  w.AddUnit(kDev, "D-db", "db", 1);
  w.AddLink("L-db", "D-db", kDev, "O-db", kOther, 1);
  auto c = w.Classify();
  CHECK(c.plan.failed());
  CHECK(c.plan.report.error() ==
        "'dev' takes changes from several Spaces (base, other); upgrade its Units one by one"
        " with cub unit update --upgrade --change-order");
}

TEST_CASE("a Space whose source has not taken the change fails, naming the source") {
  World w("MergeUnits");
  w.AddSpace(kOther, "other");
  w.AddUnit(kOther, "O-db", "db", 1);
  w.AddUnit(kDev, "D-db", "db", 1);
  w.AddLink("L-db", "D-db", kDev, "O-db", kOther, 1);
  auto c = w.Classify();
  CHECK(c.plan.failed());
  CHECK(c.plan.report.error() ==
        "'dev' takes the change from 'other', which has not taken change order 'co1' yet:"
        " promote it there first");
  // A source that was not loaded is named by its ID.
  World w2;
  w2.facts.spaces.erase(kBase);
  w2.opts.resolved.clear();
  auto c2 = w2.Classify();
  CHECK(c2.plan.report.error() ==
        "'dev' takes the change from 'S-base', which has not taken change order 'co1' yet:"
        " promote it there first");
}

TEST_CASE("a Unit merged to the change's start is upgraded over the change's range") {
  World w;
  auto c = w.Classify();
  CHECK_FALSE(c.settled());
  REQUIRE(c.jobs.size() == 1);
  const UnitJob& job = c.jobs[0];
  CHECK(job.target->id == "D-app");
  CHECK(job.link->id == "L-app");
  CHECK(job.upstream->id == "U-app");
  CHECK(job.cursor == 2);
  CHECK(job.start == 2);
  CHECK(job.end == 4);
  CHECK_FALSE(job.merge_prior);
  CHECK_FALSE(job.refuse_prior);
  CHECK(c.plan.report.units_size() == 0);
  CHECK(c.plan.writes.empty());
}

TEST_CASE("a Unit behind the change's start: prior revisions Include, Skip, Error") {
  World w;
  w.facts.links[0].cursor = 1;
  SECTION("Include merges them first") {
    auto c = w.Classify();
    REQUIRE(c.jobs.size() == 1);
    CHECK(c.jobs[0].merge_prior);
    CHECK(c.jobs[0].cursor == 1);
    CHECK(c.jobs[0].start == 2);
  }
  SECTION("Skip passes over them") {
    w.opts.prior_revisions = domain::PriorRevisions::kSkip;
    auto c = w.Classify();
    REQUIRE(c.jobs.size() == 1);
    CHECK_FALSE(c.jobs[0].merge_prior);
    CHECK(c.jobs[0].cursor == 2);
  }
  SECTION("Error refuses, once their descriptions are loaded") {
    w.opts.prior_revisions = domain::PriorRevisions::kError;
    auto c = w.Classify();
    REQUIRE(c.jobs.size() == 1);
    CHECK(c.jobs[0].refuse_prior);
    CHECK(c.jobs[0].target->id == "D-app");
    CHECK(c.jobs[0].cursor == 1);
    CHECK(c.jobs[0].start == 2);
    auto spans = RevisionSpans({c});
    REQUIRE(spans.size() == 1);
    CHECK(spans[0].unit_id == "U-app");
    CHECK(spans[0].lo == 2);
    CHECK(spans[0].hi == 2);
  }
}

TEST_CASE("a Unit following several Links fails alone; the Space fails once finalized") {
  World w;
  w.AddUnit(kBase, "U-app2", "app2", 0);
  w.AddLink("L-app2", "D-app", kDev, "U-app2", kBase, 0);
  w.AddUnit(kDev, "D-web", "web", 5);
  auto c = w.Classify();
  CHECK_FALSE(c.settled());
  REQUIRE(c.plan.report.units_size() >= 1);
  CHECK(c.plan.report.units(0).unit_id() == "D-app");
  CHECK(c.plan.report.units(0).action() == "Failed");
  CHECK(c.plan.report.units(0).error() ==
        "it follows 2 UpgradeUnit links; upgrade it with cub unit update --upgrade"
        " --merge-source");
  // The failed Unit is not marked; the untouched one is.
  CHECK(Marks(c.plan) ==
        std::vector<std::string>{"T-start:D-web@5", "T-end:D-web@5", "T-pub:D-web@5"});
  FinalizeSpace(c.plan);
  CHECK(c.plan.failed());
  CHECK(c.plan.report.error() == "some of its units cannot take the change");
  CHECK(c.plan.writes.empty());
}

TEST_CASE("a Unit with the end mark already had the change; a missing publish mark is added") {
  World w;
  w.Unit("D-app").start_mark = 1;
  w.Unit("D-app").end_mark = 3;
  auto c = w.Classify();
  CHECK(c.jobs.empty());
  REQUIRE(c.plan.report.units_size() == 1);
  const auto& u = c.plan.report.units(0);
  CHECK(u.action() == "AlreadyHadChange");
  CHECK(u.start_revision_num() == 1);
  CHECK(u.end_revision_num() == 3);
  CHECK(Marks(c.plan) == std::vector<std::string>{"T-pub:D-app@3"});
  w.Unit("D-app").publish_mark = 3;
  CHECK(w.Classify().plan.writes.marks.empty());
}

TEST_CASE("a Unit merged exactly to the change's end had it; past the start only, it fails") {
  World w;
  SECTION("to the end") {
    w.facts.links[0].cursor = 4;
    auto c = w.Classify();
    CHECK(c.jobs.empty());
    REQUIRE(c.plan.report.units_size() == 1);
    CHECK(c.plan.report.units(0).action() == "AlreadyHadChange");
    CHECK(c.plan.report.units(0).start_revision_num() == 3);
    CHECK(c.plan.report.units(0).end_revision_num() == 3);
    CHECK(Marks(c.plan) ==
          std::vector<std::string>{"T-start:D-app@3", "T-end:D-app@3", "T-pub:D-app@3"});
    CHECK(c.plan.writes.cursors.empty());
  }
  SECTION("past the start, short of the end") {
    w.facts.links[0].cursor = 3;
    auto c = w.Classify();
    CHECK(c.jobs.empty());
    REQUIRE(c.plan.report.units_size() == 1);
    CHECK(c.plan.report.units(0).action() == "Failed");
    CHECK(c.plan.report.units(0).error() ==
          "it has already merged revisions 3..3 of base/app, past the start of change order"
          " 'co1' (revision 2), so it holds part of what comes after the start");
    CHECK(c.plan.writes.empty());
  }
}

TEST_CASE("a Unit the change does not change is Unchanged, marked and its cursor moved") {
  World w;
  w.Unit("U-app").start_mark = 4;  // the change leaves base/app as it is
  w.facts.links[0].cursor = 1;
  w.opts.prior_revisions = domain::PriorRevisions::kSkip;
  auto c = w.Classify();
  CHECK(c.jobs.empty());
  REQUIRE(c.plan.report.units_size() == 1);
  CHECK(c.plan.report.units(0).action() == "Unchanged");
  CHECK(c.plan.report.units(0).start_revision_num() == 3);
  CHECK(Marks(c.plan) ==
        std::vector<std::string>{"T-start:D-app@3", "T-end:D-app@3", "T-pub:D-app@3"});
  REQUIRE(c.plan.writes.cursors.size() == 1);
  CHECK(c.plan.writes.cursors[0] == std::make_pair(std::string("L-app"), int64_t{4}));
}

TEST_CASE("a Unit whose upstream is outside the change is marked where it is") {
  World w;
  w.Unit("U-app").start_mark.reset();
  w.Unit("U-app").end_mark.reset();
  w.AddUnit(kDev, "D-empty", "empty", 0);  // no revision yet: not marked
  w.AddUnit(kDev, "D-hub", "hub", 2).toolchain_type = "ConfigHub/YAML";
  auto c = w.Classify();
  CHECK(c.jobs.empty());
  CHECK(c.plan.report.units_size() == 0);
  CHECK(Marks(c.plan) ==
        std::vector<std::string>{"T-start:D-app@3", "T-end:D-app@3", "T-pub:D-app@3"});
  FinalizeSpace(c.plan);
  CHECK(c.plan.report.status() == "Promoted");
  CHECK(c.plan.writes.marks.size() == 3);
}

TEST_CASE("Units of the source the target lacks: cloned, outside the change, or passed over") {
  World w;
  w.AddUnit(kBase, "U-new", "new", 3).start_mark = 1;
  w.Unit("U-new").end_mark = 3;
  w.AddUnit(kBase, "U-late", "late", 1);  // created after the change order was fixed
  w.AddUnit(kBase, "U-same", "same", 2).start_mark = 2;
  w.Unit("U-same").end_mark = 2;
  w.AddUnit(kBase, "U-hub", "hub", 1).toolchain_type = "ConfigHub/YAML";
  w.Unit("U-hub").start_mark = 0;
  w.Unit("U-hub").end_mark = 1;
  auto c = w.Classify();
  REQUIRE(c.jobs.size() == 2);
  CHECK(c.jobs[0].target->id == "D-app");
  CHECK(c.jobs[1].target == nullptr);
  CHECK(c.jobs[1].link == nullptr);
  CHECK(c.jobs[1].upstream->id == "U-new");
  CHECK(c.jobs[1].start == 1);
  CHECK(c.jobs[1].end == 3);
  REQUIRE(c.plan.report.units_size() == 1);
  CHECK(c.plan.report.units(0).unit() == "late");
  CHECK(c.plan.report.units(0).unit_id().empty());
  CHECK(c.plan.report.units(0).action() == "OutsideChange");
  // With prior revisions All, a Unit the change leaves as it is is cloned too.
  w.opts.prior_revisions = domain::PriorRevisions::kAll;
  auto all = w.Classify();
  REQUIRE(all.jobs.size() == 3);
  CHECK(all.jobs[2].upstream->id == "U-same");

  auto spans = RevisionSpans({c});
  REQUIRE(spans.size() == 3);
  CHECK(spans[0].unit_id == "D-app");  // the target's head
  CHECK(spans[0].lo == 3);
  CHECK(spans[0].hi == 3);
  CHECK(spans[1].unit_id == "U-app");
  CHECK(spans[1].lo == 2);
  CHECK(spans[1].hi == 4);
  CHECK(spans[2].unit_id == "U-new");
  CHECK(spans[2].lo == 1);
  CHECK(spans[2].hi == 3);
}

TEST_CASE("an upstream Unit's span covers every Space that merges it") {
  World w;
  w.facts.links[0].cursor = 1;  // Include: from 1
  auto first = w.Classify();
  w.facts.links[0].cursor = 2;
  auto second = w.Classify();
  auto spans = RevisionSpans({first, second});
  REQUIRE(spans.size() == 3);
  CHECK(spans[2].unit_id == "U-app");
  CHECK(spans[2].lo == 1);
  CHECK(spans[2].hi == 4);
}

TEST_CASE("one Unit only: its own Link, no clones, no marks on others, no publish mark") {
  World w;
  w.opts.only_unit_id = "D-app";
  w.opts.resolved.insert(kDev);  // a Space that has the change still takes one Unit
  w.AddUnit(kBase, "U-new", "new", 3).start_mark = 1;
  w.Unit("U-new").end_mark = 3;
  w.AddUnit(kDev, "D-web", "web", 5);
  SECTION("upgraded") {
    auto c = w.Classify();
    CHECK_FALSE(c.settled());
    REQUIRE(c.jobs.size() == 1);
    CHECK(c.jobs[0].target->id == "D-app");
    CHECK(c.plan.writes.empty());
  }
  SECTION("unchanged: start and end marks only") {
    w.Unit("U-app").start_mark = 4;
    w.facts.links[0].cursor = 4;
    auto c = w.Classify();
    CHECK(Marks(c.plan) == std::vector<std::string>{"T-start:D-app@3", "T-end:D-app@3"});
  }
  SECTION("its upstream has not taken the change") {
    w.Unit("U-app").end_mark.reset();
    auto c = w.Classify();
    REQUIRE(c.plan.report.units_size() == 1);
    CHECK(c.plan.report.units(0).error() ==
          "its upstream unit base/app has not taken change order 'co1'");
  }
  SECTION("it follows no Link") {
    w.opts.only_unit_id = "D-web";
    auto c = w.Classify();
    REQUIRE(c.plan.report.units_size() == 1);
    CHECK(c.plan.report.units(0).unit_id() == "D-web");
    CHECK(c.plan.report.units(0).unit() == "web");
    CHECK(c.plan.report.units(0).action() == "Failed");
    CHECK(c.plan.report.units(0).error() ==
          "it follows no UpgradeUnit link to a unit of the change");
  }
}

TEST_CASE("FinalizeSpace: Promoted when no Unit failed, keeping the writes") {
  SpacePlan plan;
  plan.report.add_units()->set_action("Upgraded");
  plan.report.add_units()->set_action("AlreadyHadChange");
  plan.writes.heads.push_back({"D-app", 4});
  FinalizeSpace(plan);
  CHECK(plan.report.status() == "Promoted");
  CHECK(plan.report.error().empty());
  CHECK(plan.writes.heads.size() == 1);
}

}  // namespace
}  // namespace cub::ops
