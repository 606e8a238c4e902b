#include "lib/ops/release_records.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "lib/ops/attestation_gate.h"
#include "lib/ops/release_keys.h"
#include "lib/sign/dsse.h"
#include "lib/sign/statement.h"
#include "lib/util/bundle_digest.h"
#include "lib/util/json.h"
#include "lib/util/sha256.h"
#include "lib/util/status_macros.h"
#include "lib/util/time_text.h"

namespace cub::ops {
namespace {

// What the provenance record says of a Release: every field of its row that is not live
// state. VerifyRelease checks each against the row.
Json ProvenancePredicate(const store::NewRelease& r, const std::string& published_by) {
  Json units = Json::array();
  for (const auto& u : r.units) {
    units.push_back(
        {{"Unit", u.unit()}, {"RevisionNum", u.revision_num()}, {"DataHash", u.data_hash()}});
  }
  Json pred = Json::object();
  pred["Space"] = r.space_slug;
  pred["SpaceID"] = r.space_id;
  pred["Target"] = r.target;
  pred["ReleaseNum"] = r.release_num;
  pred["ChangeOrder"] = r.change_order;
  pred["ChangeOrderID"] = r.change_order_id;
  pred["RevisionSelector"] = r.revision_selector;
  pred["Description"] = r.description;
  pred["Units"] = std::move(units);
  pred["PublishedBy"] = published_by;
  pred["PublishedAt"] = r.published_at;
  return pred;
}

}  // namespace

std::string BundleDigest(std::vector<targets::BundleFile> files) {
  std::vector<NamedContent> named;
  named.reserve(files.size());
  for (const auto& f : files) named.emplace_back(f.name, f.content);
  return BundleDigestOf(std::move(named));
}

std::string ReleaseSubjectName(const std::string& space_slug, int64_t num) {
  return absl::StrCat(space_slug, "/release-", num);
}

std::string ReleaseTargetName(const v1::Target& target) {
  return absl::StrCat(target.space_slug(), "/", target.slug());
}

absl::StatusOr<std::string> SignReleaseProvenance(const ReleaseEnv& env,
                                                  const store::NewRelease& nr,
                                                  const std::string& published_by) {
  std::string statement = sign::Statement(
      {{ReleaseSubjectName(nr.space_slug, nr.release_num), nr.bundle_digest.substr(7)}},
      kProvenancePredicate, ProvenancePredicate(nr, published_by));
  CUB_ASSIGN_OR_RETURN(sign::SigningKey key, SigningKeyOf(env));
  return sign::SignEnvelope(key, sign::kInTotoPayloadType, statement).ToJson();
}

absl::StatusOr<std::vector<std::vector<RequirementOutcome>>> JudgeApprovals(
    store::Tx& tx, const ResolvedChangeOrder& rco,
    const std::vector<const workflow::AttestationPrerequisite*>& reqs,
    const std::vector<v1::Space>& spaces) {
  std::vector<std::vector<RequirementOutcome>> out;
  const absl::Time now = absl::Now();
  for (const auto* req : reqs) {
    CUB_ASSIGN_OR_RETURN(auto outcomes, EvaluateAttestation(tx, rco, *req, spaces, now));
    if (outcomes.size() != spaces.size()) {
      return absl::InternalError("approvals judged for another number of spaces");
    }
    out.push_back(std::move(outcomes));
  }
  return out;
}

absl::StatusOr<std::string> SignApprovalSeal(
    const ReleaseEnv& env, const ResolvedChangeOrder& rco, const std::string& stage,
    const std::vector<const workflow::AttestationPrerequisite*>& reqs,
    const std::vector<const RequirementOutcome*>& outcomes, const v1::Space& space, int64_t num,
    const std::string& digest) {
  if (outcomes.size() != reqs.size()) {
    return absl::InternalError("approvals to seal do not match their prerequisites");
  }
  Json policy = Json::array(), votes = Json::array();
  for (size_t k = 0; k < reqs.size(); ++k) {
    const workflow::AttestationPrerequisite* req = reqs[k];
    Json rule = Json::object();
    rule["Name"] = req->name;
    rule["Type"] = req->type;
    rule["Count"] = req->count;
    rule["FromUserIDs"] = req->from_user_ids;
    rule["FromGroups"] = req->from_groups;
    rule["DistinctGroups"] = req->distinct_groups;
    rule["MaxAge"] = req->max_age;
    rule["AllowAuthors"] = req->allow_authors;
    rule["IgnoreFail"] = req->ignore_fail;
    policy.push_back(std::move(rule));
    for (const auto& j : outcomes[k]->votes) {
      Json vote = Json::object();
      vote["Requirement"] = req->name;
      vote["AttestationID"] = j.vote.attestation_id;
      vote["User"] = j.vote.username;
      vote["UserID"] = j.vote.user_id;
      vote["Result"] = j.vote.result;
      vote["At"] = FormatRfc3339(j.vote.at);
      vote["Unit"] = j.unit;
      vote["RevisionNum"] = j.revision_num;
      vote["Counted"] = j.counted;
      vote["Why"] = j.why;
      votes.push_back(std::move(vote));
    }
  }
  Json predicate = Json::object();
  predicate["Release"] = {{"Space", space.slug()}, {"ReleaseNum", num}, {"BundleDigest", digest}};
  predicate["ChangeOrder"] = absl::StrCat(rco.base.slug(), "/", rco.co.slug);
  predicate["Stage"] = stage;
  predicate["Policy"] = std::move(policy);
  predicate["Votes"] = std::move(votes);
  predicate["SealedAt"] = FormatRfc3339(absl::Now());
  std::string statement = sign::Statement(
      {{ReleaseSubjectName(space.slug(), num), digest.substr(7)}}, kApprovalPredicate, predicate);
  CUB_ASSIGN_OR_RETURN(sign::SigningKey key, SigningKeyOf(env));
  return sign::SignEnvelope(key, sign::kInTotoPayloadType, statement).ToJson();
}

}  // namespace cub::ops
