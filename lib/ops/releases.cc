#include "lib/ops/releases.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "lib/config/yaml.h"
#include "lib/domain/vocabulary.h"
#include "lib/ops/access.h"
#include "lib/ops/api_json.h"
#include "lib/ops/attestation_gate.h"
#include "lib/ops/block_gate.h"
#include "lib/ops/change_orders.h"
#include "lib/ops/delivery.h"
#include "lib/ops/freeze_gate.h"
#include "lib/ops/gate_next_change.h"
#include "lib/ops/gates.h"
#include "lib/ops/input.h"
#include "lib/ops/page_token.h"
#include "lib/ops/promotion_records.h"
#include "lib/ops/release_bundle.h"
#include "lib/ops/release_files.h"
#include "lib/ops/release_keys.h"
#include "lib/ops/release_records.h"
#include "lib/ops/release_scans.h"
#include "lib/ops/release_status_rules.h"
#include "lib/ops/release_verification.h"
#include "lib/ops/stage_publish.h"
#include "lib/ops/target_env.h"
#include "lib/ops/units.h"
#include "lib/sign/dsse.h"
#include "lib/sign/statement.h"
#include "lib/store/change_orders.h"
#include "lib/store/engine_work.h"
#include "lib/store/events.h"
#include "lib/store/held_clusters.h"
#include "lib/store/release_batch.h"
#include "lib/store/releases.h"
#include "lib/store/spaces.h"
#include "lib/store/tags.h"
#include "lib/store/units.h"
#include "lib/targets/git_history.h"
#include "lib/targets/provider.h"
#include "lib/util/json.h"
#include "lib/util/parallel_for.h"
#include "lib/util/sha256.h"
#include "lib/util/status_macros.h"
#include "lib/util/time_text.h"
#include "lib/workflow/names.h"

namespace cub::ops {
namespace {

constexpr char kConfigHubYaml[] = "ConfigHub/YAML";

// How long a publish waits for its Release to leave Pending (another cubd may be delivering to
// the Target) before it answers with the Release Pending.
constexpr absl::Duration kPublishDeliveryWait = absl::Seconds(30);

absl::StatusOr<v1::Target> FindTargetIn(store::Tx& tx, const v1::Space& space,
                                        const std::string& ref) {
  CUB_ASSIGN_OR_RETURN(auto t, store::FindTarget(tx, space.space_id(), ref));
  if (!t) {
    return absl::NotFoundError(
        absl::StrCat("target '", ref, "' not found in space '", space.slug(), "'"));
  }
  return *t;
}

// What a publish bundles: one file per Unit, and the digest over them.
struct Bundle {
  std::vector<v1::ReleaseUnit> units;
  std::vector<targets::BundleFile> files;  // parallel to units
  std::string digest;
  std::string change_order_id;
  std::string change_order;  // "BASE/NAME"
  std::optional<ResolvedChangeOrder> rco;
};

// Adds each Unit of `picked` at its revision to `b`, reading every revision in one query.
absl::Status AddUnits(store::Tx& tx, const std::vector<std::pair<const v1::Unit*, int64_t>>& picked,
                      Bundle& b) {
  std::vector<std::pair<std::string, int64_t>> keys;
  for (const auto& [unit, num] : picked) keys.emplace_back(unit->unit_id(), num);
  CUB_ASSIGN_OR_RETURN(auto revs, store::RevisionsOf(tx, keys));
  for (size_t i = 0; i < picked.size(); ++i) {
    const v1::Unit& unit = *picked[i].first;
    const int64_t num = picked[i].second;
    const store::ReleasableUnit& rev = revs[i];
    if (!rev.revision_found) return absl::InternalError("bundled revision missing");
    if (!rev.validation_errors.empty()) {
      return absl::FailedPreconditionError(absl::StrCat(
          "unit '", unit.slug(), "' revision ", num, " has validation errors (",
          absl::StrJoin(rev.validation_errors, "; "), "); fix them before releasing it"));
    }
    v1::ReleaseUnit u;
    u.set_unit_id(unit.unit_id());
    u.set_unit(unit.slug());
    u.set_revision_num(static_cast<int32_t>(num));
    u.set_data_hash(rev.data_hash);
    b.units.push_back(u);
    b.files.push_back({BundleFileName(unit.slug(), unit.toolchain_type()), rev.data});
  }
  return absl::OkStatus();
}

// The ChangeOrder Tag a selector reads: for "ChangeOrder:BASE/NAME" its publish Tag (and the
// ChangeOrder is recorded in `b`), for "Before:ChangeOrder:BASE/NAME" its start Tag; empty for
// any other selector. FAILED_PRECONDITION when the Space has not taken the ChangeOrder.
absl::StatusOr<std::string> ChangeOrderTagOf(store::Tx& tx, const Principal& p,
                                             const v1::Space& space, const std::string& selector,
                                             Bundle& b) {
  if (!absl::StartsWith(selector, "ChangeOrder:") &&
      !absl::StartsWith(selector, "Before:ChangeOrder:")) {
    return std::string();
  }
  const bool before = absl::StartsWith(selector, "Before:");
  CUB_ASSIGN_OR_RETURN(
      auto rco, ResolveChangeOrder(tx, p, selector.substr(before ? 19 : 12), space.slug(), false));
  CUB_ASSIGN_OR_RETURN(auto marked,
                       store::MarkedSpaces(tx, rco.co.publish_tag_id, {space.space_id()}));
  if (marked.empty()) {
    return absl::FailedPreconditionError(
        absl::StrCat("space '", space.slug(), "' has not taken change order '", rco.co.slug, "'"));
  }
  if (before) return rco.co.start_tag_id;
  std::string tag_id = rco.co.publish_tag_id;
  b.change_order_id = rco.co.id;
  b.change_order = absl::StrCat(rco.base.slug(), "/", rco.co.slug);
  b.rco = std::move(rco);
  return tag_id;
}

// The revision the Tag `tag_id` marks of each Unit, by Unit ID; none for an empty `tag_id`.
absl::StatusOr<std::map<std::string, int64_t>> MarksOf(store::Tx& tx, const std::string& tag_id) {
  std::map<std::string, int64_t> marks;
  if (tag_id.empty()) return marks;
  CUB_ASSIGN_OR_RETURN(auto tag_marks, store::ListTagMarks(tx, tag_id));
  for (const auto& m : tag_marks) marks[m.unit_id()] = m.revision_num();
  return marks;
}

absl::StatusOr<Bundle> BuildBundle(store::Tx& tx, const Principal& p, const v1::Space& space,
                                   const std::string& selector) {
  Bundle b;
  store::UnitQuery q;
  q.space_id = space.space_id();
  CUB_ASSIGN_OR_RETURN(auto units, store::ListUnits(tx, ToCaller(p), q));
  // The ChangeOrder Tag the selector reads, if any.
  CUB_ASSIGN_OR_RETURN(const std::string tag_id, ChangeOrderTagOf(tx, p, space, selector, b));
  CUB_ASSIGN_OR_RETURN(const auto marks, MarksOf(tx, tag_id));
  // A selector no Unit answers to (a mistyped Tag) is an error, not a quiet republish of what
  // is deployed; a Unit it does not reach goes out as deployed.
  absl::Status unanswered = absl::OkStatus();
  bool answered = !tag_id.empty();
  std::vector<std::pair<const v1::Unit*, int64_t>> picked;
  for (const auto& unit : units) {
    if (unit.toolchain_type() == kConfigHubYaml || unit.head_revision_num() == 0) continue;
    int64_t num = 0;
    if (!tag_id.empty()) {
      // A Unit the ChangeOrder did not mark goes out as it is deployed.
      auto it = marks.find(unit.unit_id());
      num = it != marks.end() ? it->second : unit.last_released_revision_num();
    } else {
      auto resolved = ResolveRevision(tx, p, space, unit, selector);
      if (resolved.ok()) {
        num = *resolved;
        answered = true;
      } else if (absl::IsNotFound(resolved.status())) {
        if (unanswered.ok()) unanswered = resolved.status();
        num = unit.last_released_revision_num();
      } else {
        return resolved.status();
      }
    }
    if (num == 0) continue;  // not there yet, and never deployed
    picked.emplace_back(&unit, num);
  }
  CUB_RETURN_IF_ERROR(AddUnits(tx, picked, b));
  if (!answered && !unanswered.ok()) return unanswered;
  if (b.units.empty()) {
    return absl::FailedPreconditionError(
        absl::StrCat("space '", space.slug(), "' has no unit to release at ", selector));
  }
  b.digest = BundleDigest(b.files);
  return b;
}

// The bundle of `r` from its revisions' data (`data`, by Unit slug) and the file names it
// recorded (`name_of`, by Unit slug).
absl::StatusOr<Bundle> BundleFrom(const v1::Release& r,
                                  const std::map<std::string, std::string>& data,
                                  const std::map<std::string, std::string>& name_of) {
  Bundle b;
  for (const auto& u : r.units()) {
    auto it = data.find(u.unit());
    if (it == data.end()) {
      return absl::DataLossError(absl::StrCat("release ", r.release_num(), " bundled unit '",
                                              u.unit(), "' revision ", u.revision_num(),
                                              ", which is gone"));
    }
    // Releases recorded before file names were have none: every file was "<slug>.yaml" then.
    auto name = name_of.find(u.unit());
    b.units.push_back(u);
    b.files.push_back({name != name_of.end() ? name->second : u.unit() + ".yaml", it->second});
  }
  b.digest = BundleDigest(b.files);
  return b;
}

absl::StatusOr<Bundle> StoredBundle(store::Tx& tx, const v1::Release& r) {
  CUB_ASSIGN_OR_RETURN(auto stored, store::ReleasesFiles(tx, {r.release_id()}));
  const store::StoredFiles& f = stored[r.release_id()];
  return BundleFrom(r, f.data, f.file_names);
}

// The name a Release's signed statements give it: "SPACE/release-N".
std::string SubjectName(const std::string& space_slug, int64_t num) {
  return absl::StrCat(space_slug, "/release-", num);
}

// A scalar of a signed statement as text: nullopt when the statement does not name it.
std::optional<std::string> SignedText(const config::Node* n) {
  if (n == nullptr) return std::nullopt;
  if (n->IsString()) return n->AsString();
  if (n->IsInt()) return std::to_string(n->AsInt());
  return std::string("(not a scalar)");
}

// Appends to `differ` the field `field` when what is signed of it (`n`) is not the row's
// value `row`, or when it is not signed at all and not `optional`.
void CompareSignedField(const std::string& field, const config::Node* n, const std::string& row,
                        bool optional, std::vector<std::string>& differ) {
  std::optional<std::string> v = SignedText(n);
  if (!v) {
    if (!optional) differ.push_back(absl::StrCat(field, " (the statement does not name it)"));
    return;
  }
  if (*v != row) {
    differ.push_back(
        absl::StrCat(field, " (signed ", JsonQuote(*v), ", stored ", JsonQuote(row), ")"));
  }
}

// Appends PublishedAt to `differ` when the predicate `pred` signed another time than the row's.
// The row reads in microseconds, the statement in seconds: compared as times. Statements
// signed before the row was written complete (those without ChangeOrderID) took the time a
// moment after the row's transaction began, so for them a minute's difference is allowed.
void CompareSignedTime(const config::Node& pred, const v1::Release& r,
                       std::vector<std::string>& differ) {
  std::optional<std::string> at = SignedText(pred.Find("PublishedAt"));
  const absl::Duration slack =
      pred.Find("ChangeOrderID") == nullptr ? absl::Minutes(1) : absl::ZeroDuration();
  absl::Time signed_at, stored_at;
  std::string ignored;
  if (!at || !absl::ParseTime(absl::RFC3339_full, *at, &signed_at, &ignored) ||
      !absl::ParseTime(absl::RFC3339_full, r.published_at(), &stored_at, &ignored) ||
      absl::AbsDuration(signed_at - stored_at) > slack) {
    differ.push_back(absl::StrCat("PublishedAt (signed ", JsonQuote(at.value_or("")), ", stored ",
                                  JsonQuote(r.published_at()), ")"));
  }
}

// Appends Units to `differ` when the predicate `pred` signed other Units, revisions or data
// hashes than the row holds, showing both lists.
void CompareSignedUnits(const config::Node& pred, const v1::Release& r,
                        std::vector<std::string>& differ) {
  std::map<std::string, std::string> signed_units, stored_units;
  const config::Node* units = pred.Find("Units");
  if (units != nullptr && units->IsSequence()) {
    for (const auto& u : units->AsSequence()) {
      signed_units[SignedText(u.Find("Unit")).value_or("")] =
          absl::StrCat(SignedText(u.Find("RevisionNum")).value_or(""), " ",
                       SignedText(u.Find("DataHash")).value_or(""));
    }
  }
  for (const auto& u : r.units()) {
    stored_units[u.unit()] = absl::StrCat(u.revision_num(), " ", u.data_hash());
  }
  if (signed_units == stored_units) return;
  auto show = [](const std::map<std::string, std::string>& m) {
    std::vector<std::string> parts;
    for (const auto& [k, v] : m) parts.push_back(absl::StrCat(k, "@", v));
    return absl::StrJoin(parts, ", ");
  };
  differ.push_back(
      absl::StrCat("Units (signed ", show(signed_units), "; stored ", show(stored_units), ")"));
}

// The provenance statement `st` against the Release row `r`: the subject's name, the predicate
// type, and every field the predicate names (ChangeOrderID and Description only when it names
// them: statements signed before they were added lack them). DATA_LOSS naming each field that
// differs.
absl::Status CheckSignedFields(const config::Node& st, const v1::Release& r) {
  std::vector<std::string> differ;
  auto check = [&](const std::string& field, const config::Node* n, const std::string& row,
                   bool optional = false) { CompareSignedField(field, n, row, optional, differ); };
  const config::Node* subject = st.Find("subject");
  check("subject name", subject->AsSequence()[0].Find("name"),
        SubjectName(r.space_slug(), r.release_num()));
  check("predicateType", st.Find("predicateType"), kProvenancePredicate);
  const config::Node* pred = st.Find("predicate");
  if (pred == nullptr || !pred->IsMapping()) {
    differ.push_back("predicate (missing)");
  } else {
    check("Space", pred->Find("Space"), r.space_slug());
    check("SpaceID", pred->Find("SpaceID"), r.space_id());
    check("Target", pred->Find("Target"), r.target());
    check("ReleaseNum", pred->Find("ReleaseNum"), std::to_string(r.release_num()));
    check("ChangeOrder", pred->Find("ChangeOrder"), r.change_order());
    check("ChangeOrderID", pred->Find("ChangeOrderID"), r.change_order_id(), true);
    check("RevisionSelector", pred->Find("RevisionSelector"), r.revision_selector());
    check("Description", pred->Find("Description"), r.description(), true);
    check("PublishedBy", pred->Find("PublishedBy"), r.published_by());
    CompareSignedTime(*pred, r, differ);
    CompareSignedUnits(*pred, r, differ);
  }
  if (differ.empty()) return absl::OkStatus();
  return absl::DataLossError(absl::StrCat(
      "release ", r.release_num(), ": the stored release differs from its signed provenance in ",
      absl::StrJoin(differ, "; "), "; it has been tampered with and will not be deployed"));
}

// Checks the sealed approvals of the Release `r`: their signature with the server's key, and
// that they name this Release and its bundle (`sha256`, the hex digest its provenance signed).
absl::Status VerifySealedApprovals(const ReleaseEnv& env, const v1::Release& r,
                                   const std::string& sha256) {
  auto sealed = sign::Envelope::FromJson(r.sealed_approvals());
  if (!sealed.ok()) {
    return absl::DataLossError(
        absl::StrCat("release ", r.release_num(),
                     ": its sealed approvals do not read: ", sealed.status().message()));
  }
  if (auto s = VerifyTrusted(env, *sealed); !s.ok()) {
    return absl::DataLossError(
        absl::StrCat("release ", r.release_num(),
                     ": the sealed approvals' signature does not verify: ", s.status().message()));
  }
  if (!absl::StrContains(sealed->payload, absl::StrCat("\"sha256\":\"", sha256, "\"")) ||
      !absl::StrContains(sealed->payload, absl::StrCat("\"name\":\"", r.space_slug(), "/release-",
                                                       r.release_num(), "\""))) {
    return absl::DataLossError(
        absl::StrCat("release ", r.release_num(), ": the sealed approvals name another bundle"));
  }
  return absl::OkStatus();
}

// The key id the Release's provenance names as its signer (its first signature's keyid); empty
// when it does not read.
std::string ProvenanceKeyId(const v1::Release& r) {
  auto env_json = sign::Envelope::FromJson(r.provenance());
  if (!env_json.ok() || env_json->signatures.empty()) return "";
  return env_json->signatures[0].keyid;
}

// Checks the Release's signed provenance and that its stored bundle still hashes to the digest
// signed. Each check passed or failed is appended to `checks`. Given its bundle (`preloaded`),
// it reads nothing through `tx` and may run on several threads at once.
absl::Status VerifyStored(store::Tx& tx, const ReleaseEnv& env, const v1::Release& r,
                          std::vector<std::string>* checks, const Bundle* preloaded = nullptr) {
  auto env_json = sign::Envelope::FromJson(r.provenance());
  if (!env_json.ok()) {
    return absl::DataLossError(
        absl::StrCat("release ", r.release_num(),
                     ": its provenance record does not read: ", env_json.status().message()));
  }
  auto signer = VerifyTrusted(env, *env_json);
  if (!signer.ok()) {
    return absl::DataLossError(absl::StrCat("release ", r.release_num(),
                                            ": the provenance signature does not verify with a"
                                            " key cubd trusts: ",
                                            signer.status().message()));
  }
  checks->push_back(absl::StrCat("provenance signature verifies with key ", *signer));
  // The statement is JSON cubd wrote and signed: read as JSON, well over twice as fast as
  // through the YAML reader, which a Stage's delivery would run a thousand times.
  auto statement = config::ParseJsonNode(env_json->payload);
  const config::Node* subject = statement.ok() ? statement->Find("subject") : nullptr;
  const config::Node* digest = subject && subject->IsSequence() && subject->size() == 1
                                   ? subject->AsSequence()[0].Find("digest")
                                   : nullptr;
  const config::Node* sha = digest ? digest->Find("sha256") : nullptr;
  if (!sha || !sha->IsString()) {
    return absl::DataLossError(absl::StrCat(
        "release ", r.release_num(), ": the signed statement names no sha256 subject digest"));
  }
  std::string signed_digest = absl::StrCat("sha256:", sha->AsString());
  if (signed_digest != r.bundle_digest()) {
    return absl::DataLossError(absl::StrCat("release ", r.release_num(), ": the signed digest ",
                                            signed_digest, " is not the recorded one ",
                                            r.bundle_digest()));
  }
  Bundle read;
  const Bundle* stored = preloaded;
  if (stored == nullptr) {
    CUB_ASSIGN_OR_RETURN(read, StoredBundle(tx, r));
    stored = &read;
  }
  if (stored->digest != signed_digest) {
    return absl::DataLossError(absl::StrCat(
        "release ", r.release_num(), ": the bundle as stored hashes to ", stored->digest,
        ", not to the signed ", signed_digest, "; it has been altered and will not be deployed"));
  }
  checks->push_back(absl::StrCat("stored bundle hashes to the signed digest ", signed_digest));
  CUB_RETURN_IF_ERROR(CheckSignedFields(*statement, r));
  checks->push_back("every field the provenance names matches the release as stored");
  if (r.sealed_approvals().empty()) return absl::OkStatus();
  CUB_RETURN_IF_ERROR(VerifySealedApprovals(env, r, sha->AsString()));
  checks->push_back("sealed approvals verify and name this bundle");
  return absl::OkStatus();
}

std::string SubjectName(const v1::Space& space, int64_t num) {
  return SubjectName(space.slug(), num);
}

// The Stage of the ChangeOrder "BASE/NAME" a Release was published for moves as it is released
// and reported on, whoever does that: it is read on the server's own account.
// A ChangeOrder deleted since is no longer followed; any other failure is the call's.
absl::Status AdvanceStageOf(store::Tx& tx, const std::string& ref) {
  auto rco = ResolveChangeOrder(tx, ServerPrincipal(), ref, "", false);
  if (absl::IsNotFound(rco.status())) return absl::OkStatus();
  CUB_RETURN_IF_ERROR(rco.status());
  // Completed is as far as a Stage goes, and it never moves back: no need to read it all again.
  if (rco->co.stage == "Completed") return absl::OkStatus();
  return AdvanceStage(tx, *rco).status();
}

// Records `kind` about Release `r` in its Space and wakes the engine for the ChangeOrders that
// have reached that Space: a publish or a status report may open their gates.
absl::Status RecordReleaseEvent(store::Tx& tx, const Principal& p, const v1::Release& r,
                                const std::string& kind, std::string message) {
  store::NewEvent e;
  e.kind = kind;
  e.space_id = r.space_id();
  e.space_slug = r.space_slug();
  e.change_order_id = r.change_order_id();
  e.change_order = r.change_order();
  e.user_id = p.user_id;
  e.username = p.username;
  e.message = std::move(message);
  e.details_json = absl::StrCat(R"({"ReleaseNum":)", r.release_num(), R"(,"BundleDigest":)",
                                JsonQuote(r.bundle_digest()), "}");
  CUB_RETURN_IF_ERROR(store::AppendEvent(tx, e));
  return store::WakeChangeOrdersInSpace(tx, r.space_id());
}

// The Space a read of Releases names: one the caller may read or, for a server administrator,
// a deleted one whose Releases are kept (named by its ID, or by the slug its Releases carry
// when no live Space has it), as with attestations.
absl::StatusOr<v1::Space> ReleaseSpace(store::Tx& tx, const Principal& p, const std::string& ref) {
  auto space = ResolveSpace(tx, p, ref, Access::kRead);
  if (space.ok() || !p.admin || !absl::IsNotFound(space.status())) return space;
  CUB_ASSIGN_OR_RETURN(auto kept, store::DeletedSpacesWithReleases(tx, ref));
  if (kept.empty()) return space.status();
  if (kept.size() > 1) {
    std::vector<std::string> ids;
    for (const auto& [id, slug] : kept) ids.push_back(id);
    return absl::FailedPreconditionError(
        absl::StrCat("releases of ", kept.size(), " deleted spaces carry the slug '", ref, "' (",
                     absl::StrJoin(ids, ", "), "): name one by its ID"));
  }
  v1::Space deleted;
  deleted.set_space_id(kept[0].first);
  deleted.set_slug(kept[0].second);
  return deleted;
}

// Writes the deployment-history step the release status rules decided on.
absl::Status TakeDeploymentStep(store::Tx& tx, const v1::Release& r,
                                const store::DeploymentFacts& facts, DeploymentStep step) {
  switch (step) {
    case DeploymentStep::kNone:
      return absl::OkStatus();
    case DeploymentStep::kEndDegraded:
      return store::EndDeployment(tx, facts.entry_id, kDegradedEnd);
    case DeploymentStep::kMarkHealthy:
      return store::MarkDeploymentHealthy(tx, facts.entry_id);
    case DeploymentStep::kOpenHealthy:
      return store::OpenHealthyDeployment(tx, r);
  }
  return absl::InternalError("unknown deployment step");
}

// Release `num` of `space`, or NOT_FOUND naming both.
absl::StatusOr<v1::Release> ReleaseOf(store::Tx& tx, const v1::Space& space, int64_t num) {
  CUB_ASSIGN_OR_RETURN(auto r, store::FindRelease(tx, space.space_id(), num));
  if (!r)
    return absl::NotFoundError(absl::StrCat("space '", space.slug(), "' has no release ", num));
  return *std::move(r);
}

// The Target a Space's Releases go to, or FAILED_PRECONDITION saying how to set one.
absl::StatusOr<v1::Target> ReleaseTargetOf(store::Tx& tx, const v1::Space& space) {
  if (space.release_target_id().empty()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "space '", space.slug(),
        "' has no release Target: set one with UpdateSpace, giving ReleaseTarget SPACE/TARGET"));
  }
  CUB_ASSIGN_OR_RETURN(auto target, store::FindTargetByID(tx, space.release_target_id()));
  if (!target) return absl::InternalError("release target vanished");
  return *std::move(target);
}

// What a publish sends out, and the selector the Release records for it.
struct PublishSource {
  Bundle bundle;
  std::string selector;
};

// What `req` asks to publish: the bundle its revision selector names (HeadRevisionNum by
// default) or, for a rollback, what Release N bundled, provided it is still what was signed.
absl::StatusOr<PublishSource> ChooseWhatToPublish(store::Tx& tx, const ReleaseEnv& env,
                                                  const Principal& p, const v1::Space& space,
                                                  const v1::PublishReleaseRequest& req) {
  PublishSource out;
  if (req.release() > 0) {
    CUB_ASSIGN_OR_RETURN(auto earlier, ReleaseOf(tx, space, req.release()));
    std::vector<std::string> checks;
    CUB_RETURN_IF_ERROR(VerifyStored(tx, env, earlier, &checks));
    CUB_ASSIGN_OR_RETURN(out.bundle, StoredBundle(tx, earlier));
    out.selector = absl::StrCat("Release:", req.release());
    return out;
  }
  out.selector = req.revision().empty() ? "HeadRevisionNum" : req.revision();
  CUB_ASSIGN_OR_RETURN(out.bundle, BuildBundle(tx, p, space, out.selector));
  return out;
}

// The attestation prerequisites whose votes are sealed onto a Release, and the Stage whose
// ReleasePrerequisites they are (the last such Stage the Space belongs to).
struct ApprovalsToSeal {
  std::string stage;
  std::vector<const workflow::AttestationPrerequisite*> prerequisites;
};

// A Release of a ChangeOrder is held by the ReleasePrerequisites of each Stage the Space is a
// member of: FAILED_PRECONDITION naming every one that does not hold. Returns the attestation
// prerequisites among them, whose votes are sealed onto the Release.
absl::StatusOr<ApprovalsToSeal> CheckReleaseGates(store::Tx& tx, const v1::Space& space,
                                                  const Bundle& bundle) {
  ApprovalsToSeal out;
  if (!bundle.rco || !bundle.rco->workflow) return out;
  const ResolvedChangeOrder& rco = *bundle.rco;
  CUB_ASSIGN_OR_RETURN(auto members, StageMembers(tx, rco));
  for (size_t i = 0; i < members.size(); ++i) {
    const auto& stage = rco.workflow->stages[i];
    bool member = std::any_of(members[i].begin(), members[i].end(),
                              [&](const v1::Space& s) { return s.space_id() == space.space_id(); });
    if (!member || stage.release_prerequisites.empty()) continue;
    std::set<std::string> resolved(rco.co.resolved_space_ids.begin(),
                                   rco.co.resolved_space_ids.end());
    GateContext ctx{&rco, resolved, absl::Now()};
    CUB_ASSIGN_OR_RETURN(auto failures,
                         GateFailures(tx, ctx, stage.release_prerequisites, {space},
                                      absl::StrCat("unable to publish a release of change order '",
                                                   rco.co.slug, "' in stage '", stage.name, "'")));
    if (!failures.empty()) return absl::FailedPreconditionError(absl::StrJoin(failures, "; "));
    for (const auto& name : stage.release_prerequisites) {
      if (const auto* a = workflow::FindAttestationPrerequisite(*rco.workflow, name)) {
        out.prerequisites.push_back(a);
        out.stage = stage.name;
      }
    }
  }
  return out;
}

// A publish into a Space a freeze covers is refused (FAILED_PRECONDITION, carrying when the
// freeze ends) unless forced by an admin of the Space; returns the freezes forced past.
absl::StatusOr<GateReport> CheckPublishFreezes(store::Tx& tx, const Principal& p,
                                               const v1::Space& space,
                                               const v1::PublishReleaseRequest& req) {
  if (req.force() && req.force_reason().empty()) {
    return absl::InvalidArgumentError("Force needs ForceReason, which is recorded");
  }
  CUB_ASSIGN_OR_RETURN(
      GateReport frozen,
      FreezeFindings(tx, {space}, absl::Now(),
                     absl::StrCat("unable to publish a release in space '", space.slug(), "'"),
                     "Space"));
  if (frozen.ok()) return frozen;
  if (!req.force()) {
    absl::Status refusal =
        absl::FailedPreconditionError(absl::StrJoin(frozen.FailureMessages(), "; "));
    SetNextChange(refusal, frozen.NextChange());  // the engine looks again at the window's end
    return refusal;
  }
  CUB_RETURN_IF_ERROR(CheckFreezeOverride(tx, p, frozen));
  return frozen;
}

// A forced pass of a freeze: a FreezeOverridden event in the Space and, for a Release of a
// ChangeOrder, a PromotionOverride on it naming the freezes.
absl::Status RecordFreezeOverride(store::Tx& tx, const Principal& p, const v1::Release& r,
                                  const PublishSource& source, const GateReport& frozen,
                                  const v1::PublishReleaseRequest& req) {
  if (frozen.ok()) return absl::OkStatus();
  store::NewEvent e;
  e.space_id = r.space_id();
  e.space_slug = r.space_slug();
  e.change_order_id = r.change_order_id();
  e.change_order = r.change_order();
  e.user_id = p.user_id;
  e.username = p.username;
  CUB_RETURN_IF_ERROR(store::AppendEvent(tx, FreezeOverriddenEvent(e, frozen, req.force_reason())));
  if (!source.bundle.rco) return absl::OkStatus();
  v1::PromotionOverride o;
  o.set_user_id(p.user_id);
  o.set_user(p.username);
  o.set_at(FormatRfc3339(absl::Now()));
  o.set_reason(req.force_reason());
  for (const auto& m : frozen.FailureMessages()) o.add_failed_gates(m);
  store::ChangeOrderChanges changes;
  changes.append_override_json = ApiJson(o);
  return store::UpdateChangeOrder(tx, source.bundle.rco->co.id, changes);
}

// "SPACE/TARGET", as a Release names its Target.
std::string TargetName(const v1::Target& target) { return ReleaseTargetName(target); }

// The answer of a dry run: what would be bundled, unsigned and unnumbered.
v1::Release UnpublishedRelease(const v1::Space& space, const v1::Target& target,
                               const PublishSource& source, const std::string& description) {
  v1::Release out;
  out.set_space_id(space.space_id());
  out.set_space_slug(space.slug());
  out.set_target(TargetName(target));
  out.set_change_order_id(source.bundle.change_order_id);
  out.set_change_order(source.bundle.change_order);
  out.set_revision_selector(source.selector);
  out.set_description(description);
  out.set_bundle_digest(source.bundle.digest);
  for (const auto& u : source.bundle.units) *out.add_units() = u;
  return out;
}

// Numbers, signs and writes the Release, with its Published event, through the path a Stage-wide
// publish takes (lib/ops/stage_publish.h); returns its ID. The row is written once, complete
// with its signed records, so the number, the time and the approvals are settled first (under
// the Space's release-number lock, which orders its publishes). Nothing is handed to the Target
// here.
absl::StatusOr<std::string> RecordRelease(store::Tx& tx, const ReleaseEnv& env, const Principal& p,
                                          const v1::Space& space, const v1::Target& target,
                                          const PublishSource& source, const ApprovalsToSeal& seal,
                                          const std::string& description) {
  ReleaseToRecord r;
  r.space = space;
  r.target = target;
  r.units = source.bundle.units;
  for (const auto& f : source.bundle.files) r.file_names.push_back(f.name);
  r.digest = source.bundle.digest;
  r.selector = source.selector;
  r.change_order_id = source.bundle.change_order_id;
  r.change_order = source.bundle.change_order;
  r.rco = source.bundle.rco ? &*source.bundle.rco : nullptr;
  r.seal_stage = seal.stage;
  r.seal = seal.prerequisites;
  CUB_ASSIGN_OR_RETURN(auto ids, RecordReleases(tx, env, p, {r}, description));
  return ids.at(0);
}

// The Release with ID `release_id`, as stored now.
absl::StatusOr<v1::Release> ReleaseByID(store::Tx& tx, const std::string& release_id) {
  CUB_ASSIGN_OR_RETURN(auto r, store::FindReleaseByID(tx, release_id));
  if (!r) return absl::InternalError("release vanished");
  return *std::move(r);
}

}  // namespace

absl::StatusOr<std::vector<targets::BundleFile>> VerifiedBundleFiles(store::Tx& tx,
                                                                     const ReleaseEnv& env,
                                                                     const v1::Release& r) {
  std::vector<std::string> checks;
  CUB_RETURN_IF_ERROR(VerifyStored(tx, env, r, &checks));
  CUB_ASSIGN_OR_RETURN(auto bundle, StoredBundle(tx, r));
  return std::move(bundle.files);
}

absl::StatusOr<std::vector<absl::StatusOr<std::vector<targets::BundleFile>>>> VerifiedBundleFilesOf(
    store::Tx& tx, const ReleaseEnv& env, const std::vector<v1::Release>& releases) {
  std::vector<std::string> ids;
  for (const auto& r : releases) ids.push_back(r.release_id());
  CUB_ASSIGN_OR_RETURN(auto stored, store::ReleasesFiles(tx, ids));
  // Each Release is checked on its own (a signature, its statement, its bundle's digest), with
  // the database read done: pure computation, spread over the cores. A whole Stage's delivery
  // checks a thousand Releases here before it may commit any of them.
  std::vector<const store::StoredFiles*> files(releases.size());
  for (size_t i = 0; i < releases.size(); ++i) files[i] = &stored[releases[i].release_id()];
  std::vector<absl::StatusOr<std::vector<targets::BundleFile>>> out(
      releases.size(), absl::UnknownError("not checked"));
  ParallelFor(releases.size(), /*min_per_thread=*/32, /*max_threads=*/0, [&](size_t i) {
    const v1::Release& r = releases[i];
    auto bundle = BundleFrom(r, files[i]->data, files[i]->file_names);
    if (!bundle.ok()) {
      out[i] = bundle.status();
      return;
    }
    std::vector<std::string> checks;
    absl::Status verified = VerifyStored(tx, env, r, &checks, &*bundle);
    if (!verified.ok()) {
      out[i] = verified;
    } else {
      out[i] = std::move(bundle->files);
    }
  });
  return out;
}

namespace {

// The fields of a status report that must name a status of their vocabulary, and the
// Release it is about: named by its number or by its bundle digest. INVALID_ARGUMENT naming
// the field. A request with scan findings may leave the live status out (`has_status`).
absl::Status CheckStatusRequest(const v1::SetReleaseStatusRequest& req, bool has_status) {
  if (!has_status && req.vulnerabilities().empty()) {
    return absl::InvalidArgumentError(
        "nothing to record: give Sync and Health (a live status), Vulnerabilities (scan"
        " findings), or both");
  }
  if (has_status && !domain::ParseSyncStatus(req.sync())) {
    return absl::InvalidArgumentError(
        absl::StrCat("Sync '", req.sync(), "' is not one of ",
                     domain::JoinNames(domain::kAllSyncStatuses, domain::SyncStatusName)));
  }
  if (has_status && !domain::ParseHealthStatus(req.health())) {
    return absl::InvalidArgumentError(
        absl::StrCat("Health '", req.health(), "' is not one of ",
                     domain::JoinNames(domain::kAllHealthStatuses, domain::HealthStatusName)));
  }
  if (!req.operation().empty() && !domain::ParseOperationStatus(req.operation())) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Operation '", req.operation(), "' is not one of ",
        domain::JoinNames(domain::kAllOperationStatuses, domain::OperationStatusName)));
  }
  const int named = (req.release() > 0) + !req.bundle_digest().empty() + !req.commit().empty();
  if (named != 1) {
    return absl::InvalidArgumentError(
        "name the release by exactly one of Release N, BundleDigest or Commit");
  }
  if (!req.commit().empty()) {
    CUB_RETURN_IF_ERROR(targets::ParseDeployedCommit(req.commit()).status());
  }
  return absl::OkStatus();
}

// The ID of the Release of the requested Space that commit `req.commit()` deploys, read from
// the history of the Space's release Target, with the commits cubd recorded for the Space's
// Releases (a Release that changed nothing has no commit of its own). Outside any transaction:
// it may fetch from a remote. The caller's access to the Space is checked first, so that no one
// else makes cubd read a repository.
absl::StatusOr<std::string> ReleaseIDAtCommit(store::ConnectionPool& db, const ReleaseEnv& env,
                                              const Principal& p,
                                              const v1::SetReleaseStatusRequest& req,
                                              Access access) {
  struct Found {
    v1::Space space;
    v1::Target target;
    std::vector<targets::Provider::Recorded> recorded;
  };
  CUB_ASSIGN_OR_RETURN(
      Found found, store::InReadTransaction(db, [&](store::Tx& tx) -> absl::StatusOr<Found> {
        Found f;
        CUB_ASSIGN_OR_RETURN(f.space, ResolveSpace(tx, p, req.space(), access));
        CUB_ASSIGN_OR_RETURN(f.target, ReleaseTargetOf(tx, f.space));
        CUB_ASSIGN_OR_RETURN(auto releases, store::ListReleases(tx, f.space.space_id()));
        for (const v1::Release& r : releases) {
          if (!r.commit().empty()) {
            f.recorded.push_back({r.release_id(), r.release_num(), r.commit()});
          }
        }
        return f;
      }));
  const v1::Space& space = found.space;
  const v1::Target& target = found.target;
  const std::string target_name = absl::StrCat(target.space_slug(), "/", target.slug());
  CUB_ASSIGN_OR_RETURN(auto provider,
                       targets::MakeProvider(target.provider(), ToMap(target.params()),
                                             ProviderEnvFor(env.targets, target)));
  auto id = provider->ReleaseAt(req.commit(), space.slug(), found.recorded);
  if (absl::IsUnimplemented(id.status())) {
    return absl::FailedPreconditionError(absl::StrCat(
        "space '", space.slug(), "' releases to Target ", target_name, " (", target.provider(),
        "), which keeps no history, so Commit cannot name a release there: name it by Release N "
        "or BundleDigest"));
  }
  if (!id.ok()) return id.status();
  if (!*id) {
    return absl::NotFoundError(
        absl::StrCat("commit '", req.commit(), "' carries no release of space '", space.slug(),
                     "': neither it nor its ancestors (up to ", targets::kMaxHistoryWalk,
                     " back) in Target ", target_name, " name one"));
  }
  return **id;
}

// The deployment record of the Release `r` gone Healthy, reported by `reported_by`: an in-toto
// statement naming its bundle digest, signed with the server's key into a DSSE envelope.
absl::StatusOr<std::string> SignDeploymentRecord(const ReleaseEnv& env, const v1::Space& space,
                                                 const v1::Release& r,
                                                 const std::string& reported_by) {
  Json predicate = {{"Space", space.slug()},
                    {"ReleaseNum", r.release_num()},
                    {"BundleDigest", r.bundle_digest()},
                    {"ChangeOrder", r.change_order()},
                    {"HealthyAt", FormatRfc3339(absl::Now())},
                    {"ReportedBy", reported_by}};
  std::string statement =
      sign::Statement({{SubjectName(space, r.release_num()), r.bundle_digest().substr(7)}},
                      kDeploymentPredicate, predicate);
  CUB_ASSIGN_OR_RETURN(sign::SigningKey key, SigningKeyOf(env));
  return sign::SignEnvelope(key, sign::kInTotoPayloadType, statement).ToJson();
}

}  // namespace

absl::StatusOr<v1::PublicKey> GetPublicKey(const ReleaseEnv& env) {
  CUB_ASSIGN_OR_RETURN(sign::SigningKey key, SigningKeyOf(env));
  v1::PublicKey k;
  k.set_key_id(key.KeyId());
  k.set_pem(key.PublicKeyPem());
  return k;
}

absl::StatusOr<v1::Target> CreateTarget(store::ConnectionPool& db, const Principal& p,
                                        const v1::CreateTargetRequest& req) {
  CUB_RETURN_IF_ERROR(ValidateSlug("target", req.slug()));
  std::map<std::string, std::string> params = ToMap(req.params());
  CUB_RETURN_IF_ERROR(targets::ValidateParams(req.provider(), params));
  return store::InTransaction(db, [&](store::Tx& tx) -> absl::StatusOr<v1::Target> {
    v1::Target out;
    CUB_ASSIGN_OR_RETURN(auto space, ResolveSpace(tx, p, req.space(), Access::kAdmin));
    CUB_ASSIGN_OR_RETURN(auto existing, store::FindTarget(tx, space.space_id(), req.slug()));
    if (existing) {
      return absl::AlreadyExistsError(
          absl::StrCat("target '", req.slug(), "' already exists in space '", space.slug(), "'"));
    }
    CUB_ASSIGN_OR_RETURN(
        out, store::InsertTarget(tx, {space.space_id(), req.slug(), req.provider(), params}));
    return out;
  });
}

absl::StatusOr<v1::Target> GetTarget(store::ConnectionPool& db, const Principal& p,
                                     const v1::GetTargetRequest& req) {
  return store::InReadTransaction(db, [&](store::Tx& tx) -> absl::StatusOr<v1::Target> {
    v1::Target out;
    CUB_ASSIGN_OR_RETURN(auto space, ResolveSpace(tx, p, req.space(), Access::kRead));
    CUB_ASSIGN_OR_RETURN(auto t, FindTargetIn(tx, space, req.target()));
    out = std::move(t);
    return out;
  });
}

absl::StatusOr<v1::ListTargetsResponse> ListTargets(store::ConnectionPool& db, const Principal& p,
                                                    const v1::ListTargetsRequest& req) {
  return store::InReadTransaction(
      db, [&](store::Tx& tx) -> absl::StatusOr<v1::ListTargetsResponse> {
        v1::ListTargetsResponse out;
        CUB_ASSIGN_OR_RETURN(PageStart page, ReadPageStart(req, req.limit(), req.page_token(), 1));
        CUB_ASSIGN_OR_RETURN(auto space, ResolveSpace(tx, p, req.space(), Access::kRead));
        CUB_ASSIGN_OR_RETURN(
            auto targets, store::ListTargets(tx, space.space_id(), {page.after, page.limit + 1}));
        out.set_next_page_token(FinishPage(
            page, targets, [](const v1::Target& t) { return std::vector<std::string>{t.slug()}; }));
        for (auto& t : targets) *out.add_targets() = std::move(t);
        return out;
      });
}

absl::StatusOr<v1::Target> UpdateTarget(store::ConnectionPool& db, const Principal& p,
                                        const v1::UpdateTargetRequest& req) {
  return store::InTransaction(db, [&](store::Tx& tx) -> absl::StatusOr<v1::Target> {
    v1::Target out;
    CUB_ASSIGN_OR_RETURN(auto space, ResolveSpace(tx, p, req.space(), Access::kAdmin));
    CUB_ASSIGN_OR_RETURN(auto t, FindTargetIn(tx, space, req.target()));
    std::map<std::string, std::string> merged = ToMap(t.params());
    for (const auto& [k, v] : req.params()) {
      if (v.empty()) {
        merged.erase(k);
      } else {
        merged[k] = v;
      }
    }
    CUB_RETURN_IF_ERROR(targets::ValidateParams(t.provider(), merged));
    CUB_ASSIGN_OR_RETURN(out, store::UpdateTargetParams(tx, t.target_id(), ToMap(req.params())));
    return out;
  });
}

absl::Status DeleteTarget(store::ConnectionPool& db, const Principal& p,
                          const v1::DeleteTargetRequest& req) {
  return store::WithTransaction(db, [&](store::Tx& tx) -> absl::Status {
    CUB_ASSIGN_OR_RETURN(auto space, ResolveSpace(tx, p, req.space(), Access::kAdmin));
    CUB_ASSIGN_OR_RETURN(auto t, FindTargetIn(tx, space, req.target()));
    return store::DeleteTarget(tx, t);
  });
}

absl::StatusOr<v1::Release> PublishRelease(store::ConnectionPool& db, const ReleaseEnv& env,
                                           const Principal& p,
                                           const v1::PublishReleaseRequest& req) {
  return PublishRelease(db, env, p, req, nullptr);
}

namespace {

// The publish's transaction: checks, then records the Release (Pending delivery) with its
// event and wake-ups, and returns it as recorded; for a dry run, what would be bundled.
absl::StatusOr<v1::Release> RecordPublish(store::ConnectionPool& db, const ReleaseEnv& env,
                                          const Principal& p, const v1::PublishReleaseRequest& req,
                                          const PublishCheck& still_wanted) {
  return store::InTransaction(db, [&](store::Tx& tx) -> absl::StatusOr<v1::Release> {
    CUB_ASSIGN_OR_RETURN(auto space, ResolveSpace(tx, p, req.space(), Access::kWrite));
    CUB_ASSIGN_OR_RETURN(auto target, ReleaseTargetOf(tx, space));
    if (still_wanted && !req.dry_run()) {
      CUB_RETURN_IF_ERROR(store::LockNextReleaseNum(tx, space.space_id()).status());
      CUB_RETURN_IF_ERROR(still_wanted(tx, space));
    }
    CUB_ASSIGN_OR_RETURN(PublishSource source, ChooseWhatToPublish(tx, env, p, space, req));
    CUB_ASSIGN_OR_RETURN(GateReport frozen, CheckPublishFreezes(tx, p, space, req));
    CUB_RETURN_IF_ERROR(CheckPublishBlocks(tx, space, source.bundle.units));
    CUB_ASSIGN_OR_RETURN(ApprovalsToSeal seal, CheckReleaseGates(tx, space, source.bundle));
    if (req.dry_run()) return UnpublishedRelease(space, target, source, req.description());
    // Decide and record the Release, Pending delivery, with its event and wake-ups; the Target
    // is handed it after the commit (lib/ops/delivery.h).
    CUB_ASSIGN_OR_RETURN(const std::string release_id,
                         RecordRelease(tx, env, p, space, target, source, seal, req.description()));
    if (!source.bundle.change_order.empty()) {
      CUB_RETURN_IF_ERROR(AdvanceStageOf(tx, source.bundle.change_order));
    }
    CUB_ASSIGN_OR_RETURN(v1::Release recorded, ReleaseByID(tx, release_id));
    CUB_RETURN_IF_ERROR(RecordFreezeOverride(tx, p, recorded, source, frozen, req));
    return recorded;
  });
}

}  // namespace

absl::StatusOr<v1::Release> PublishRelease(store::ConnectionPool& db, const ReleaseEnv& env,
                                           const Principal& p, const v1::PublishReleaseRequest& req,
                                           const PublishCheck& still_wanted) {
  if (req.release() > 0 && !req.revision().empty()) {
    return absl::InvalidArgumentError("give Revision or Release, not both");
  }
  CUB_ASSIGN_OR_RETURN(v1::Release recorded, RecordPublish(db, env, p, req, still_wanted));
  if (req.dry_run()) return recorded;
  // A delivery that fails is no failure of the publish: the Release is recorded and signed,
  // and comes back Failed, retried by the delivery workers.
  CUB_ASSIGN_OR_RETURN(auto delivered, DeliverNow(db, env, DeliveryOptions{},
                                                  {recorded.release_id()}, kPublishDeliveryWait));
  if (delivered.empty()) return absl::InternalError("release vanished");
  return delivered[0];
}

absl::StatusOr<v1::Release> GetRelease(store::ConnectionPool& db, const Principal& p,
                                       const v1::GetReleaseRequest& req) {
  return store::InReadTransaction(db, [&](store::Tx& tx) -> absl::StatusOr<v1::Release> {
    CUB_ASSIGN_OR_RETURN(auto space, ReleaseSpace(tx, p, req.space()));
    CUB_ASSIGN_OR_RETURN(v1::Release r, ReleaseOf(tx, space, req.release()));
    CUB_RETURN_IF_ERROR(AttachVerifications(tx, {&r}));
    CUB_RETURN_IF_ERROR(store::AttachHeldClusters(tx, {&r}));
    return r;
  });
}

absl::StatusOr<v1::ListReleasesResponse> ListReleases(store::ConnectionPool& db, const Principal& p,
                                                      const v1::ListReleasesRequest& req) {
  return store::InReadTransaction(
      db, [&](store::Tx& tx) -> absl::StatusOr<v1::ListReleasesResponse> {
        v1::ListReleasesResponse out;
        CUB_ASSIGN_OR_RETURN(PageStart page, ReadPageStart(req, req.limit(), req.page_token(), 1));
        CUB_ASSIGN_OR_RETURN(auto space, ReleaseSpace(tx, p, req.space()));
        CUB_ASSIGN_OR_RETURN(
            auto releases, store::ListReleases(tx, space.space_id(), {page.after, page.limit + 1}));
        out.set_next_page_token(FinishPage(page, releases, [](const v1::Release& r) {
          return std::vector<std::string>{r.release_id()};
        }));
        for (auto& r : releases) *out.add_releases() = std::move(r);
        std::vector<v1::Release*> all;
        for (v1::Release& r : *out.mutable_releases()) all.push_back(&r);
        CUB_RETURN_IF_ERROR(store::AttachHeldClusters(tx, all));
        return out;
      });
}

absl::StatusOr<v1::Release> SetReleaseStatus(store::ConnectionPool& db, const ReleaseEnv& env,
                                             const Principal& p,
                                             const v1::SetReleaseStatusRequest& req) {
  // Scan findings alone leave the live status as it is, and a status alone the findings.
  const bool has_status = !req.sync().empty() || !req.health().empty() ||
                          !req.operation().empty() || !req.message().empty();
  CUB_RETURN_IF_ERROR(CheckStatusRequest(req, has_status));
  CUB_ASSIGN_OR_RETURN(const domain::Vulnerabilities findings, RequestedFindings(req));
  const Access access = has_status ? Access::kReport : Access::kScan;
  std::string commit_release_id;
  if (!req.commit().empty()) {
    CUB_ASSIGN_OR_RETURN(commit_release_id, ReleaseIDAtCommit(db, env, p, req, access));
  }
  return store::InTransaction(db, [&](store::Tx& tx) -> absl::StatusOr<v1::Release> {
    v1::Release out;
    CUB_ASSIGN_OR_RETURN(auto space, ResolveSpace(tx, p, req.space(), access));
    if (has_status && !findings.empty()) {
      CUB_RETURN_IF_ERROR(ResolveSpace(tx, p, req.space(), Access::kScan).status());
    }
    std::optional<v1::Release> r;
    if (!commit_release_id.empty()) {
      // A trailer is text anyone with push access could write: a non-UUID names nothing.
      if (workflow::IsUuid(commit_release_id)) {
        CUB_ASSIGN_OR_RETURN(r, store::FindReleaseByID(tx, commit_release_id));
      }
      if (!r || r->space_id() != space.space_id()) {
        return absl::NotFoundError(absl::StrCat("commit '", req.commit(), "' names release ",
                                                commit_release_id, " of space '", space.slug(),
                                                "', of which cubd has no record"));
      }
    } else if (req.release() > 0) {
      CUB_ASSIGN_OR_RETURN(r, store::FindRelease(tx, space.space_id(), req.release()));
    } else {
      CUB_ASSIGN_OR_RETURN(r,
                           store::FindReleaseByDigest(tx, space.space_id(), req.bundle_digest()));
    }
    if (!r) {
      return absl::NotFoundError(absl::StrCat("space '", space.slug(), "' has no release ",
                                              req.release() > 0
                                                  ? std::to_string(req.release())
                                                  : "with digest " + req.bundle_digest()));
    }
    if (!findings.empty()) CUB_RETURN_IF_ERROR(RecordScan(tx, p, space, *r, findings));
    if (!has_status) {
      CUB_ASSIGN_OR_RETURN(auto scanned, store::FindReleaseByID(tx, r->release_id()));
      if (!scanned) return absl::InternalError("release vanished");
      out = *std::move(scanned);
      return out;
    }
    const store::StatusReport report{req.sync(), req.health(), req.operation(), req.message()};
    CUB_RETURN_IF_ERROR(store::SetReleaseStatus(tx, r->release_id(), report));
    CUB_ASSIGN_OR_RETURN(auto facts, store::ReadDeploymentFacts(tx, *r));
    const DeploymentStep step = DeploymentStepFor(report, facts);
    CUB_RETURN_IF_ERROR(TakeDeploymentStep(tx, *r, facts, step));
    if (SignsDeploymentRecord(step)) {
      CUB_ASSIGN_OR_RETURN(auto record, SignDeploymentRecord(env, space, *r, p.username));
      CUB_RETURN_IF_ERROR(store::SetDeploymentRecord(tx, r->release_id(), record));
    }
    if (!r->change_order().empty()) CUB_RETURN_IF_ERROR(AdvanceStageOf(tx, r->change_order()));
    CUB_ASSIGN_OR_RETURN(auto done, store::FindReleaseByID(tx, r->release_id()));
    if (!done) return absl::InternalError("release vanished");
    // A reporter repeats itself; only a change of what it reports is an event.
    const v1::LiveStatus& before = r->live_status();
    const v1::LiveStatus& now = done->live_status();
    if (before.sync() != now.sync() || before.health() != now.health() ||
        before.operation() != now.operation()) {
      CUB_RETURN_IF_ERROR(RecordReleaseEvent(
          tx, p, *done, "StatusReported",
          absl::StrCat("Release ", done->release_num(), " of space '", space.slug(),
                       "': ", now.sync(), ", ", now.health(), ", ", now.operation())));
    }
    out = *std::move(done);
    return out;
  });
}

absl::StatusOr<v1::ReleaseHistoryResponse> ReleaseHistory(store::ConnectionPool& db,
                                                          const Principal& p,
                                                          const v1::ReleaseHistoryRequest& req) {
  return store::InReadTransaction(
      db, [&](store::Tx& tx) -> absl::StatusOr<v1::ReleaseHistoryResponse> {
        v1::ReleaseHistoryResponse out;
        CUB_ASSIGN_OR_RETURN(auto space, ReleaseSpace(tx, p, req.space()));
        CUB_ASSIGN_OR_RETURN(auto history, store::DeploymentHistory(tx, space.space_id()));
        for (auto& d : history) {
          *out.add_deployments() = std::move(d);
        }
        return out;
      });
}

absl::StatusOr<v1::VerifyReleaseResponse> VerifyRelease(store::ConnectionPool& db,
                                                        const ReleaseEnv& env, const Principal& p,
                                                        const v1::VerifyReleaseRequest& req) {
  return store::InReadTransaction(
      db, [&](store::Tx& tx) -> absl::StatusOr<v1::VerifyReleaseResponse> {
        v1::VerifyReleaseResponse out;
        CUB_ASSIGN_OR_RETURN(auto space, ReleaseSpace(tx, p, req.space()));
        CUB_ASSIGN_OR_RETURN(auto r, ReleaseOf(tx, space, req.release()));
        CUB_ASSIGN_OR_RETURN(auto keys, KeysOf(env));
        out.set_key_id(ProvenanceKeyId(r));
        out.set_bundle_digest(r.bundle_digest());
        std::vector<std::string> checks;
        absl::Status verified = VerifyStored(tx, env, r, &checks);
        if (!verified.ok()) checks.push_back(std::string(verified.message()));
        absl::Status records =
            VerifyPromotionRecordsOf(tx, *keys, r.change_order_id(), r.space_id(), &checks);
        if (verified.ok()) verified = records;
        out.set_verified(verified.ok());
        for (auto& c : checks) out.add_checks(std::move(c));
        return out;
      });
}

}  // namespace cub::ops
