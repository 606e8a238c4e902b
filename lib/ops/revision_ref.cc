// ResolveRevision: turning the revision selectors users type into revision numbers.
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "lib/domain/vocabulary.h"
#include "lib/ops/access.h"
#include "lib/ops/change_orders.h"
#include "lib/ops/change_sets.h"
#include "lib/ops/units.h"
#include "lib/store/tags.h"
#include "lib/util/status_macros.h"

namespace cub::ops {
namespace {

absl::StatusOr<int64_t> TagMark(store::Tx& tx, const Principal& p, const v1::Space& space,
                                const v1::Unit& unit, const std::string& tag_ref) {
  v1::Space tag_space = space;
  std::string tag_slug = tag_ref;
  if (auto slash = tag_ref.find('/'); slash != std::string::npos) {
    CUB_ASSIGN_OR_RETURN(auto other, ResolveSpace(tx, p, tag_ref.substr(0, slash), Access::kRead));
    tag_space = other;
    tag_slug = tag_ref.substr(slash + 1);
  }
  CUB_ASSIGN_OR_RETURN(auto tag, store::FindTag(tx, tag_space.space_id(), tag_slug));
  if (!tag) {
    return absl::NotFoundError(
        absl::StrCat("tag '", tag_slug, "' not found in space '", tag_space.slug(), "'"));
  }
  CUB_ASSIGN_OR_RETURN(auto mark, store::FindMark(tx, tag->tag_id(), unit.unit_id()));
  if (!mark) {
    return absl::NotFoundError(
        absl::StrCat("tag '", tag_ref, "' marks no revision of unit '", unit.slug(), "'"));
  }
  return *mark;
}

}  // namespace

absl::StatusOr<int64_t> ResolveRevision(store::Tx& tx, const Principal& p, const v1::Space& space,
                                        const v1::Unit& unit, const std::string& selector) {
  int64_t head = unit.head_revision_num();
  int64_t num = 0;
  if (selector.empty() || selector == "HeadRevisionNum") {
    num = head;
  } else if (selector == "LastReleasedRevisionNum") {
    num = unit.last_released_revision_num();
    if (num == 0) {
      return absl::FailedPreconditionError(
          absl::StrCat("unit '", unit.slug(), "' has never been released"));
    }
  } else if (absl::StartsWith(selector, "Before:ChangeSet:") ||
             absl::StartsWith(selector, "ChangeSet:")) {
    bool before = absl::StartsWith(selector, "Before:");
    std::string ref = selector.substr(before ? 17 : 10);
    CUB_ASSIGN_OR_RETURN(auto c, ResolveChangeSet(tx, p, space, ref));
    if (!before && domain::ParseChangeSetState(c.state()) == domain::ChangeSetState::kOpen) {
      return absl::FailedPreconditionError(
          absl::StrCat("changeset '", ref, "' is still open: it has no end revision yet"));
    }
    CUB_ASSIGN_OR_RETURN(
        auto tag, store::FindTag(tx, c.space_id(), before ? c.start_tag_id() : c.end_tag_id()));
    if (!tag) return absl::InternalError("changeset tag missing");
    CUB_ASSIGN_OR_RETURN(auto mark, store::FindMark(tx, tag->tag_id(), unit.unit_id()));
    if (!mark) {
      return absl::NotFoundError(
          absl::StrCat("changeset '", ref, "' did not change unit '", unit.slug(), "'"));
    }
    num = *mark;
  } else if (absl::StartsWith(selector, "Before:ChangeOrder:") ||
             absl::StartsWith(selector, "ChangeOrder:")) {
    // What a Release of the ChangeOrder bundles (its release Tag), or the state before it (its
    // start Tag).
    const bool before = absl::StartsWith(selector, "Before:");
    std::string ref = selector.substr(before ? 19 : 12);
    CUB_ASSIGN_OR_RETURN(auto rco, ResolveChangeOrder(tx, p, ref, space.slug(), false));
    CUB_ASSIGN_OR_RETURN(
        auto mark,
        store::FindMark(tx, before ? rco.co.start_tag_id : rco.co.publish_tag_id, unit.unit_id()));
    if (!mark) {
      return absl::NotFoundError(
          absl::StrCat("change order '", ref, "' has not reached unit '", unit.slug(), "'"));
    }
    num = *mark;
    if (num == 0) {
      return absl::NotFoundError(
          absl::StrCat("unit '", unit.slug(), "' did not exist before change order '", ref, "'"));
    }
  } else if (absl::StartsWith(selector, "Before:Tag:")) {
    CUB_ASSIGN_OR_RETURN(auto mark, TagMark(tx, p, space, unit, selector.substr(11)));
    num = mark - 1;
    if (num < 1) {
      return absl::FailedPreconditionError(
          absl::StrCat("unit '", unit.slug(), "' has no revision before ", selector.substr(7)));
    }
  } else if (absl::StartsWith(selector, "Tag:")) {
    CUB_ASSIGN_OR_RETURN(auto mark, TagMark(tx, p, space, unit, selector.substr(4)));
    num = mark;
  } else if (selector[0] == '-' && absl::SimpleAtoi(selector.substr(1), &num)) {
    num = head - num;
    if (num < 1) {
      return absl::OutOfRangeError(absl::StrCat("unit '", unit.slug(), "' has only ", head,
                                                " revisions; ", selector,
                                                " goes before the first"));
    }
  } else if (!absl::SimpleAtoi(selector, &num)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "revision '", selector,
        "' is not valid: use a number, -N, HeadRevisionNum, LastReleasedRevisionNum, Tag:T, "
        "Before:Tag:T, ChangeSet:C, Before:ChangeSet:C, ChangeOrder:BASE/NAME or "
        "Before:ChangeOrder:BASE/NAME"));
  }
  if (num < 1 || num > head) {
    return absl::NotFoundError(
        absl::StrCat("unit '", unit.slug(), "' has no revision ", num, " (head is ", head, ")"));
  }
  return num;
}

}  // namespace cub::ops
