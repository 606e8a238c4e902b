#include "lib/ops/units.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "lib/config/yaml.h"
#include "lib/ops/access.h"
#include "lib/ops/change_orders.h"
#include "lib/ops/change_sets.h"
#include "lib/ops/input.h"
#include "lib/ops/page_token.h"
#include "lib/ops/promote.h"
#include "lib/ops/resolve.h"
#include "lib/ops/upgrade.h"
#include "lib/ops/validation.h"
#include "lib/store/releases.h"
#include "lib/store/tags.h"
#include "lib/store/units.h"
#include "lib/util/sha256.h"
#include "lib/util/status_macros.h"

namespace cub::ops {
namespace {

const std::vector<std::string>& YamlToolchains() {
  static const auto* k = new std::vector<std::string>{"Kubernetes/YAML", "ConfigHub/YAML"};
  return *k;
}
const std::vector<std::string>& OpaqueToolchains() {
  static const auto* k = new std::vector<std::string>{"AppConfig/Text"};
  return *k;
}

bool Contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

// DataHash of `data` for the toolchain: YAML is parsed (and refused if it does not parse)
// and hashed in canonical form; opaque data is hashed as bytes.
absl::StatusOr<std::string> HashData(const std::string& toolchain, const std::string& data) {
  if (Contains(YamlToolchains(), toolchain)) return config::DataHash(data);
  return absl::StrCat("sha256:", Sha256Hex(data));
}

absl::Status ValidateToolchain(const std::string& toolchain) {
  if (Contains(YamlToolchains(), toolchain) || Contains(OpaqueToolchains(), toolchain)) {
    return absl::OkStatus();
  }
  std::vector<std::string> all = YamlToolchains();
  all.insert(all.end(), OpaqueToolchains().begin(), OpaqueToolchains().end());
  return absl::InvalidArgumentError(absl::StrCat("unknown toolchain type '", toolchain,
                                                 "': use one of ", absl::StrJoin(all, ", ")));
}

absl::StatusOr<std::string> HeadData(store::Tx& tx, const v1::Unit& unit) {
  if (unit.head_revision_num() == 0) return std::string();
  CUB_ASSIGN_OR_RETURN(auto rev, store::FindRevision(tx, unit.unit_id(), unit.head_revision_num()));
  if (!rev) return absl::InternalError("head revision missing");
  return rev->data();
}

}  // namespace

absl::StatusOr<v1::UnitWithData> CreateUnit(store::ConnectionPool& db, const Principal& p,
                                            const v1::CreateUnitRequest& req) {
  CUB_RETURN_IF_ERROR(ValidateSlug("unit", req.slug()));
  CUB_RETURN_IF_ERROR(ValidateKeys("label", req.labels()));
  CUB_RETURN_IF_ERROR(ValidateKeys("annotation", req.annotations()));
  std::string toolchain = req.toolchain_type().empty() ? "Kubernetes/YAML" : req.toolchain_type();
  CUB_RETURN_IF_ERROR(ValidateToolchain(toolchain));
  CUB_ASSIGN_OR_RETURN(auto hash, HashData(toolchain, req.data()));
  v1::UnitWithData out;
  absl::Status st = store::WithTransaction(db, [&](store::Tx& tx) -> absl::Status {
    CUB_ASSIGN_OR_RETURN(auto space, ResolveSpace(tx, p, req.space(), Access::kWrite));
    CUB_ASSIGN_OR_RETURN(auto existing, store::FindUnit(tx, space.space_id(), req.slug()));
    if (existing) {
      if (!req.allow_exists()) {
        return absl::AlreadyExistsError(
            absl::StrCat("unit '", req.slug(), "' already exists in space '", space.slug(), "'"));
      }
      CUB_ASSIGN_OR_RETURN(auto data, HeadData(tx, *existing));
      *out.mutable_unit() = *existing;
      out.set_data(data);
      return absl::OkStatus();
    }
    CUB_ASSIGN_OR_RETURN(auto unit,
                         store::InsertUnit(tx, {space.space_id(), req.slug(), toolchain,
                                                ToMap(req.labels()), ToMap(req.annotations())}));
    store::NewRevision rev{req.data(), hash, p.user_id,
                           req.change_desc().empty() ? "Created" : req.change_desc()};
    CUB_RETURN_IF_ERROR(RunValidators(tx, space, toolchain, &rev));
    CUB_RETURN_IF_ERROR(store::AppendRevision(tx, unit.unit_id(), rev));
    CUB_ASSIGN_OR_RETURN(auto fresh, store::FindUnit(tx, space.space_id(), unit.unit_id()));
    *out.mutable_unit() = *fresh;
    out.set_data(std::move(rev.data));  // not a third copy of a large Unit
    return absl::OkStatus();
  });
  if (!st.ok())
    return AlreadyExistsAs(st,
                           absl::StrCat("unit '", req.slug(), "' in space '", req.space(), "'"));
  return out;
}

absl::StatusOr<v1::UnitWithData> GetUnit(store::ConnectionPool& db, const Principal& p,
                                         const v1::GetUnitRequest& req) {
  return store::InReadTransaction(db, [&](store::Tx& tx) -> absl::StatusOr<v1::UnitWithData> {
    v1::UnitWithData out;
    CUB_ASSIGN_OR_RETURN(auto space, ResolveSpace(tx, p, req.space(), Access::kRead));
    CUB_ASSIGN_OR_RETURN(auto unit, ResolveUnit(tx, space, req.unit()));
    CUB_ASSIGN_OR_RETURN(auto data, HeadData(tx, unit));
    *out.mutable_unit() = unit;
    out.set_data(data);
    return out;
  });
}

absl::StatusOr<v1::ListUnitsResponse> ListUnits(store::ConnectionPool& db, const Principal& p,
                                                const v1::ListUnitsRequest& req) {
  return store::InReadTransaction(db, [&](store::Tx& tx) -> absl::StatusOr<v1::ListUnitsResponse> {
    v1::ListUnitsResponse out;
    CUB_ASSIGN_OR_RETURN(PageStart page, ReadPageStart(req, req.limit(), req.page_token(), 2));
    store::UnitQuery q;
    q.page = {page.after, page.limit + 1};
    std::string default_space;
    if (req.space() != "*") {
      CUB_ASSIGN_OR_RETURN(auto space, ResolveSpace(tx, p, req.space(), Access::kRead));
      q.space_id = space.space_id();
      default_space = space.slug();
    }
    CUB_ASSIGN_OR_RETURN(auto filter,
                         ResolveFilter(tx, p, req.options().filter(), default_space, "Unit"));
    q.where = req.options().where();
    q.filter_where = filter;
    q.where_space = req.where_space();
    CUB_ASSIGN_OR_RETURN(auto units, store::ListUnits(tx, ToCaller(p), q));
    out.set_next_page_token(FinishPage(page, units, [](const v1::Unit& u) {
      return std::vector<std::string>{u.space_slug(), u.slug()};
    }));
    out.mutable_units()->Reserve(static_cast<int>(units.size()));
    for (auto& u : units) *out.add_units() = std::move(u);
    return out;
  });
}

namespace {

// The checks UpdateUnit makes of the request alone: one kind of write at a time, and the
// fields that only go with some of them.
absl::Status CheckUpdateRequest(const v1::UpdateUnitRequest& req) {
  const bool upgrade = req.upgrade() || !req.merge_source().empty();
  const bool resolve = !req.resolve().empty();
  const bool revert = !req.revert().empty();
  if (int(req.has_data()) + int(!req.restore().empty()) + int(upgrade) + int(resolve) +
          int(revert) >
      1) {
    return absl::InvalidArgumentError(
        "give only one of new data, Restore, Upgrade, Resolve and Revert");
  }
  if (req.patch() && !resolve) {
    return absl::InvalidArgumentError(
        "Patch resolves Links: pass Resolve \"Link:*\" (or Link:<where>)");
  }
  if (!req.change_set().empty() && req.change_set() != "-" && !req.has_data() &&
      req.restore().empty() && !upgrade && !resolve && !revert) {
    return absl::InvalidArgumentError(
        "ChangeSet goes with a write of data (Data, Restore, Upgrade, Resolve or Revert)");
  }
  if ((!req.change_order().empty() || !req.prior_revisions().empty()) && !upgrade) {
    return absl::InvalidArgumentError("ChangeOrder and PriorRevisions go with Upgrade");
  }
  CUB_RETURN_IF_ERROR(ValidateProtectedPaths(req.protect()));
  CUB_RETURN_IF_ERROR(ValidateKeys("label", req.labels()));
  return ValidateKeys("annotation", req.annotations());
}

// The Unit the request names, locked, with the request's labels, annotations and protected
// paths applied, as it is after that.
absl::StatusOr<v1::Unit> LockAndUpdateMetadata(store::Tx& tx, const v1::Space& space,
                                               const v1::UpdateUnitRequest& req) {
  CUB_ASSIGN_OR_RETURN(auto unit, ResolveUnit(tx, space, req.unit()));
  // Writers of one Unit queue here, so each compares its data with the head as it is when
  // its turn comes (two identical concurrent writes make one revision, not two).
  CUB_RETURN_IF_ERROR(store::LockUnit(tx, unit.unit_id()));
  CUB_ASSIGN_OR_RETURN(unit, ResolveUnit(tx, space, unit.unit_id()));
  CUB_RETURN_IF_ERROR(store::UpdateUnitMetadata(tx, unit.unit_id(),
                                                {ToMap(req.labels()), ToMap(req.annotations())}));
  if (!req.protect().empty() || !req.unprotect().empty()) {
    CUB_RETURN_IF_ERROR(store::ChangeProtectedPaths(
        tx, unit.unit_id(), {req.protect().begin(), req.protect().end()},
        {req.unprotect().begin(), req.unprotect().end()}));
    CUB_ASSIGN_OR_RETURN(unit, ResolveUnit(tx, space, unit.unit_id()));
  }
  return unit;
}

// The writes that derive the new data from other revisions: Upgrade (from the upstream or to
// a ChangeOrder), Revert and Resolve; at most one is asked for.
absl::Status DerivedWrite(store::Tx& tx, const Principal& p, const v1::Space& space,
                          const v1::Unit& unit, const v1::UpdateUnitRequest& req,
                          v1::UpdateUnitResponse* out) {
  const bool upgrade = req.upgrade() || !req.merge_source().empty();
  if (upgrade) {
    CUB_ASSIGN_OR_RETURN(auto change_set, ChangeSetForWrite(tx, p, space, unit, req.change_set()));
    CUB_RETURN_IF_ERROR(req.change_order().empty()
                            ? Upgrade(tx, p, space, unit, req, change_set, out)
                            : UpgradeToChangeOrder(tx, p, space, unit, req, out));
  }
  if (!req.revert().empty()) {
    CUB_ASSIGN_OR_RETURN(auto change_set, ChangeSetForWrite(tx, p, space, unit, req.change_set()));
    CUB_RETURN_IF_ERROR(Revert(tx, p, space, unit, req, change_set, out));
  }
  if (!req.resolve().empty()) {
    CUB_ASSIGN_OR_RETURN(auto change_set, ChangeSetForWrite(tx, p, space, unit, req.change_set()));
    CUB_RETURN_IF_ERROR(Resolve(tx, p, space, unit, req, change_set, out));
  }
  return absl::OkStatus();
}

// The data, hash and description of the revision a write of Data or Restore makes.
absl::Status FillNewRevision(store::Tx& tx, const Principal& p, const v1::Space& space,
                             const v1::Unit& unit, const v1::UpdateUnitRequest& req,
                             store::NewRevision& rev) {
  if (req.restore().empty()) {
    CUB_ASSIGN_OR_RETURN(auto hash, HashData(unit.toolchain_type(), req.data()));
    rev.data = req.data();
    rev.data_hash = hash;
    rev.description = req.change_desc();
    return absl::OkStatus();
  }
  CUB_ASSIGN_OR_RETURN(auto num, ResolveRevision(tx, p, space, unit, req.restore()));
  CUB_ASSIGN_OR_RETURN(auto source, store::FindRevision(tx, unit.unit_id(), num));
  if (!source) return absl::InternalError("restored revision missing");
  rev.data = source->data();
  rev.data_hash = source->data_hash();
  rev.restored_from_num = num;
  rev.description =
      req.change_desc().empty() ? absl::StrCat("Restored revision ", num) : req.change_desc();
  return absl::OkStatus();
}

// A write of Data or Restore (a new revision unless the data is the head's), or, with neither,
// taking the Unit out of its ChangeSet when ChangeSet is "-".
absl::Status DataWrite(store::Tx& tx, const Principal& p, const v1::Space& space,
                       const v1::Unit& unit, const v1::UpdateUnitRequest& req,
                       v1::UpdateUnitResponse* out) {
  bool writes_data = req.has_data() || !req.restore().empty();
  if (!writes_data) {
    // Only taking the Unit out of its ChangeSet.
    if (req.change_set() == "-") {
      CUB_RETURN_IF_ERROR(ChangeSetForWrite(tx, p, space, unit, "-"));
    }
    return absl::OkStatus();
  }
  store::NewRevision rev;
  CUB_ASSIGN_OR_RETURN(auto change_set, ChangeSetForWrite(tx, p, space, unit, req.change_set()));
  rev.change_set_id = change_set;
  rev.author_id = p.user_id;
  rev.expected_head = req.expected_head_revision_num();
  CUB_RETURN_IF_ERROR(FillNewRevision(tx, p, space, unit, req, rev));
  if (rev.data_hash == unit.data_hash() && unit.head_revision_num() > 0) {
    out->set_unchanged(true);
    return absl::OkStatus();
  }
  CUB_RETURN_IF_ERROR(RunValidators(tx, space, unit.toolchain_type(), &rev));
  CUB_ASSIGN_OR_RETURN(auto written, store::AppendRevision(tx, unit.unit_id(), rev));
  *out->mutable_revision() = written;
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<v1::UpdateUnitResponse> UpdateUnit(store::ConnectionPool& db, const Principal& p,
                                                  const v1::UpdateUnitRequest& req) {
  CUB_RETURN_IF_ERROR(CheckUpdateRequest(req));
  return store::InTransaction(db, [&](store::Tx& tx) -> absl::StatusOr<v1::UpdateUnitResponse> {
    v1::UpdateUnitResponse out;
    CUB_ASSIGN_OR_RETURN(auto space, ResolveSpace(tx, p, req.space(), Access::kWrite));
    CUB_ASSIGN_OR_RETURN(auto unit, LockAndUpdateMetadata(tx, space, req));
    CUB_RETURN_IF_ERROR(DerivedWrite(tx, p, space, unit, req, &out));
    CUB_RETURN_IF_ERROR(DataWrite(tx, p, space, unit, req, &out));
    if (out.revision().revision_num() > 0) {
      // The Units that follow this one through AutoUpdate Links take the new revision now.
      CUB_RETURN_IF_ERROR(FollowAutoUpdates(tx, p, {unit.unit_id()}));
    }
    CUB_ASSIGN_OR_RETURN(auto fresh, store::FindUnit(tx, space.space_id(), unit.unit_id()));
    *out.mutable_unit() = *fresh;
    return out;
  });
}

absl::Status DeleteUnit(store::ConnectionPool& db, const Principal& p,
                        const v1::DeleteUnitRequest& req) {
  return store::WithTransaction(db, [&](store::Tx& tx) -> absl::Status {
    CUB_ASSIGN_OR_RETURN(auto space, ResolveSpace(tx, p, req.space(), Access::kWrite));
    CUB_ASSIGN_OR_RETURN(auto unit, ResolveUnit(tx, space, req.unit()));
    return store::DeleteUnit(tx, unit);
  });
}

absl::StatusOr<v1::ListRevisionsResponse> ListRevisions(store::ConnectionPool& db,
                                                        const Principal& p,
                                                        const v1::ListRevisionsRequest& req) {
  return store::InReadTransaction(
      db, [&](store::Tx& tx) -> absl::StatusOr<v1::ListRevisionsResponse> {
        v1::ListRevisionsResponse out;
        CUB_ASSIGN_OR_RETURN(PageStart page, ReadPageStart(req, req.limit(), req.page_token(), 1));
        CUB_ASSIGN_OR_RETURN(auto space, ResolveSpace(tx, p, req.space(), Access::kRead));
        CUB_ASSIGN_OR_RETURN(auto unit, ResolveUnit(tx, space, req.unit()));
        CUB_ASSIGN_OR_RETURN(auto revs,
                             store::ListRevisions(tx, unit.unit_id(), req.options().where(),
                                                  {page.after, page.limit + 1}));
        out.set_next_page_token(FinishPage(page, revs, [](const v1::Revision& r) {
          return std::vector<std::string>{std::to_string(r.revision_num())};
        }));
        for (auto& r : revs) *out.add_revisions() = std::move(r);
        return out;
      });
}

absl::StatusOr<v1::Revision> GetRevision(store::ConnectionPool& db, const Principal& p,
                                         const v1::GetRevisionRequest& req) {
  return store::InReadTransaction(db, [&](store::Tx& tx) -> absl::StatusOr<v1::Revision> {
    v1::Revision out;
    CUB_ASSIGN_OR_RETURN(auto space, ResolveSpace(tx, p, req.space(), Access::kRead));
    CUB_ASSIGN_OR_RETURN(auto unit, ResolveUnit(tx, space, req.unit()));
    CUB_ASSIGN_OR_RETURN(auto num, ResolveRevision(tx, p, space, unit, req.revision()));
    CUB_ASSIGN_OR_RETURN(auto rev, store::FindRevision(tx, unit.unit_id(), num));
    if (!rev) return absl::NotFoundError("revision not found");
    out = *rev;
    return out;
  });
}

// `cub unit tag ChangeOrder:BASE/NAME --move`: adopts a fix made in review into what a
// Release of the ChangeOrder bundles in this Space. Not before where the change landed or what
// is released, never to a revision with validation errors, and fixed once a Release of the
// ChangeOrder has been published in the Space.
absl::StatusOr<v1::TagMark> MoveReleaseTag(store::Tx& tx, const Principal& p,
                                           const v1::Space& space, const v1::Unit& unit,
                                           const v1::TagUnitRequest& req) {
  const std::string ref = req.tag().substr(12);
  CUB_ASSIGN_OR_RETURN(auto rco, ResolveChangeOrder(tx, p, ref, space.slug(), false));
  if (!req.move()) {
    return absl::InvalidArgumentError(
        absl::StrCat("the release tag of change order '", ref,
                     "' is placed by promotion; pass Move to move it"));
  }
  CUB_ASSIGN_OR_RETURN(auto publish,
                       store::FindTag(tx, rco.base.space_id(), rco.co.publish_tag_id));
  CUB_ASSIGN_OR_RETURN(auto current, store::FindMark(tx, rco.co.publish_tag_id, unit.unit_id()));
  CUB_ASSIGN_OR_RETURN(auto landed, store::FindMark(tx, rco.co.end_tag_id, unit.unit_id()));
  if (!publish || !current || !landed) {
    return absl::FailedPreconditionError(absl::StrCat("unit '", unit.slug(),
                                                      "' has not taken change order '", ref,
                                                      "', so it has no release tag"));
  }
  CUB_ASSIGN_OR_RETURN(bool released,
                       store::ChangeOrderReleasedIn(tx, space.space_id(), rco.co.id));
  if (released) {
    return absl::FailedPreconditionError(
        absl::StrCat("a release of change order '", ref, "' has been published in space '",
                     space.slug(), "': its release tag there is fixed"));
  }
  CUB_ASSIGN_OR_RETURN(auto num, ResolveRevision(tx, p, space, unit, req.revision()));
  if (num < *landed || num < unit.last_released_revision_num()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "revision ", num, " of unit '", unit.slug(), "' is before where the change landed (",
        *landed, ") or what is released (", unit.last_released_revision_num(), ")"));
  }
  CUB_ASSIGN_OR_RETURN(auto rev, store::FindRevision(tx, unit.unit_id(), num));
  if (rev && rev->validation_errors_size() > 0) {
    return absl::FailedPreconditionError(
        absl::StrCat("revision ", num, " of unit '", unit.slug(),
                     "' has validation errors: ", absl::StrJoin(rev->validation_errors(), "; ")));
  }
  return store::MarkRevision(tx, *publish, unit, num, true);
}

absl::StatusOr<v1::TagMark> TagUnit(store::ConnectionPool& db, const Principal& p,
                                    const v1::TagUnitRequest& req) {
  return store::InTransaction(db, [&](store::Tx& tx) -> absl::StatusOr<v1::TagMark> {
    v1::TagMark out;
    CUB_ASSIGN_OR_RETURN(auto space, ResolveSpace(tx, p, req.space(), Access::kWrite));
    CUB_ASSIGN_OR_RETURN(auto unit, ResolveUnit(tx, space, req.unit()));
    if (absl::StartsWith(req.tag(), "ChangeOrder:")) {
      CUB_ASSIGN_OR_RETURN(auto moved, MoveReleaseTag(tx, p, space, unit, req));
      out = std::move(moved);
      return out;
    }
    v1::Space tag_space = space;
    std::string tag_slug = req.tag();
    if (auto slash = req.tag().find('/'); slash != std::string::npos) {
      CUB_ASSIGN_OR_RETURN(auto other,
                           ResolveSpace(tx, p, req.tag().substr(0, slash), Access::kWrite));
      tag_space = other;
      tag_slug = req.tag().substr(slash + 1);
    }
    CUB_ASSIGN_OR_RETURN(auto tag, store::FindTag(tx, tag_space.space_id(), tag_slug));
    if (!tag) {
      return absl::NotFoundError(
          absl::StrCat("tag '", tag_slug, "' not found in space '", tag_space.slug(), "'"));
    }
    CUB_ASSIGN_OR_RETURN(auto num, ResolveRevision(tx, p, space, unit, req.revision()));
    CUB_ASSIGN_OR_RETURN(auto mark, store::MarkRevision(tx, *tag, unit, num, req.move()));
    out = mark;
    return out;
  });
}

absl::StatusOr<v1::Tag> CreateTag(store::ConnectionPool& db, const Principal& p,
                                  const v1::CreateTagRequest& req) {
  CUB_RETURN_IF_ERROR(ValidateSlug("tag", req.slug()));
  CUB_RETURN_IF_ERROR(ValidateKeys("label", req.labels()));
  v1::Tag out;
  absl::Status st = store::WithTransaction(db, [&](store::Tx& tx) -> absl::Status {
    CUB_ASSIGN_OR_RETURN(auto space, ResolveSpace(tx, p, req.space(), Access::kWrite));
    CUB_ASSIGN_OR_RETURN(auto existing, store::FindTag(tx, space.space_id(), req.slug()));
    if (existing) {
      if (!req.allow_exists()) {
        return absl::AlreadyExistsError(
            absl::StrCat("tag '", req.slug(), "' already exists in space '", space.slug(), "'"));
      }
      out = *existing;
      return absl::OkStatus();
    }
    CUB_ASSIGN_OR_RETURN(auto tag, store::InsertTag(tx, {space.space_id(), req.slug(),
                                                         req.description(), ToMap(req.labels())}));
    out = tag;
    return absl::OkStatus();
  });
  if (!st.ok())
    return AlreadyExistsAs(st, absl::StrCat("tag '", req.slug(), "' in space '", req.space(), "'"));
  return out;
}

absl::StatusOr<v1::TagWithMarks> GetTag(store::ConnectionPool& db, const Principal& p,
                                        const v1::GetTagRequest& req) {
  return store::InReadTransaction(db, [&](store::Tx& tx) -> absl::StatusOr<v1::TagWithMarks> {
    v1::TagWithMarks out;
    CUB_ASSIGN_OR_RETURN(auto space, ResolveSpace(tx, p, req.space(), Access::kRead));
    CUB_ASSIGN_OR_RETURN(auto tag, store::FindTag(tx, space.space_id(), req.tag()));
    if (!tag) {
      return absl::NotFoundError(
          absl::StrCat("tag '", req.tag(), "' not found in space '", space.slug(), "'"));
    }
    *out.mutable_tag() = *tag;
    CUB_ASSIGN_OR_RETURN(auto marks, store::ListTagMarks(tx, tag->tag_id()));
    for (auto& m : marks) *out.add_marks() = std::move(m);
    return out;
  });
}

absl::StatusOr<v1::ListTagsResponse> ListTags(store::ConnectionPool& db, const Principal& p,
                                              const v1::ListTagsRequest& req) {
  return store::InReadTransaction(db, [&](store::Tx& tx) -> absl::StatusOr<v1::ListTagsResponse> {
    v1::ListTagsResponse out;
    CUB_ASSIGN_OR_RETURN(auto space, ResolveSpace(tx, p, req.space(), Access::kRead));
    CUB_ASSIGN_OR_RETURN(auto tags, store::ListTags(tx, space.space_id(), req.options().where()));
    for (auto& t : tags) *out.add_tags() = std::move(t);
    return out;
  });
}

}  // namespace cub::ops
