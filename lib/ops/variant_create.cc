// CreateVariant and CreateVariants: one code path, a single variant being a batch of one. The
// batch is checked whole before anything is written (slugs, labels, the upstream and access,
// slugs taken), then written in a fixed number of set-based statements (lib/store/variants.h),
// all in one transaction, so a refusal or a failure leaves nothing behind.
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "lib/domain/vocabulary.h"
#include "lib/ops/access.h"
#include "lib/ops/input.h"
#include "lib/ops/variants.h"
#include "lib/store/spaces.h"
#include "lib/store/units.h"
#include "lib/store/variants.h"
#include "lib/util/short_list.h"
#include "lib/util/status_macros.h"

namespace cub::ops {
namespace {

// 'a', 'b', 'c' (and 7 more)
std::string QuotedNames(const std::vector<std::string>& names) {
  std::vector<std::string> quoted;
  quoted.reserve(names.size());
  for (const auto& name : names) quoted.push_back(absl::StrCat("'", name, "'"));
  return ShortList(quoted);
}

// Refuses a batch with no slug, too many, an invalid or a repeated one, or bad label keys,
// naming every offending slug. One slug gets the same words as before batches existed.
absl::Status CheckRequest(const v1::CreateVariantsRequest& req) {
  if (req.slugs().empty()) {
    return absl::InvalidArgumentError("no variant to create: name at least one new Space");
  }
  if (req.slugs_size() > kMaxVariantsPerCall) {
    return absl::InvalidArgumentError(
        absl::StrCat(req.slugs_size(), " variants asked for in one call; the limit is ",
                     kMaxVariantsPerCall, ": split them into several calls"));
  }
  if (req.slugs_size() == 1) {
    CUB_RETURN_IF_ERROR(ValidateSlug("space", req.slugs(0)));
  } else {
    std::vector<std::string> invalid, repeated;
    std::set<std::string> seen, seen_twice;
    for (const std::string& slug : req.slugs()) {
      if (!ValidateSlug("space", slug).ok()) invalid.push_back(slug);
      if (!seen.insert(slug).second && seen_twice.insert(slug).second) repeated.push_back(slug);
    }
    if (!invalid.empty()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "space names not valid: ", QuotedNames(invalid),
          "; use 1-128 letters, digits, '-', '_' or '.', starting with a letter or digit"));
    }
    if (!repeated.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("space names given more than once: ", QuotedNames(repeated)));
    }
  }
  return ValidateKeys("label", req.labels());
}

struct Created {
  std::vector<std::string> space_ids;  // in request order
  int64_t units = 0;                   // cloned into all of them; as many Links
};

// The checked batch, written inside `tx`.
absl::StatusOr<Created> CreateIn(store::Tx& tx, const Principal& p,
                                 const v1::CreateVariantsRequest& req) {
  CUB_ASSIGN_OR_RETURN(auto upstream, ResolveSpace(tx, p, req.upstream_space(), Access::kRead));
  std::vector<std::string> slugs(req.slugs().begin(), req.slugs().end());
  CUB_ASSIGN_OR_RETURN(auto taken, store::TakenSpaceRefs(tx, slugs));
  if (taken.size() == 1) {
    return absl::AlreadyExistsError(absl::StrCat("space '", taken[0], "' already exists"));
  }
  if (!taken.empty()) {
    return absl::AlreadyExistsError(
        absl::StrCat(taken.size(), " spaces already exist: ", QuotedNames(taken)));
  }
  store::NewVariants nv;
  nv.slugs = std::move(slugs);
  nv.labels = ToMap(req.labels());
  if (!req.stage().empty()) nv.labels["Stage"] = req.stage();
  if (!req.environment().empty()) nv.labels["Environment"] = req.environment();
  if (!req.region().empty()) nv.labels["Region"] = req.region();
  nv.component_id = upstream.component_id();
  nv.upstream_space_id = upstream.space_id();
  Created out;
  CUB_ASSIGN_OR_RETURN(out.space_ids, store::InsertVariantSpaces(tx, nv));
  CUB_RETURN_IF_ERROR(store::CarryOverGrants(tx, upstream.space_id(), out.space_ids,
                                             std::string(domain::RoleName(Role::kAdmin)),
                                             p.user_id));
  CUB_ASSIGN_OR_RETURN(out.units,
                       store::CloneUnits(tx, upstream.space_id(), out.space_ids, p.user_id,
                                         absl::StrCat("Cloned from ", upstream.slug())));
  return out;
}

// A unique violation from a Space created by someone else between the check and the insert.
absl::Status Raced(const absl::Status& st, const v1::CreateVariantsRequest& req) {
  if (req.slugs_size() == 1) return AlreadyExistsAs(st, absl::StrCat("space '", req.slugs(0), "'"));
  return AlreadyExistsAs(st, "a space named in the request");
}

}  // namespace

absl::StatusOr<v1::CreateVariantsResponse> CreateVariants(store::ConnectionPool& db,
                                                          const Principal& p,
                                                          const v1::CreateVariantsRequest& req) {
  CUB_RETURN_IF_ERROR(CheckRequest(req));
  v1::CreateVariantsResponse out;
  absl::Status st = store::WithTransaction(db, [&](store::Tx& tx) -> absl::Status {
    out.Clear();
    CUB_ASSIGN_OR_RETURN(Created created, CreateIn(tx, p, req));
    CUB_ASSIGN_OR_RETURN(auto spaces, store::SpacesAmong(tx, created.space_ids, ""));
    for (auto& s : spaces) *out.add_spaces() = std::move(s);
    out.set_unit_count(static_cast<int32_t>(created.units / req.slugs_size()));
    out.set_link_count(static_cast<int32_t>(created.units));
    return absl::OkStatus();
  });
  if (!st.ok()) return Raced(st, req);
  return out;
}

absl::StatusOr<v1::CreateVariantResponse> CreateVariant(store::ConnectionPool& db,
                                                        const Principal& p,
                                                        const v1::CreateVariantRequest& req) {
  v1::CreateVariantsRequest one;
  one.add_slugs(req.slug());
  one.set_upstream_space(req.upstream_space());
  one.set_stage(req.stage());
  one.set_environment(req.environment());
  one.set_region(req.region());
  *one.mutable_labels() = req.labels();
  CUB_RETURN_IF_ERROR(CheckRequest(one));
  v1::CreateVariantResponse out;
  absl::Status st = store::WithTransaction(db, [&](store::Tx& tx) -> absl::Status {
    out.Clear();
    CUB_ASSIGN_OR_RETURN(Created created, CreateIn(tx, p, one));
    CUB_ASSIGN_OR_RETURN(auto space, store::FindSpace(tx, created.space_ids[0]));
    if (!space) return absl::InternalError("space vanished after insert");
    store::UnitQuery q;
    q.space_id = space->space_id();
    CUB_ASSIGN_OR_RETURN(auto units, store::ListUnits(tx, store::Caller{true, "", {}}, q));
    *out.mutable_space() = *std::move(space);
    for (auto& u : units) *out.add_units() = std::move(u);
    out.set_link_count(static_cast<int32_t>(created.units));
    return absl::OkStatus();
  });
  if (!st.ok()) return Raced(st, one);
  return out;
}

}  // namespace cub::ops
