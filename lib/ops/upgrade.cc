#include "lib/ops/upgrade.h"

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "lib/config/diff.h"
#include "lib/config/json.h"
#include "lib/config/merge.h"
#include "lib/config/protection.h"
#include "lib/config/yaml.h"
#include "lib/domain/vocabulary.h"
#include "lib/ops/access.h"
#include "lib/ops/block_gate.h"
#include "lib/ops/resolve.h"
#include "lib/ops/units.h"
#include "lib/ops/validation.h"
#include "lib/store/links.h"
#include "lib/store/units.h"
#include "lib/util/json.h"
#include "lib/util/sha256.h"
#include "lib/util/status_macros.h"

namespace cub::ops {
namespace {

// Where an upgrade merges from: the upstream Space and Unit, and the Link between, if any.
struct UpgradeSource {
  v1::Space space;
  v1::Unit unit;
  std::optional<v1::Link> link;  // the Link whose cursor the upgrade moves, if any
};

absl::StatusOr<UpgradeSource> FindSource(store::Tx& tx, const Principal& p, const v1::Space& space,
                                         const v1::Unit& unit, const v1::UpdateUnitRequest& req) {
  UpgradeSource src;
  // The clone lineage first; a Unit that was not cloned merges over its MergeUnits Link.
  CUB_ASSIGN_OR_RETURN(
      std::vector<v1::Link> links,
      store::LinksFrom(tx, unit.unit_id(),
                       std::string(domain::UpdateTypeName(domain::UpdateType::kUpgradeUnit))));
  if (links.empty()) {
    CUB_ASSIGN_OR_RETURN(
        links, store::LinksFrom(tx, unit.unit_id(), std::string(domain::UpdateTypeName(
                                                        domain::UpdateType::kMergeUnits))));
  }
  std::string space_ref, unit_ref;
  if (req.merge_source().empty()) {
    if (links.size() != 1) {
      return absl::FailedPreconditionError(absl::StrCat(
          "unit '", unit.slug(), "' has ", links.empty() ? "no" : std::to_string(links.size()),
          " UpgradeUnit or MergeUnits link", links.size() == 1 ? "" : "s",
          " to upgrade from; name the source with MergeSource"));
    }
    space_ref = links[0].to_space_id();
    unit_ref = links[0].to_unit_id();
  } else {
    unit_ref = req.merge_source();
    space_ref = space.space_id();
    if (auto slash = unit_ref.find('/'); slash != std::string::npos) {
      space_ref = unit_ref.substr(0, slash);
      unit_ref = unit_ref.substr(slash + 1);
    }
  }
  CUB_ASSIGN_OR_RETURN(auto up_space, ResolveSpace(tx, p, space_ref, Access::kRead));
  CUB_ASSIGN_OR_RETURN(auto up, ResolveUnit(tx, up_space, unit_ref));
  src.space = up_space;
  src.unit = up;
  for (const auto& l : links) {
    if (l.to_unit_id() == up.unit_id()) src.link = l;
  }
  return src;
}

absl::StatusOr<std::vector<config::Node>> Parse(const v1::Revision& rev, const std::string& what) {
  auto docs = config::ParseYaml(rev.data());
  if (!docs.ok()) {
    return absl::FailedPreconditionError(absl::StrCat(
        what, " revision ", rev.revision_num(), " does not parse: ", docs.status().message()));
  }
  return *std::move(docs);
}

}  // namespace

std::string ConflictsJson(const std::vector<config::Conflict>& conflicts) {
  Json out = Json::array();
  for (const auto& c : conflicts) {
    out.push_back({{"Path", c.path},
                   {"Reason", config::ConflictReasonName(c.reason)},
                   {"UpstreamValue", c.UpstreamJson()},
                   {"DownstreamValue",
                    c.downstream ? config::EmitJson(*c.downstream, false) : std::string()}});
  }
  return JsonText(out);
}

absl::Status ValidateProtectedPaths(const google::protobuf::RepeatedPtrField<std::string>& paths) {
  for (const auto& path : paths) {
    if (auto parsed = config::ParsePath(path); !parsed.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("protected path '", path, "': ", parsed.status().message()));
    }
  }
  return absl::OkStatus();
}

absl::Status Upgrade(store::Tx& tx, const Principal& p, const v1::Space& space,
                     const v1::Unit& unit, const v1::UpdateUnitRequest& req,
                     const std::string& change_set_id, v1::UpdateUnitResponse* out) {
  if (unit.toolchain_type() != "Kubernetes/YAML" && unit.toolchain_type() != "ConfigHub/YAML") {
    return absl::FailedPreconditionError(
        absl::StrCat("unit '", unit.slug(), "' holds ", unit.toolchain_type(),
                     " data, which cannot be merged structurally; write it directly instead"));
  }
  CUB_ASSIGN_OR_RETURN(auto src, FindSource(tx, p, space, unit, req));
  int64_t base =
      req.merge_base() > 0 ? req.merge_base() : (src.link ? src.link->upstream_revision_num() : 0);
  int64_t end = req.merge_end() > 0 ? req.merge_end() : src.unit.head_revision_num();
  if (end > src.unit.head_revision_num() || base < 0 || base > end) {
    return absl::InvalidArgumentError(absl::StrCat("merge range ", base, "..", end, " of unit '",
                                                   src.unit.slug(), "' is not valid (its head is ",
                                                   src.unit.head_revision_num(), ")"));
  }
  if (base == end) {
    out->set_unchanged(true);
    return absl::OkStatus();
  }

  // Parse each upstream revision of the range once.
  CUB_ASSIGN_OR_RETURN(
      std::vector<v1::Revision> upstream,
      store::RevisionRange(tx, src.unit.unit_id(), std::max<int64_t>(base, 1), end));
  std::vector<std::vector<config::Node>> docs;  // docs[i] = state at revision base + i
  if (base == 0) docs.emplace_back();
  for (const auto& rev : upstream) {
    CUB_ASSIGN_OR_RETURN(auto parsed,
                         Parse(rev, absl::StrCat("upstream unit '", src.unit.slug(), "'")));
    docs.push_back(std::move(parsed));
  }
  CUB_ASSIGN_OR_RETURN(auto head,
                       store::FindRevision(tx, unit.unit_id(), unit.head_revision_num()));
  std::vector<config::Node> current;
  if (head) {
    CUB_ASSIGN_OR_RETURN(auto parsed, Parse(*head, absl::StrCat("unit '", unit.slug(), "'")));
    current = std::move(parsed);
  }
  std::vector<std::string> protected_paths(unit.protected_paths().begin(),
                                           unit.protected_paths().end());
  {
    // What the Unit's Protect TransformPaths Links wrote is held as well (resolve.h).
    std::vector<const std::vector<config::Node>*> states{&current};
    for (const auto& d : docs) states.push_back(&d);
    CUB_ASSIGN_OR_RETURN(auto held, LinkHeldPaths(tx, unit, states));
    protected_paths.insert(protected_paths.end(), held.begin(), held.end());
  }
  CUB_ASSIGN_OR_RETURN(auto protection, config::Protection::Parse(protected_paths));

  // Replay: one step per upstream revision; squash: one step for the whole range.
  std::vector<std::pair<size_t, size_t>> steps;
  if (req.squash()) {
    steps.push_back({0, docs.size() - 1});
  } else {
    for (size_t i = 1; i < docs.size(); ++i) steps.push_back({i - 1, i});
  }
  for (const auto& [from, to] : steps) {
    config::Change change = config::ComputeChange(docs[from], docs[to]);
    config::MergeResult merged = config::Apply(change, std::move(current), protection);
    current = std::move(merged.documents);
    if (!merged.changed && merged.conflicts.empty()) continue;
    int64_t upstream_num = base + static_cast<int64_t>(to);
    store::NewRevision rev;
    rev.data = config::EmitYaml(current);
    rev.data_hash = absl::StrCat("sha256:", Sha256Hex(config::CanonicalJson(current)));
    rev.author_id = p.user_id;
    rev.description = req.change_desc().empty()
                          ? absl::StrCat("Upgraded from ", src.space.slug(), "/", src.unit.slug(),
                                         " revision ", upstream_num)
                          : req.change_desc();
    rev.change_set_id = change_set_id;
    rev.upstream_unit_id = src.unit.unit_id();
    rev.upstream_revision_num = upstream_num;
    rev.conflicts_json = ConflictsJson(merged.conflicts);
    CUB_RETURN_IF_ERROR(RunValidators(tx, space, unit.toolchain_type(), &rev));
    CUB_ASSIGN_OR_RETURN(auto written, store::AppendRevision(tx, unit.unit_id(), rev));
    *out->add_revisions() = written;
    *out->mutable_revision() = written;
  }
  if (out->revisions_size() == 0) out->set_unchanged(true);
  if (out->revisions_size() > 0) {  // blocked content, from upstream or merged (block_gate.h)
    CUB_RETURN_IF_ERROR(CheckUpgradeBlocks(tx, space, unit.slug(), out->revision().data_hash(),
                                           head ? head->data_hash() : "", src.unit.unit_id(), end));
  }
  if (src.link && end > src.link->upstream_revision_num()) {
    CUB_RETURN_IF_ERROR(store::SetLinkCursor(tx, src.link->link_id(), end));
  }
  return absl::OkStatus();
}

absl::Status Revert(store::Tx& tx, const Principal& p, const v1::Space& space, const v1::Unit& unit,
                    const v1::UpdateUnitRequest& req, const std::string& change_set_id,
                    v1::UpdateUnitResponse* out) {
  int64_t first = 0, last = 0;
  const std::string& range = req.revert();
  auto dots = range.find("..");
  bool ok = dots == std::string::npos ? absl::SimpleAtoi(range, &first) && (last = first, true)
                                      : absl::SimpleAtoi(range.substr(0, dots), &first) &&
                                            absl::SimpleAtoi(range.substr(dots + 2), &last);
  if (!ok || first < 1 || last < first || last > unit.head_revision_num()) {
    return absl::InvalidArgumentError(
        absl::StrCat("Revert '", range, "' is not a range of revisions of unit '", unit.slug(),
                     "': use N..M with 1 <= N <= M <= ", unit.head_revision_num()));
  }
  std::vector<config::Node> before, after, head;
  for (auto [num, docs] : {std::pair<int64_t, std::vector<config::Node>*>{first - 1, &before},
                           {last, &after},
                           {unit.head_revision_num(), &head}}) {
    if (num == 0) continue;
    CUB_ASSIGN_OR_RETURN(auto rev, store::FindRevision(tx, unit.unit_id(), num));
    if (!rev) return absl::InternalError("revision missing");
    CUB_ASSIGN_OR_RETURN(auto parsed, Parse(*rev, absl::StrCat("unit '", unit.slug(), "'")));
    *docs = std::move(parsed);
  }
  std::vector<std::string> protected_paths(unit.protected_paths().begin(),
                                           unit.protected_paths().end());
  CUB_ASSIGN_OR_RETURN(auto protection, config::Protection::Parse(protected_paths));
  config::MergeResult merged =
      config::Apply(config::ComputeChange(after, before), std::move(head), protection);
  if (!merged.changed) {
    out->set_unchanged(true);
    return absl::OkStatus();
  }
  store::NewRevision rev;
  rev.data = config::EmitYaml(merged.documents);
  rev.data_hash = absl::StrCat("sha256:", Sha256Hex(config::CanonicalJson(merged.documents)));
  rev.author_id = p.user_id;
  rev.description = req.change_desc().empty()
                        ? absl::StrCat("Reverted revisions ", first, "..", last)
                        : req.change_desc();
  rev.change_set_id = change_set_id;
  rev.conflicts_json = ConflictsJson(merged.conflicts);
  CUB_RETURN_IF_ERROR(RunValidators(tx, space, unit.toolchain_type(), &rev));
  CUB_ASSIGN_OR_RETURN(auto written, store::AppendRevision(tx, unit.unit_id(), rev));
  *out->add_revisions() = written;
  *out->mutable_revision() = written;
  return absl::OkStatus();
}

absl::StatusOr<v1::DiffUnitResponse> DiffUnit(store::ConnectionPool& db, const Principal& p,
                                              const v1::DiffUnitRequest& req) {
  return store::InReadTransaction(db, [&](store::Tx& tx) -> absl::StatusOr<v1::DiffUnitResponse> {
    v1::DiffUnitResponse out;
    CUB_ASSIGN_OR_RETURN(auto space, ResolveSpace(tx, p, req.space(), Access::kRead));
    CUB_ASSIGN_OR_RETURN(auto unit, ResolveUnit(tx, space, req.unit()));
    CUB_ASSIGN_OR_RETURN(auto to, ResolveRevision(tx, p, space, unit, req.to()));
    int64_t from = to - 1;
    if (!req.from().empty()) {
      CUB_ASSIGN_OR_RETURN(auto f, ResolveRevision(tx, p, space, unit, req.from()));
      from = f;
    }
    std::vector<config::Node> before, after;
    for (auto& [num, docs] : {std::pair<int64_t, std::vector<config::Node>*>{from, &before},
                              std::pair<int64_t, std::vector<config::Node>*>{to, &after}}) {
      if (num == 0) continue;
      CUB_ASSIGN_OR_RETURN(auto rev, store::FindRevision(tx, unit.unit_id(), num));
      if (!rev) return absl::NotFoundError(absl::StrCat("revision ", num, " not found"));
      CUB_ASSIGN_OR_RETURN(auto parsed, Parse(*rev, absl::StrCat("unit '", unit.slug(), "'")));
      *docs = std::move(parsed);
    }
    out.set_from_revision_num(static_cast<int32_t>(from));
    out.set_to_revision_num(static_cast<int32_t>(to));
    for (const auto& m : config::Diff(before, after)) {
      v1::Mutation* pm = out.add_mutations();
      pm->set_path(m.path);
      pm->set_kind(config::MutationKindName(m.kind));
      if (m.kind != config::MutationKind::kAdd)
        pm->set_old_value(config::EmitJson(m.old_value, false));
      if (m.kind != config::MutationKind::kRemove)
        pm->set_new_value(config::EmitJson(m.new_value, false));
    }
    return out;
  });
}

}  // namespace cub::ops
