// Tests for lib/ops/change_order_state: ResolvedSpaceIDs among those in scope, and each State a
// ChangeOrder can be in, from its recorded marks alone (no database).

#include "lib/ops/change_order_state.h"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

namespace cub::ops {
namespace {

using domain::ChangeOrderState;

// A ChangeOrder based in "base" with "dev" and "prod" in scope, resolved in `resolved`.
store::StoredChangeOrder InScope(std::vector<std::string> resolved) {
  store::StoredChangeOrder c;
  c.space_id = "base";
  c.in_scope_space_ids = {"base", "dev", "prod"};
  c.resolved_space_ids = std::move(resolved);
  return c;
}

TEST_CASE("change order state: resolved spaces are those in scope, in scope order",
          "[change_order_state]") {
  auto c = InScope({"prod", "elsewhere", "base"});
  CHECK(ResolvedInScope(c) == std::vector<std::string>{"base", "prod"});
  CHECK(ResolvedInScope(InScope({})).empty());
}

TEST_CASE("change order state: New until it is beyond its base", "[change_order_state]") {
  CHECK(DeriveChangeOrderState(InScope({})) == ChangeOrderState::kNew);
  CHECK(DeriveChangeOrderState(InScope({"base"})) == ChangeOrderState::kNew);
  // A resolved Space no longer in scope does not count.
  CHECK(DeriveChangeOrderState(InScope({"base", "elsewhere"})) == ChangeOrderState::kNew);
}

TEST_CASE("change order state: InProgress, then Resolved, then Released", "[change_order_state]") {
  CHECK(DeriveChangeOrderState(InScope({"base", "dev"})) == ChangeOrderState::kInProgress);
  auto all = InScope({"base", "dev", "prod"});
  CHECK(DeriveChangeOrderState(all) == ChangeOrderState::kResolved);
  // With no release Target anywhere, Resolved is as far as it goes.
  all.released_space_ids = {"dev"};
  CHECK(DeriveChangeOrderState(all) == ChangeOrderState::kResolved);
  // Released once every Space with a Target released it; one without a Target does not count.
  all.target_space_ids = {"dev", "prod"};
  CHECK(DeriveChangeOrderState(all) == ChangeOrderState::kResolved);
  all.released_space_ids = {"dev", "prod"};
  CHECK(DeriveChangeOrderState(all) == ChangeOrderState::kReleased);
  // Released everywhere with a Target, but not yet resolved everywhere in scope.
  auto partly = InScope({"base", "dev"});
  partly.target_space_ids = {"dev"};
  partly.released_space_ids = {"dev"};
  CHECK(DeriveChangeOrderState(partly) == ChangeOrderState::kInProgress);
}

TEST_CASE("change order state: aborted, then Restored, then RestoreReleased",
          "[change_order_state]") {
  auto c = InScope({"base", "dev", "prod"});
  c.aborted_reason = "bad rollout";
  CHECK(DeriveChangeOrderState(c) == ChangeOrderState::kAborted);
  c.restored_space_ids = {"dev"};
  CHECK(DeriveChangeOrderState(c) == ChangeOrderState::kAborted);
  // The base is never demoted: the Spaces beyond it are what count.
  c.restored_space_ids = {"dev", "prod"};
  CHECK(DeriveChangeOrderState(c) == ChangeOrderState::kRestored);
  c.released_space_ids = {"base", "prod"};
  CHECK(DeriveChangeOrderState(c) == ChangeOrderState::kRestored);
  c.restore_released_space_ids = {"prod"};
  CHECK(DeriveChangeOrderState(c) == ChangeOrderState::kRestoreReleased);
}

TEST_CASE("change order state: aborted before it went beyond its base stays Aborted",
          "[change_order_state]") {
  auto c = InScope({"base"});
  c.aborted_reason = "not wanted";
  CHECK(DeriveChangeOrderState(c) == ChangeOrderState::kAborted);
}

// The Spaces of `universe` whose bit is set in `mask`.
std::vector<std::string> Subset(const std::vector<std::string>& universe, unsigned mask) {
  std::vector<std::string> out;
  for (size_t i = 0; i < universe.size(); ++i) {
    if (mask & (1u << i)) out.push_back(universe[i]);
  }
  return out;
}

// A Basic list derives State from counts taken in SQL (StateCountsOf says what each counts);
// over every combination of small lists the two derivations agree.
TEST_CASE("change order state: the counts a Basic list reads give the State the lists give",
          "[change_order_state]") {
  const std::vector<std::string> spaces = {"base", "dev", "prod", "elsewhere"};
  const std::vector<std::vector<std::string>> scopes = {
      {"base", "dev", "prod"}, {"base", "dev", "dev", "prod"}, {"dev", "prod"}, {}};
  int compared = 0;
  for (const auto& scope : scopes) {
    for (unsigned resolved = 0; resolved < 16; ++resolved) {
      for (unsigned targets = 0; targets < 8; ++targets) {
        for (unsigned released = 0; released < 8; ++released) {
          for (unsigned restored = 0; restored < 8; ++restored) {
            for (unsigned rereleased = 0; rereleased < 8; ++rereleased) {
              for (bool aborted : {false, true}) {
                store::StoredChangeOrder c;
                c.space_id = "base";
                c.in_scope_space_ids = scope;
                c.resolved_space_ids = Subset(spaces, resolved);
                c.target_space_ids = Subset(spaces, targets);
                c.released_space_ids = Subset(spaces, released & targets);
                c.restored_space_ids = Subset(spaces, restored);
                c.restore_released_space_ids = Subset(spaces, rereleased & restored);
                if (aborted) c.aborted_reason = "stop";
                INFO("scope " << scope.size() << " resolved " << resolved << " targets " << targets
                              << " released " << released << " restored " << restored
                              << " rereleased " << rereleased << " aborted " << aborted);
                REQUIRE(DeriveChangeOrderState(c.aborted_reason, StateCountsOf(c)) ==
                        DeriveChangeOrderState(c));
                ++compared;
              }
            }
          }
        }
      }
    }
  }
  CHECK(compared == 4 * 16 * 8 * 8 * 8 * 8 * 2);
}

TEST_CASE("change order state: counts of the lists", "[change_order_state]") {
  auto c = InScope({"base", "dev", "elsewhere"});
  c.aborted_reason = "stop";
  c.target_space_ids = {"dev", "prod"};
  c.released_space_ids = {"base", "dev"};
  c.restored_space_ids = {"dev"};
  store::ChangeOrderStateCounts n = StateCountsOf(c);
  CHECK(n.in_scope == 3);
  CHECK(n.resolved == 2);
  CHECK(n.resolved_beyond_base == 1);
  CHECK(n.unrestored_beyond_base == 0);
  CHECK(n.targets == 2);
  CHECK(n.released == 2);
  CHECK(n.released_beyond_base == 1);
  CHECK(n.unrereleased_beyond_base == 1);
  CHECK(DeriveChangeOrderState(c.aborted_reason, n) == ChangeOrderState::kRestored);
}

}  // namespace
}  // namespace cub::ops
