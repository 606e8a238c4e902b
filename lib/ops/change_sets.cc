#include "lib/ops/change_sets.h"

#include "absl/strings/str_cat.h"
#include "lib/domain/vocabulary.h"
#include "lib/ops/access.h"
#include "lib/ops/input.h"
#include "lib/store/change_sets.h"
#include "lib/store/spaces.h"
#include "lib/store/tags.h"
#include "lib/util/status_macros.h"

namespace cub::ops {
namespace {

// SPACE/NAME for messages; a Space that is gone is named by its ID.
absl::StatusOr<std::string> QualifiedName(store::Tx& tx, const v1::ChangeSet& c) {
  CUB_ASSIGN_OR_RETURN(auto space, store::FindSpace(tx, c.space_id()));
  return absl::StrCat(space ? space->slug() : c.space_id(), "/", c.slug());
}

}  // namespace

absl::StatusOr<v1::ChangeSet> ResolveChangeSet(store::Tx& tx, const Principal& p,
                                               const v1::Space& space, const std::string& ref,
                                               Access access) {
  v1::Space cs_space = space;
  std::string name = ref;
  if (auto slash = ref.find('/'); slash != std::string::npos) {
    CUB_ASSIGN_OR_RETURN(auto other, ResolveSpace(tx, p, ref.substr(0, slash), access));
    cs_space = other;
    name = ref.substr(slash + 1);
  }
  CUB_ASSIGN_OR_RETURN(auto c, store::FindChangeSet(tx, cs_space.space_id(), name));
  if (!c) {
    return absl::NotFoundError(
        absl::StrCat("changeset '", name, "' not found in space '", cs_space.slug(), "'"));
  }
  return *c;
}

absl::StatusOr<std::string> ChangeSetForWrite(store::Tx& tx, const Principal& p,
                                              const v1::Space& space, const v1::Unit& unit,
                                              const std::string& ref) {
  const std::string& current = unit.change_set_id();
  if (ref == "-") {
    if (!current.empty()) CUB_RETURN_IF_ERROR(store::SetUnitChangeSet(tx, unit.unit_id(), ""));
    return std::string();
  }
  if (ref.empty()) {
    if (current.empty()) return std::string();
    CUB_ASSIGN_OR_RETURN(auto open, store::FindChangeSetByID(tx, current));
    std::string name = current;
    if (open) {
      CUB_ASSIGN_OR_RETURN(name, QualifiedName(tx, *open));
    }
    return absl::FailedPreconditionError(absl::StrCat(
        "unit '", unit.slug(), "' is in open changeset '", name, "': name it with ChangeSet ", name,
        ", or take the unit out with ChangeSet -"));
  }
  // Joining marks the ChangeSet's start Tag: a write to its Space.
  CUB_ASSIGN_OR_RETURN(auto c, ResolveChangeSet(tx, p, space, ref, Access::kWrite));
  if (domain::ParseChangeSetState(c.state()) != domain::ChangeSetState::kOpen) {
    return absl::FailedPreconditionError(
        absl::StrCat("changeset '", ref, "' is closed; open a new one for further changes"));
  }
  if (current == c.change_set_id()) return current;
  if (!current.empty()) {
    CUB_ASSIGN_OR_RETURN(auto open, store::FindChangeSetByID(tx, current));
    std::string name = current;
    if (open) {
      CUB_ASSIGN_OR_RETURN(name, QualifiedName(tx, *open));
    }
    return absl::FailedPreconditionError(
        absl::StrCat("unit '", unit.slug(), "' is already in open changeset '", name,
                     "'; close it or take the unit out with ChangeSet - first"));
  }
  // Joining: the start Tag marks the state before the change (kept if the Unit was in this
  // ChangeSet before and left it).
  if (unit.head_revision_num() > 0) {
    CUB_ASSIGN_OR_RETURN(auto start, store::FindTag(tx, c.space_id(), c.start_tag_id()));
    if (!start) return absl::InternalError("changeset start tag missing");
    CUB_ASSIGN_OR_RETURN(auto marked, store::FindMark(tx, start->tag_id(), unit.unit_id()));
    if (!marked) {
      CUB_RETURN_IF_ERROR(store::MarkRevision(tx, *start, unit, unit.head_revision_num(), false));
    }
  }
  CUB_RETURN_IF_ERROR(store::SetUnitChangeSet(tx, unit.unit_id(), c.change_set_id()));
  return c.change_set_id();
}

absl::StatusOr<v1::ChangeSet> CreateChangeSet(store::ConnectionPool& db, const Principal& p,
                                              const v1::CreateChangeSetRequest& req) {
  CUB_RETURN_IF_ERROR(ValidateSlug("changeset", req.slug()));
  if (req.slug().size() > 120) {  // its Tags add "-start" / "-end" within the 128 limit
    return absl::InvalidArgumentError("changeset names are at most 120 characters long");
  }
  v1::ChangeSet out;
  absl::Status st = store::WithTransaction(db, [&](store::Tx& tx) -> absl::Status {
    CUB_ASSIGN_OR_RETURN(auto space, ResolveSpace(tx, p, req.space(), Access::kWrite));
    CUB_ASSIGN_OR_RETURN(auto existing, store::FindChangeSet(tx, space.space_id(), req.slug()));
    if (existing) {
      return absl::AlreadyExistsError(absl::StrCat(
          "changeset '", req.slug(), "' already exists in space '", space.slug(), "'"));
    }
    std::string tag_ids[2];
    const char* suffixes[2] = {"-start", "-end"};
    for (int i = 0; i < 2; ++i) {
      std::string slug = absl::StrCat(req.slug(), suffixes[i]);
      CUB_ASSIGN_OR_RETURN(auto taken, store::FindTag(tx, space.space_id(), slug));
      if (taken) {
        return absl::AlreadyExistsError(
            absl::StrCat("tag '", slug, "' already exists in space '", space.slug(),
                         "'; a changeset needs its own start and end tags, so pick another name"));
      }
      CUB_ASSIGN_OR_RETURN(
          auto tag, store::InsertTag(
                        tx, {space.space_id(),
                             slug,
                             absl::StrCat(i == 0 ? "Start" : "End", " of changeset ", req.slug()),
                             {}}));
      tag_ids[i] = tag.tag_id();
    }
    CUB_ASSIGN_OR_RETURN(
        auto c, store::InsertChangeSet(tx, {space.space_id(), req.slug(), req.description(),
                                            tag_ids[0], tag_ids[1], p.user_id}));
    out = c;
    return absl::OkStatus();
  });
  if (!st.ok())
    return AlreadyExistsAs(
        st, absl::StrCat("changeset '", req.slug(), "' in space '", req.space(), "'"));
  return out;
}

absl::StatusOr<v1::ChangeSet> GetChangeSet(store::ConnectionPool& db, const Principal& p,
                                           const v1::GetChangeSetRequest& req) {
  return store::InReadTransaction(db, [&](store::Tx& tx) -> absl::StatusOr<v1::ChangeSet> {
    v1::ChangeSet out;
    CUB_ASSIGN_OR_RETURN(auto space, ResolveSpace(tx, p, req.space(), Access::kRead));
    CUB_ASSIGN_OR_RETURN(auto c, ResolveChangeSet(tx, p, space, req.change_set()));
    out = c;
    return out;
  });
}

absl::StatusOr<v1::ListChangeSetsResponse> ListChangeSets(store::ConnectionPool& db,
                                                          const Principal& p,
                                                          const v1::ListChangeSetsRequest& req) {
  return store::InReadTransaction(
      db, [&](store::Tx& tx) -> absl::StatusOr<v1::ListChangeSetsResponse> {
        v1::ListChangeSetsResponse out;
        CUB_ASSIGN_OR_RETURN(auto space, ResolveSpace(tx, p, req.space(), Access::kRead));
        CUB_ASSIGN_OR_RETURN(auto list,
                             store::ListChangeSets(tx, space.space_id(), req.options().where()));
        for (auto& c : list) *out.add_change_sets() = std::move(c);
        return out;
      });
}

absl::StatusOr<v1::ChangeSet> CloseChangeSet(store::ConnectionPool& db, const Principal& p,
                                             const v1::CloseChangeSetRequest& req) {
  return store::InTransaction(db, [&](store::Tx& tx) -> absl::StatusOr<v1::ChangeSet> {
    v1::ChangeSet out;
    CUB_ASSIGN_OR_RETURN(auto space, ResolveSpace(tx, p, req.space(), Access::kWrite));
    CUB_ASSIGN_OR_RETURN(auto c, ResolveChangeSet(tx, p, space, req.change_set()));
    if (domain::ParseChangeSetState(c.state()) != domain::ChangeSetState::kOpen) {
      return absl::FailedPreconditionError(
          absl::StrCat("changeset '", req.change_set(), "' is already closed"));
    }
    CUB_RETURN_IF_ERROR(store::CloseChangeSet(tx, c, p.user_id));
    CUB_ASSIGN_OR_RETURN(auto closed, store::FindChangeSetByID(tx, c.change_set_id()));
    if (!closed) return absl::InternalError("changeset vanished while closing");
    out = *closed;
    return out;
  });
}

}  // namespace cub::ops
