#include "lib/ops/delivery.h"

#include <algorithm>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "lib/ops/input.h"
#include "lib/ops/release_bundle.h"
#include "lib/ops/release_verification.h"
#include "lib/ops/target_env.h"
#include "lib/store/deliveries.h"
#include "lib/store/errors.h"
#include "lib/store/events.h"
#include "lib/store/held_clusters.h"
#include "lib/store/release_verifications.h"
#include "lib/store/releases.h"
#include "lib/util/json.h"
#include "lib/util/status_macros.h"

namespace cub::ops {
namespace {

static_assert(std::string_view(kDeliveryChannel) == std::string_view(store::kDeliveryChannel));

inline constexpr char kDeliveryFailed[] = "DeliveryFailed";

// A Release read for delivery: what the provider is handed, or why it cannot be.
struct Item {
  v1::Release release;
  targets::Delivery delivery;
  std::string error;  // set when its stored bundle fails its checks
};

struct Loaded {
  std::optional<v1::Target> target;
  std::vector<Item> items;
};

int64_t UnixSeconds(const std::string& rfc3339) {
  absl::Time t;
  std::string err;
  if (!absl::ParseTime(absl::RFC3339_full, rfc3339, &t, &err)) return 0;
  return absl::ToUnixSeconds(t);
}

targets::Delivery DeliveryOf(const store::UndeliveredRelease& u,
                             std::vector<targets::BundleFile> files) {
  const v1::Release& r = u.release;
  targets::Delivery d;
  d.release_id = r.release_id();
  d.space = r.space_slug();
  d.release_num = r.release_num();
  d.change_order = r.change_order();
  d.bundle_digest = r.bundle_digest();
  d.description = r.description();
  d.author = r.published_by();
  d.author_email = u.author_email;
  d.published_at = UnixSeconds(r.published_at());
  d.files = std::move(files);
  return d;
}

// What an OCI Target pushes beside each artifact and verifies before deploying it (one query
// for the batch); nothing for other providers.
absl::StatusOr<std::map<std::string, store::DeliveryEvidenceRow>> EvidenceFor(
    store::Tx& tx, const std::optional<v1::Target>& target,
    const std::vector<v1::Release>& releases) {
  if (!target || target->provider() != "OCI")
    return std::map<std::string, store::DeliveryEvidenceRow>{};
  std::vector<std::string> ids;
  for (const auto& r : releases) ids.push_back(r.release_id());
  return store::DeliveryEvidence(tx, ids);
}

// Approvals are required of an artifact when approvals were sealed onto its Release: a release
// gate required them when it was published, and the registry must still show them.
void AddEvidence(const v1::Release& r,
                 const std::map<std::string, store::DeliveryEvidenceRow>& evidence,
                 targets::Delivery* d) {
  auto it = evidence.find(r.release_id());
  if (it == evidence.end()) return;
  d->provenance = r.provenance();
  d->sealed_approvals = r.sealed_approvals();
  d->approvals_required = !r.sealed_approvals().empty();
  d->promotion_records = it->second.promotion_records;
  d->rollback_of.release_id = it->second.rollback_release_id;
  d->rollback_of.release_num = it->second.rollback_release_num;
  d->rollback_of.change_order = it->second.rollback_change_order;
  d->rollback_of.approvals_required = it->second.rollback_sealed;
}

// The Target's Releases waiting for it (when one is due), each checked against its signed
// provenance.
absl::StatusOr<Loaded> Load(store::ConnectionPool& db, const ReleaseEnv& env,
                            const DeliveryOptions& opts, const std::string& target_id) {
  return store::InReadTransaction(db, [&](store::Tx& tx) -> absl::StatusOr<Loaded> {
    Loaded out;
    CUB_ASSIGN_OR_RETURN(auto waiting,
                         store::UndeliveredReleases(tx, target_id, opts.batch_limit, true));
    if (waiting.empty()) return out;
    CUB_ASSIGN_OR_RETURN(out.target, store::FindTargetByID(tx, target_id));
    // Every waiting Release's bundle in two queries, each checked against its provenance.
    std::vector<v1::Release> releases;
    for (const auto& u : waiting) releases.push_back(u.release);
    CUB_ASSIGN_OR_RETURN(auto verified, VerifiedBundleFilesOf(tx, env, releases));
    CUB_ASSIGN_OR_RETURN(auto evidence, EvidenceFor(tx, *out.target, releases));
    for (size_t k = 0; k < waiting.size(); ++k) {
      auto& u = waiting[k];
      Item item;
      auto& files = verified[k];
      if (!files.ok()) {
        if (store::FailedInDatabase(files.status())) return files.status();
        item.error = std::string(files.status().message());
      } else {
        item.delivery = DeliveryOf(u, *std::move(files));
        AddEvidence(u.release, evidence, &item.delivery);
      }
      item.release = std::move(u.release);
      out.items.push_back(std::move(item));
    }
    return out;
  });
}

// Records the attempt on `items` failed with `error`, and a DeliveryFailed event in each of
// their Spaces naming the newest of them there.
absl::Status RecordFailure(store::ConnectionPool& db, const DeliveryOptions& opts,
                           const std::string& target_name, const std::vector<const Item*>& items,
                           const std::string& error) {
  if (items.empty()) return absl::OkStatus();
  return store::WithTransaction(db, [&](store::Tx& tx) -> absl::Status {
    std::vector<std::string> ids;
    for (const Item* i : items) ids.push_back(i->release.release_id());
    CUB_ASSIGN_OR_RETURN(auto failed, store::RecordDeliveryFailed(
                                          tx, ids, error, opts.first_backoff, opts.max_backoff));
    std::map<std::string, const store::FailedRow*> by_id;
    for (const auto& f : failed) by_id[f.release_id] = &f;
    // The newest Release of each Space among them (items are oldest first).
    std::map<std::string, std::pair<const Item*, const store::FailedRow*>> newest;
    for (const Item* i : items) {
      auto it = by_id.find(i->release.release_id());
      if (it != by_id.end()) newest[i->release.space_id()] = {i, it->second};
    }
    for (const auto& [space_id, pair] : newest) {
      const v1::Release& r = pair.first->release;
      const store::FailedRow& f = *pair.second;
      store::NewEvent e;
      e.kind = kDeliveryFailed;
      e.space_id = r.space_id();
      e.space_slug = r.space_slug();
      e.change_order_id = r.change_order_id();
      e.change_order = r.change_order();
      e.message = absl::StrCat("delivery of Release ", r.release_num(), " of space '",
                               r.space_slug(), "' to target '", target_name, "' failed (attempt ",
                               f.attempts, "; cubd tries again at ", f.next_at, "): ", error);
      e.details_json = absl::StrCat(R"({"ReleaseNum":)", r.release_num(), R"(,"Attempt":)",
                                    f.attempts, R"(,"NextAttemptAt":)", JsonQuote(f.next_at),
                                    R"(,"Target":)", JsonQuote(target_name), "}");
      CUB_RETURN_IF_ERROR(store::AppendEvent(tx, e));
    }
    return absl::OkStatus();
  });
}

// Hands `run` (Releases of one publisher, in order) to the provider as one batch. ABORTED (the
// branch moved meanwhile) is tried again at once, a few times: the provider says it is safe.
absl::StatusOr<targets::DeliveryResult> DeliverRun(targets::Provider& provider,
                                                   const std::vector<const Item*>& run) {
  std::vector<targets::Delivery> batch;
  for (const Item* i : run) batch.push_back(i->delivery);
  absl::StatusOr<targets::DeliveryResult> r;
  for (int attempt = 0; attempt < 3; ++attempt) {
    r = provider.Deliver(batch);
    if (!absl::IsAborted(r.status())) break;
  }
  if (r.ok() && r->releases.size() != run.size()) {
    return absl::InternalError(absl::StrCat("the provider reported ", r->releases.size(),
                                            " releases of a batch of ", run.size()));
  }
  return r;
}

// Splits the deliverable items into runs of one publisher each, keeping their order: one Git
// commit has one author.
std::vector<std::vector<const Item*>> RunsOf(const std::vector<const Item*>& items) {
  std::vector<std::vector<const Item*>> runs;
  for (const Item* i : items) {
    if (runs.empty() || runs.back().front()->delivery.author != i->delivery.author ||
        runs.back().front()->delivery.author_email != i->delivery.author_email) {
      runs.emplace_back();
    }
    runs.back().push_back(i);
  }
  return runs;
}

}  // namespace

absl::StatusOr<DeliveryPass> DeliverTarget(store::ConnectionPool& db, const ReleaseEnv& env,
                                           const DeliveryOptions& opts,
                                           const std::string& target_id,
                                           absl::Duration claim_wait) {
  DeliveryPass pass;
  CUB_ASSIGN_OR_RETURN(auto claim, store::TargetClaim::Claim(db.url(), target_id, claim_wait));
  if (!claim) return pass;
  pass.claimed = true;
  CUB_ASSIGN_OR_RETURN(Loaded loaded, Load(db, env, opts, target_id));
  if (loaded.items.empty()) return pass;
  const std::string target_name =
      loaded.target ? absl::StrCat(loaded.target->space_slug(), "/", loaded.target->slug())
                    : loaded.items[0].release.target();

  // Releases whose stored bundle fails its checks are not delivered; the others go on.
  std::vector<const Item*> bad, good;
  for (const auto& i : loaded.items) (i.error.empty() ? good : bad).push_back(&i);
  for (const Item* i : bad) {
    CUB_RETURN_IF_ERROR(RecordFailure(db, opts, target_name, {i}, i->error));
    ++pass.failed;
    if (pass.error.empty()) pass.error = i->error;
  }
  if (good.empty()) return pass;

  auto fail_all = [&](const std::vector<const Item*>& items, const std::string& error) {
    pass.failed += static_cast<int>(items.size());
    if (pass.error.empty()) pass.error = error;
    return RecordFailure(db, opts, target_name, items, error);
  };
  if (!loaded.target) {
    CUB_RETURN_IF_ERROR(
        fail_all(good, absl::StrCat("target '", target_name, "' no longer exists")));
    return pass;
  }
  auto provider = targets::MakeProvider(loaded.target->provider(), ToMap(loaded.target->params()),
                                        ProviderEnvFor(env.targets, *loaded.target));
  if (!provider.ok()) {
    CUB_RETURN_IF_ERROR(fail_all(good, std::string(provider.status().message())));
    return pass;
  }
  const auto runs = RunsOf(good);
  for (size_t k = 0; k < runs.size(); ++k) {
    const auto& run = runs[k];
    auto result = DeliverRun(**provider, run);
    if (!result.ok()) {
      // Later runs wait too, so that a Space's Releases reach the Target in their order.
      std::vector<const Item*> rest;
      for (size_t j = k; j < runs.size(); ++j)
        rest.insert(rest.end(), runs[j].begin(), runs[j].end());
      CUB_RETURN_IF_ERROR(fail_all(rest, std::string(result.status().message())));
      return pass;
    }
    std::vector<store::DeliveredRow> rows;
    std::vector<store::NewVerification> checks;
    std::vector<std::pair<const Item*, std::string>> refused;  // not deployed: why
    std::vector<store::HeldClusterRow> held;
    int found = 0;
    for (size_t j = 0; j < result->releases.size(); ++j) {
      const auto& d = result->releases[j];
      if (!d.verification_reason.empty()) {
        checks.push_back({d.release_id, d.artifact_digest, d.verification_reason,
                          d.verification_message, d.verification_key_id});
        if (d.verification_reason != "Verified") {
          refused.emplace_back(run[j],
                               absl::StrCat(d.verification_reason, ": ", d.verification_message));
          continue;
        }
      }
      rows.push_back({d.release_id, d.location, d.commit, d.artifact_digest, d.artifact_ref});
      if (d.found_earlier) ++found;
      for (const auto& [cluster, why] : d.held_clusters) {
        held.push_back({d.release_id, cluster, "OptInRequired", why});
      }
    }
    CUB_ASSIGN_OR_RETURN(int recorded,
                         store::InTransaction(db, [&](store::Tx& tx) -> absl::StatusOr<int> {
                           CUB_RETURN_IF_ERROR(store::RecordVerifications(tx, checks));
                           CUB_ASSIGN_OR_RETURN(int n, store::RecordDelivered(tx, rows));
                           CUB_RETURN_IF_ERROR(store::RecordHeldClusters(tx, held));
                           return n;
                         }));
    // An artifact whose evidence does not hold in the registry is not deployed: Failed with
    // the reason, tried again later (the evidence may be repaired, a key trusted again).
    for (const auto& [item, error] : refused) {
      CUB_RETURN_IF_ERROR(fail_all({item}, error));
    }
    // Counted as this pass recorded them; any recorded meanwhile by another cubd are neither.
    const int now_found = std::min(found, recorded);
    pass.found += now_found;
    pass.delivered += recorded - now_found;
  }
  return pass;
}

absl::StatusOr<std::vector<v1::Release>> DeliverNow(store::ConnectionPool& db,
                                                    const ReleaseEnv& env,
                                                    const DeliveryOptions& opts,
                                                    const std::vector<std::string>& release_ids,
                                                    absl::Duration wait, store::ReleaseRead read) {
  const absl::Time deadline = absl::Now() + wait;
  int idle_passes = 0;
  while (true) {
    CUB_ASSIGN_OR_RETURN(auto states, store::InReadTransaction(db, [&](store::Tx& tx) {
                           return store::DeliveryStates(tx, release_ids);
                         }));
    std::vector<std::string> targets;
    std::set<std::string> seen;
    for (const auto& s : states) {
      if (s.state == "Pending" && seen.insert(s.target_id).second) targets.push_back(s.target_id);
    }
    if (targets.empty()) break;
    bool did_nothing = true;
    for (const auto& t : targets) {
      // Another session delivering to the Target (a worker woken by the publish's commit,
      // another cubd) is waited for on the claim itself, so its end is seen at once.
      const absl::Duration left = deadline - absl::Now();
      if (left <= absl::ZeroDuration()) break;
      CUB_ASSIGN_OR_RETURN(DeliveryPass pass, DeliverTarget(db, env, opts, t, left));
      if (pass.claimed && pass.delivered + pass.found + pass.failed > 0) did_nothing = false;
    }
    if (absl::Now() >= deadline) break;
    // Claimed, yet nothing to do: the holder before delivered them (the states read next say
    // so). Should they still read Pending, pause a little rather than spin.
    if (did_nothing && ++idle_passes > 1) {
      absl::SleepFor(
          std::min(absl::Milliseconds(std::min(10 * idle_passes, 200)), deadline - absl::Now()));
    }
  }
  return store::InReadTransaction(
      db, [&](store::Tx& tx) -> absl::StatusOr<std::vector<v1::Release>> {
        CUB_ASSIGN_OR_RETURN(auto releases, store::FindReleasesByID(tx, release_ids, read));
        CUB_RETURN_IF_ERROR(AttachVerificationsTo(tx, releases));
        return releases;
      });
}

absl::StatusOr<DueTargets> FindDueTargets(store::ConnectionPool& db) {
  CUB_ASSIGN_OR_RETURN(
      auto rows, store::InReadTransaction(db, [](store::Tx& tx) { return store::DueTargets(tx); }));
  DueTargets out;
  out.target_ids = std::move(rows.target_ids);
  out.next_due_in_seconds = rows.next_due_in_seconds;
  return out;
}

}  // namespace cub::ops
