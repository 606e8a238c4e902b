#include "lib/store/deliveries.h"

#include <map>
#include <mutex>
#include <utility>

#include "absl/strings/str_cat.h"
#include "lib/store/pq.h"
#include "lib/store/releases.h"
#include "lib/store/sql.h"
#include "lib/util/status_macros.h"

namespace cub::store {
namespace {

// Advisory locks of delivery live in their own key space (the first key); the second is a
// hash of the Target's ID. Two Targets sharing a hash are only delivered to one after the
// other, which is harmless.
constexpr int kDeliveryLockSpace = 0x63756264;  // "cubd"

// The idle sessions claims are taken on, per database URL. A claim holds its session for as
// long as a delivery takes (a Git push may take seconds), so these are not the request pool's.
class ClaimSessions {
 public:
  static ClaimSessions& Of(const std::string& url) {
    static std::mutex mu;
    static auto* all = new std::map<std::string, std::unique_ptr<ClaimSessions>>();
    std::lock_guard<std::mutex> l(mu);
    auto& s = (*all)[url];
    if (!s) s.reset(new ClaimSessions(url));
    return *s;
  }

  std::unique_ptr<pqxx::connection> Take() {
    {
      std::lock_guard<std::mutex> l(mu_);
      if (!idle_.empty()) {
        auto c = std::move(idle_.back());
        idle_.pop_back();
        return c;
      }
    }
    return std::make_unique<pqxx::connection>(url_);
  }

  void Give(std::unique_ptr<pqxx::connection> c) {
    if (!c || !c->is_open()) return;
    std::lock_guard<std::mutex> l(mu_);
    if (idle_.size() < kMaxIdle) idle_.push_back(std::move(c));
  }

 private:
  static constexpr size_t kMaxIdle = 8;
  explicit ClaimSessions(std::string url) : url_(std::move(url)) {}
  const std::string url_;
  std::mutex mu_;
  std::vector<std::unique_ptr<pqxx::connection>> idle_;
};

}  // namespace

// The lock is transaction-scoped and the transaction stays open while the claim lives: ending
// it, whether by the destructor's rollback or by the session's death, releases the lock, and a
// session back among the idle ones holds nothing.
struct TargetClaim::Impl {
  std::string url;
  std::unique_ptr<pqxx::connection> conn;
  std::unique_ptr<pqxx::work> work;
};

TargetClaim::TargetClaim(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

TargetClaim::~TargetClaim() {
  try {
    if (impl_->work) impl_->work->abort();
    impl_->work.reset();
  } catch (const std::exception&) {
    impl_->work.reset();
    impl_->conn.reset();  // broken: not reused
  }
  ClaimSessions::Of(impl_->url).Give(std::move(impl_->conn));
}

absl::StatusOr<std::unique_ptr<TargetClaim>> TargetClaim::TryClaim(const std::string& url,
                                                                   const std::string& target_id) {
  return Claim(url, target_id, absl::ZeroDuration());
}

absl::StatusOr<std::unique_ptr<TargetClaim>> TargetClaim::Claim(const std::string& url,
                                                                const std::string& target_id,
                                                                absl::Duration wait) {
  auto impl = std::make_unique<Impl>();
  impl->url = url;
  absl::Status s = Guard([&]() -> absl::Status {
    impl->conn = ClaimSessions::Of(url).Take();
    impl->work = std::make_unique<pqxx::work>(*impl->conn);
    return absl::OkStatus();
  });
  if (!s.ok()) {
    impl->work.reset();
    impl->conn.reset();
    return s;
  }
  auto claim = std::unique_ptr<TargetClaim>(new TargetClaim(std::move(impl)));
  const int64_t wait_ms = absl::ToInt64Milliseconds(wait);
  if (wait_ms <= 0) {
    CUB_ASSIGN_OR_RETURN(bool locked, Guard([&]() -> absl::StatusOr<bool> {
                           return claim->impl_->work
                               ->exec_params1(
                                   "SELECT pg_try_advisory_xact_lock($1, hashtext($2)) AS locked",
                                   kDeliveryLockSpace, target_id)["locked"]
                               .as<bool>();
                         }));
    if (!locked) return std::unique_ptr<TargetClaim>();
    return claim;
  }
  // The wait is the lock's own (lock_timeout, this transaction only): the session sleeps in
  // the server until the holder's transaction ends.
  CUB_ASSIGN_OR_RETURN(bool locked, Guard([&]() -> absl::StatusOr<bool> {
                         try {
                           pqxx::work& w = *claim->impl_->work;
                           w.exec0(absl::StrCat("SET LOCAL lock_timeout = ", wait_ms));
                           w.exec_params("SELECT pg_advisory_xact_lock($1, hashtext($2))",
                                         kDeliveryLockSpace, target_id);
                           return true;
                         } catch (const pqxx::sql_error& e) {
                           if (e.sqlstate() == "55P03") return false;  // lock_not_available
                           throw;
                         }
                       }));
  if (!locked) return std::unique_ptr<TargetClaim>();
  return claim;
}

bool TargetClaim::Alive() {
  absl::Status s = Guard([&]() -> absl::Status {
    impl_->work->exec("SELECT 1");
    return absl::OkStatus();
  });
  return s.ok();
}

absl::Status NotifyDelivery(Tx& tx) {
  return Guard([&]() -> absl::Status {
    Pq(tx).exec0(absl::StrCat("NOTIFY ", kDeliveryChannel));
    return absl::OkStatus();
  });
}

absl::StatusOr<std::vector<UndeliveredRelease>> UndeliveredReleases(Tx& tx,
                                                                    const std::string& target_id,
                                                                    int limit, bool due_only) {
  return Guard([&]() -> absl::StatusOr<std::vector<UndeliveredRelease>> {
    std::vector<UndeliveredRelease> out;
    if (due_only) {
      pqxx::row due = Pq(tx).exec_params1(
          "SELECT EXISTS (SELECT 1 FROM releases WHERE target_id = $1::uuid"
          " AND (delivery_state = 'Pending' OR (delivery_state = 'Failed'"
          " AND next_delivery_at <= now()))) AS due",
          target_id);
      if (!due["due"].as<bool>()) return out;
    }
    pqxx::result rows = Pq(tx).exec_params(
        "SELECT r.id::text AS id, coalesce(ui.email, '') AS email FROM releases r"
        " LEFT JOIN user_identities ui ON ui.user_id = r.published_by"
        " WHERE r.target_id = $1::uuid AND r.delivery_state <> 'Delivered'"
        " ORDER BY r.published_at, r.release_num, r.id LIMIT $2::int",
        target_id, limit);
    std::vector<std::string> ids;
    std::map<std::string, std::string> emails;
    for (const auto& row : rows) {
      ids.push_back(row["id"].as<std::string>());
      emails[ids.back()] = row["email"].as<std::string>();
    }
    if (ids.empty()) return out;
    CUB_ASSIGN_OR_RETURN(auto releases, FindReleasesByID(tx, ids));
    for (auto& r : releases) {
      std::string email = emails[r.release_id()];
      out.push_back({std::move(r), std::move(email)});
    }
    return out;
  });
}

absl::StatusOr<int> RecordDelivered(Tx& tx, const std::vector<DeliveredRow>& rows) {
  return Guard([&]() -> absl::StatusOr<int> {
    if (rows.empty()) return 0;
    std::vector<std::string> ids, locations, commits, digests, refs;
    for (const auto& r : rows) {
      ids.push_back(r.release_id);
      locations.push_back(r.location);
      commits.push_back(r.commit);
      digests.push_back(r.artifact_digest);
      refs.push_back(r.artifact_ref);
    }
    // The artifacts go in with the state, in one statement: of the Releases this call records.
    pqxx::result r = Pq(tx).exec_params(
        "WITH d AS (SELECT id FROM cub_record_delivered($1::uuid[], $2::text[], $3::text[]) id),"
        " a AS (INSERT INTO release_artifacts (release_id, digest, ref)"
        "       SELECT v.id, v.digest, v.ref"
        "         FROM unnest($1::uuid[], $4::text[], $5::text[]) AS v(id, digest, ref)"
        "        WHERE v.digest <> '' AND v.id IN (SELECT id FROM d))"
        " SELECT id FROM d",
        TextArrayLiteral(ids), TextArrayLiteral(locations), TextArrayLiteral(commits),
        TextArrayLiteral(digests), TextArrayLiteral(refs));
    return static_cast<int>(r.size());
  });
}

absl::StatusOr<std::vector<FailedRow>> RecordDeliveryFailed(Tx& tx,
                                                            const std::vector<std::string>& ids,
                                                            const std::string& error,
                                                            absl::Duration first_backoff,
                                                            absl::Duration max_backoff) {
  return Guard([&]() -> absl::StatusOr<std::vector<FailedRow>> {
    std::vector<FailedRow> out;
    if (ids.empty()) return out;
    pqxx::result r = Pq(tx).exec_params(
        absl::StrCat("SELECT f.id::text AS id, f.attempts, ", Rfc3339("f.next_at"),
                     " AS next_at FROM cub_record_delivery_failed($1::uuid[], $2, $3::float8,"
                     " $4::float8) f"),
        TextArrayLiteral(ids), error, absl::ToDoubleSeconds(first_backoff),
        absl::ToDoubleSeconds(max_backoff));
    for (const auto& row : r) {
      out.push_back({row["id"].as<std::string>(), row["attempts"].as<int>(),
                     row["next_at"].as<std::string>()});
    }
    return out;
  });
}

absl::StatusOr<std::vector<DeliveryStateRow>> DeliveryStates(Tx& tx,
                                                             const std::vector<std::string>& ids) {
  return Guard([&]() -> absl::StatusOr<std::vector<DeliveryStateRow>> {
    pqxx::result r = Pq(tx).exec_params(
        "SELECT r.id::text AS id, r.target_id::text AS target_id, r.delivery_state"
        " FROM unnest($1::uuid[]) WITH ORDINALITY AS v(id, i) JOIN releases r ON r.id = v.id"
        " ORDER BY v.i",
        TextArrayLiteral(ids));
    std::vector<DeliveryStateRow> out;
    for (const auto& row : r) {
      out.push_back({row["id"].as<std::string>(), row["target_id"].as<std::string>(),
                     row["delivery_state"].as<std::string>()});
    }
    return out;
  });
}

absl::StatusOr<DueTargetRows> DueTargets(Tx& tx) {
  return Guard([&]() -> absl::StatusOr<DueTargetRows> {
    DueTargetRows out;
    pqxx::result r = Pq(tx).exec(
        "SELECT target_id::text AS target_id, min(published_at) AS oldest FROM releases"
        " WHERE delivery_state = 'Pending'"
        " OR (delivery_state = 'Failed' AND next_delivery_at <= now())"
        " GROUP BY target_id ORDER BY oldest");
    for (const auto& row : r) out.target_ids.push_back(row["target_id"].as<std::string>());
    pqxx::row next = Pq(tx).exec1(
        "SELECT extract(epoch FROM min(next_delivery_at) - now())::float8 AS s FROM releases"
        " WHERE delivery_state = 'Failed' AND next_delivery_at > now()");
    if (!next["s"].is_null()) out.next_due_in_seconds = next["s"].as<double>();
    return out;
  });
}

}  // namespace cub::store
