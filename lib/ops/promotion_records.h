// Signed promotion records: every promotion into a Space (typed, queued, automatic, forced)
// leaves an in-toto Statement v1, of predicate type kPromotionPredicate, signed with the
// server's key in a DSSE envelope (lib/sign), in the append-only table promotion_records.
//
// The statement's subjects are the Space ("space/<slug>", its digest the SHA-256 of the lines
// "<unit> <revision> <data hash>\n" of its Units in slug order) and each of those Units at the
// revision the promotion left ("<space>/<unit>@<revision>", the digest of its DataHash). The
// predicate names the ChangeOrder, the Stage, the Space, who promoted (and who queued it,
// whether the engine did), when, whether it was forced (the reason and the gates overridden)
// and the findings of the promotion's gate evaluation with the evidence each was judged on
// (docs/concepts.md, "Promotion records", lists the members).
//
// The records of one promotion are signed one by one and written kRecordBatch to a statement.
#ifndef CUB_LIB_OPS_PROMOTION_RECORDS_H_
#define CUB_LIB_OPS_PROMOTION_RECORDS_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "cub/v1/changeorder.pb.h"
#include "lib/ops/change_orders.h"
#include "lib/ops/gate_report.h"
#include "lib/ops/landed_heads.h"
#include "lib/ops/principal.h"
#include "lib/ops/promote.h"
#include "lib/sign/key_ring.h"
#include "lib/sign/signing_key.h"
#include "lib/store/pool.h"
#include "lib/store/transaction.h"
#include "lib/util/json.h"

namespace cub::ops {

// Up to this many gate findings, a record carries them all; beyond, its own Space's in full and
// a count per gate of the others (GateSummary).
inline constexpr size_t kFullEvidenceFindings = 64;

// Records signed and inserted together (one statement a batch).
inline constexpr size_t kRecordBatch = 500;

inline constexpr char kPromotionPredicate[] = "https://cub.dev/promotion/v1";

// What a promotion's gates were judged on: the findings of its gate evaluation (those that
// hold with their evidence_json when the evaluation was asked for evidence; those forced past
// with their refusal) and the names of the gates evaluated (every Stage's up to the target).
struct PromotionEvidence {
  std::vector<GateFinding> findings;
  std::vector<std::string> gates;
};

// One Unit of a promoted Space, at the revision the promotion left it.
struct RecordedUnit {
  std::string unit_id;
  std::string slug;
  std::string action;  // as the PromotedUnit reports it (Upgraded, Added, ...)
  int64_t revision_num = 0;
  std::string data_hash;  // "sha256:<hex>"
};

// Everything one record states.
struct PromotionRecordFacts {
  std::string change_order_id;
  std::string change_order;  // "BASE/NAME"
  std::string stage;
  std::string space_id;
  std::string space;  // slug
  std::string promoted_by;
  std::string queued_by;
  bool by_engine = false;
  absl::Time at;
  bool forced = false;
  std::string force_reason;
  std::vector<std::string> overridden_gates;
  std::vector<RecordedUnit> units;              // in slug order
  const PromotionEvidence* evidence = nullptr;  // may be null: no gates
};

// The statement (compact JSON, the DSSE payload) stating `f`. The same facts give the same
// bytes.
std::string PromotionStatement(const PromotionRecordFacts& f);

// The JSON form of a finding in the predicate's Gates: Stage, Gate, Kind, Space, SpaceID,
// Held, then Message, Needs and Earliest when set, then Evidence (evidence_json parsed; kept as
// a string if it is not JSON).
Json FindingJson(const GateFinding& g);

// Signs and stores the record of each Space `out` reports Promoted (a dry run, a queued
// promotion, Spaces that had the change already or failed record nothing). `req` says whether
// it was forced and why; `by` who asks and carries the key ring (by.keys), whose current key
// signs. `landed` holds the heads the promotion wrote (it must not name a Unit written since,
// by an AutoUpdate Link for one); the others are read. When there is something to record:
// INTERNAL without a ring, FAILED_PRECONDITION SigningKeyNotReady while it has no signing key.
absl::Status RecordPromotions(store::Tx& tx, const Principal& p, const ResolvedChangeOrder& rco,
                              const std::string& stage, const v1::PromoteRequest& req,
                              const PromoteBy& by, const PromotionEvidence& evidence,
                              const v1::PromoteResponse& out, const LandedHeads& landed = {});

// Checks a stored record's envelope: the signature by one of `keys`' trusted keys (the
// overload with `public_key_pem`: by that key), the payload type,
// that it is an in-toto Statement of kPromotionPredicate, and that its subject and predicate
// name the Space `space_id` and the ChangeOrder `change_order_id`. OK, or UNAUTHENTICATED (the
// signature) or DATA_LOSS (what the statement names instead), naming what is wrong.
absl::Status VerifyPromotionRecord(const v1::PromotionRecord& r, const sign::KeySnapshot& keys,
                                   const std::string& space_id, const std::string& change_order_id);
absl::Status VerifyPromotionRecord(const v1::PromotionRecord& r, const std::string& public_key_pem,
                                   const std::string& space_id, const std::string& change_order_id);

// For `cub release verify`: checks each record of the ChangeOrder `change_order_id` in the
// Space `space_id`, appending one line per record (or that there are none) to `checks`.
// Returns the first failure, OK otherwise (also when there are none: a Release published
// without a promotion, in the base or by plain upgrade, has none).
absl::Status VerifyPromotionRecordsOf(store::Tx& tx, const sign::KeySnapshot& keys,
                                      const std::string& change_order_id,
                                      const std::string& space_id,
                                      std::vector<std::string>* checks);

// `cub changeorder records`: needs read access to the ChangeOrder's base.
absl::StatusOr<v1::ListPromotionRecordsResponse> ListPromotionRecords(
    store::ConnectionPool& db, const Principal& p, const v1::ListPromotionRecordsRequest& req);

}  // namespace cub::ops

#endif  // CUB_LIB_OPS_PROMOTION_RECORDS_H_
