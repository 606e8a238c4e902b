#include "lib/ops/promotion_records.h"

#include <algorithm>
#include <map>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "lib/ops/page_token.h"
#include "lib/ops/promotion_report.h"
#include "lib/sign/dsse.h"
#include "lib/sign/ring_verify.h"
#include "lib/sign/statement.h"
#include "lib/store/promotion_records.h"
#include "lib/util/parallel_for.h"
#include "lib/util/sha256.h"
#include "lib/util/status_macros.h"
#include "lib/util/time_text.h"

namespace cub::ops {
namespace {

// The hex SHA-256 a DataHash ("sha256:<hex>") names; any other text is hashed itself.
std::string DigestHex(const std::string& data_hash) {
  const std::string prefix = "sha256:";
  if (absl::StartsWith(data_hash, prefix) && data_hash.size() == prefix.size() + 64) {
    return data_hash.substr(prefix.size());
  }
  return Sha256Hex(data_hash);
}

std::string SpaceSubject(const std::string& slug) { return absl::StrCat("space/", slug); }

// The Space subject's digest: over each Unit's slug, revision and data hash, in slug order.
std::string SpaceDigest(const std::vector<RecordedUnit>& units) {
  std::string lines;
  for (const auto& u : units)
    absl::StrAppend(&lines, u.slug, " ", u.revision_num, " ", u.data_hash, "\n");
  return Sha256Hex(lines);
}

}  // namespace

Json FindingJson(const GateFinding& g) {
  Json j = Json::object();
  j["Stage"] = g.stage;
  j["Gate"] = g.gate;
  j["Kind"] = g.kind;
  j["Space"] = g.space;
  j["SpaceID"] = g.space_id;
  j["Held"] = g.held;
  if (!g.message.empty()) j["Message"] = g.message;
  if (!g.needs.empty()) j["Needs"] = g.needs;
  if (g.earliest) j["Earliest"] = FormatRfc3339(*g.earliest);
  if (!g.evidence_json.empty()) {
    absl::StatusOr<Json> e = ParseJson(g.evidence_json);
    j["Evidence"] = e.ok() ? *std::move(e) : Json(g.evidence_json);
  }
  return j;
}

namespace {

using GateKey = std::tuple<std::string, std::string, std::string>;  // stage, gate, kind

// One promotion's findings, indexed once for all its records: each Space's own findings (in
// evaluation order) and the held / not held count per gate over every Space. A record's
// GateSummary is the totals less its own Space's, so writing n records costs O(n) in findings,
// not O(n) each: the blocked-content gate alone finds one finding per promoted Space, and
// counting all of them again for each record made a whole-Stage promote quadratic. While the
// findings are few, every record carries all of them, written once here.
class EvidenceIndex {
 public:
  explicit EvidenceIndex(const PromotionEvidence& e) : evidence_(e) {
    const auto& all = e.findings;
    if (all.size() <= kFullEvidenceFindings) {
      AppendJsonArray(all_gates_, all.size(),
                      [&](std::string& out, size_t i) { out += JsonText(FindingJson(all[i])); });
      return;
    }
    for (size_t i = 0; i < all.size(); ++i) {
      const GateFinding& g = all[i];
      by_space_[g.space_id].push_back(i);
      auto& c = totals_[GateKey{g.stage, g.gate, g.kind}];
      (g.held ? c.first : c.second) += 1;
    }
  }

  // Writes the predicate's "Gates" for a record of `space_id` (the findings it carries in
  // full) and, when there are others to count, its "GateSummary".
  void Write(const std::string& space_id, JsonObjectWriter& pred) const {
    const auto& all = evidence_.findings;
    if (all.size() <= kFullEvidenceFindings) {
      pred.Raw("Gates", all_gates_);
      return;
    }
    std::map<GateKey, std::pair<int, int>> own;
    static const std::vector<size_t> kNone;
    auto it = by_space_.find(space_id);
    const std::vector<size_t>& mine = it == by_space_.end() ? kNone : it->second;
    pred.Array("Gates", mine.size(), [&](std::string& gates, size_t k) {
      const GateFinding& g = all[mine[k]];
      gates += JsonText(FindingJson(g));
      auto& c = own[GateKey{g.stage, g.gate, g.kind}];
      (g.held ? c.first : c.second) += 1;
    });
    std::string summary;
    for (const auto& [key, total] : totals_) {
      std::pair<int, int> rest = total;
      if (auto o = own.find(key); o != own.end()) {
        rest.first -= o->second.first;
        rest.second -= o->second.second;
      }
      // A gate only this Space was judged on has no others to count.
      if (rest.first + rest.second == 0) continue;
      summary += summary.empty() ? '[' : ',';
      JsonObjectWriter(summary)
          .String("Stage", std::get<0>(key))
          .String("Gate", std::get<1>(key))
          .String("Kind", std::get<2>(key))
          .Int("Held", rest.first)
          .Int("NotHeld", rest.second)
          .Close();
    }
    if (!summary.empty()) pred.Raw("GateSummary", summary + ']');
  }

 private:
  const PromotionEvidence& evidence_;
  std::string all_gates_;  // while the findings are few
  std::map<std::string, std::vector<size_t>> by_space_;
  std::map<GateKey, std::pair<int, int>> totals_;
};

// The statement's predicate, written member by member as JsonText would write the Json of
// them (tests/unit/promotion_records_test.cc holds the two to the same bytes): a 10,000-Space
// promote writes 10,000 of these, and building a Json of each, then copying and printing it,
// was most of the time its records took.
std::string PredicateText(const PromotionRecordFacts& f, const EvidenceIndex* index) {
  std::string p;
  JsonObjectWriter pred(p);
  pred.String("ChangeOrder", f.change_order)
      .String("ChangeOrderID", f.change_order_id)
      .String("Stage", f.stage);
  JsonObjectWriter(pred.Key("Space")).String("ID", f.space_id).String("Slug", f.space).Close();
  pred.String("PromotedBy", f.promoted_by)
      .String("QueuedBy", f.queued_by)
      .Bool("ByEngine", f.by_engine)
      .String("PromotedAt", FormatRfc3339(f.at))
      .Bool("Forced", f.forced)
      .String("ForceReason", f.force_reason)
      .Strings("OverriddenGates", f.overridden_gates);
  pred.Array("Units", f.units.size(), [&](std::string& units, size_t i) {
    const RecordedUnit& u = f.units[i];
    JsonObjectWriter(units)
        .String("Unit", u.slug)
        .String("UnitID", u.unit_id)
        .String("Action", u.action)
        .Int("RevisionNum", u.revision_num)
        .String("DataHash", u.data_hash)
        .Close();
  });
  if (index != nullptr) {
    // The gates are read over the Stage before, so every Space of a promotion shares them: in
    // full while they are few, otherwise this Space's own findings in full and the rest counted
    // per gate, so that a record stays small however large the Stages (not one copy of a
    // 1,000-Space evaluation in each of 1,000 records).
    pred.Strings("GatesEvaluated", f.evidence->gates);
    index->Write(f.space_id, pred);
  } else {
    pred.Raw("GatesEvaluated", "[]").Raw("Gates", "[]");
  }
  pred.Close();
  return p;
}

std::string StatementOf(const PromotionRecordFacts& f, const EvidenceIndex* index) {
  std::vector<sign::Subject> subjects;
  subjects.reserve(f.units.size() + 1);
  subjects.push_back({SpaceSubject(f.space), SpaceDigest(f.units)});
  for (const auto& u : f.units) {
    subjects.push_back(
        {absl::StrCat(f.space, "/", u.slug, "@", u.revision_num), DigestHex(u.data_hash)});
  }
  return sign::StatementText(subjects, kPromotionPredicate, PredicateText(f, index));
}

// Builds and signs the records of a batch of promoted Spaces on a thread of its own (which
// spreads them over the cores), so that the caller may use the database meanwhile. At most
// one batch at a time: Start, then Finish before the next Start. The destructor waits.
class RecordBuilder {
 public:
  RecordBuilder(const PromotionRecordFacts& f, const EvidenceIndex& index,
                const sign::SigningKey& signer, const std::string& at)
      : f_(f), index_(index), signer_(signer), at_(at) {}
  ~RecordBuilder() {
    if (thread_.joinable()) thread_.join();
  }

  // Starts on the records of promoted[first, first + kRecordBatch), whose Units' heads are
  // `heads`.
  void Start(const std::vector<const v1::PromotedSpace*>& promoted, size_t first,
             std::vector<store::UnitHead> heads) {
    heads_ = std::move(heads);
    const size_t last = std::min(promoted.size(), first + kRecordBatch);
    batch_.assign(promoted.begin() + first, promoted.begin() + last);
    thread_ = std::thread([this] { Build(); });
  }

  std::vector<store::NewPromotionRecord> Finish() {
    thread_.join();
    return std::move(rows_);
  }

 private:
  void Build() {
    absl::flat_hash_map<std::string_view, const store::UnitHead*> head_of;
    head_of.reserve(heads_.size());
    for (const auto& h : heads_) head_of[h.unit_id] = &h;
    rows_.assign(batch_.size(), store::NewPromotionRecord());
    ParallelFor(batch_.size(), /*min_per_thread=*/32, /*max_threads=*/0,
                [&](size_t k) { rows_[k] = Record(*batch_[k], head_of); });
  }

  store::NewPromotionRecord Record(
      const v1::PromotedSpace& s,
      const absl::flat_hash_map<std::string_view, const store::UnitHead*>& head_of) const {
    PromotionRecordFacts mine = f_;
    mine.space_id = s.space_id();
    mine.space = s.space();
    for (const auto& u : s.units()) {
      RecordedUnit ru;
      ru.unit_id = u.unit_id();
      ru.slug = u.unit();
      ru.action = u.action();
      if (auto h = head_of.find(u.unit_id()); h != head_of.end()) {
        ru.revision_num = h->second->revision_num;
        ru.data_hash = h->second->data_hash;
      } else {
        ru.revision_num = u.end_revision_num();  // a Unit reported without an ID
      }
      mine.units.push_back(std::move(ru));
    }
    std::sort(mine.units.begin(), mine.units.end(),
              [](const RecordedUnit& a, const RecordedUnit& b) { return a.slug < b.slug; });
    const std::string statement = StatementOf(mine, &index_);
    store::NewPromotionRecord r;
    r.change_order_id = mine.change_order_id;
    r.change_order = mine.change_order;
    r.space_id = mine.space_id;
    r.space_slug = mine.space;
    r.stage = mine.stage;
    r.promoted_by = mine.promoted_by;
    r.queued_by = mine.queued_by;
    r.forced = mine.forced;
    r.at = at_;
    r.statement_digest = absl::StrCat("sha256:", Sha256Hex(statement));
    r.envelope = sign::SignEnvelope(signer_, sign::kInTotoPayloadType, statement).ToJson();
    return r;
  }

  const PromotionRecordFacts& f_;
  const EvidenceIndex& index_;
  const sign::SigningKey& signer_;
  const std::string& at_;
  std::vector<const v1::PromotedSpace*> batch_;
  std::vector<store::UnitHead> heads_;
  std::vector<store::NewPromotionRecord> rows_;
  std::thread thread_;
};

}  // namespace

std::string PromotionStatement(const PromotionRecordFacts& f) {
  if (f.evidence == nullptr) return StatementOf(f, nullptr);
  const EvidenceIndex index(*f.evidence);
  return StatementOf(f, &index);
}

absl::Status RecordPromotions(store::Tx& tx, const Principal& p, const ResolvedChangeOrder& rco,
                              const std::string& stage, const v1::PromoteRequest& req,
                              const PromoteBy& by, const PromotionEvidence& evidence,
                              const v1::PromoteResponse& out, const LandedHeads& landed) {
  if (req.dry_run()) return absl::OkStatus();
  std::vector<const v1::PromotedSpace*> promoted;
  for (const auto& s : out.spaces()) {
    if (StatusOf(s) == PromotionStatus::kPromoted) promoted.push_back(&s);
  }
  if (promoted.empty()) return absl::OkStatus();
  if (by.keys == nullptr) {
    return absl::InternalError("no signing key for the promotion records: nothing was promoted");
  }
  CUB_ASSIGN_OR_RETURN(auto keys, by.keys->Snapshot());
  CUB_ASSIGN_OR_RETURN(const sign::SigningKey signer, sign::SigningKeyOf(*keys));

  const absl::Time now = absl::Now();
  const std::string at = FormatRfc3339(now);
  const bool forced = req.force() && out.overridden_gates_size() > 0;
  PromotionRecordFacts f;
  f.change_order_id = rco.co.id;
  f.change_order = absl::StrCat(rco.base.slug(), "/", rco.co.slug);
  f.stage = stage;
  f.promoted_by = p.username;
  f.queued_by = by.queued_by;
  f.by_engine = by.engine;
  f.at = now;
  f.forced = forced;
  if (forced) {
    f.force_reason = req.force_reason();
    f.overridden_gates.assign(out.overridden_gates().begin(), out.overridden_gates().end());
  }
  f.evidence = &evidence;
  const EvidenceIndex index(evidence);

  // In batches of Spaces: the heads read, the records signed and inserted, then let go. A
  // record is a few KB of signed JSON, and a 10,000-Space Stage's records (with the array
  // parameters built from them) are otherwise held all at once. A batch is built and signed
  // on other threads while this one reads the next batch's heads, then inserts the batch.
  // The heads the promotion wrote are known; only the others (Units it did not write, which
  // are few) are read, in one statement a batch.
  auto heads_of = [&](size_t first) -> absl::StatusOr<std::vector<store::UnitHead>> {
    std::vector<store::UnitHead> heads;
    std::vector<std::string> unknown;
    for (size_t i = first; i < std::min(promoted.size(), first + kRecordBatch); ++i) {
      for (const auto& u : promoted[i]->units()) {
        if (u.unit_id().empty()) continue;
        if (std::optional<LandedHeads::Head> h = landed.Find(u.unit_id())) {
          store::UnitHead head;
          head.unit_id = u.unit_id();
          head.revision_num = h->revision_num;
          head.data_hash = std::move(h->data_hash);
          heads.push_back(std::move(head));
        } else {
          unknown.push_back(u.unit_id());
        }
      }
    }
    if (unknown.empty()) return heads;
    CUB_ASSIGN_OR_RETURN(std::vector<store::UnitHead> read, store::UnitHeads(tx, unknown));
    for (auto& h : read) heads.push_back(std::move(h));
    return heads;
  };
  RecordBuilder builder(f, index, signer, at);
  CUB_ASSIGN_OR_RETURN(std::vector<store::UnitHead> heads, heads_of(0));
  builder.Start(promoted, 0, std::move(heads));
  for (size_t first = 0; first < promoted.size(); first += kRecordBatch) {
    const bool more = first + kRecordBatch < promoted.size();
    if (more) {
      CUB_ASSIGN_OR_RETURN(heads, heads_of(first + kRecordBatch));
    }
    std::vector<store::NewPromotionRecord> rows = builder.Finish();
    if (more) builder.Start(promoted, first + kRecordBatch, std::move(heads));
    CUB_RETURN_IF_ERROR(store::InsertPromotionRecords(tx, rows));
  }
  return absl::OkStatus();
}

absl::Status VerifyPromotionRecord(const v1::PromotionRecord& r, const std::string& public_key_pem,
                                   const std::string& space_id,
                                   const std::string& change_order_id) {
  CUB_ASSIGN_OR_RETURN(std::string key_id, sign::PublicKeyId(public_key_pem));
  sign::KeySnapshot one;
  one.trusted.push_back({key_id, public_key_pem});
  return VerifyPromotionRecord(r, one, space_id, change_order_id);
}

absl::Status VerifyPromotionRecord(const v1::PromotionRecord& r, const sign::KeySnapshot& keys,
                                   const std::string& space_id,
                                   const std::string& change_order_id) {
  const std::string what = absl::StrCat("promotion record ", r.record_id(), " (space '", r.space(),
                                        "', stage '", r.stage(), "', ", r.at(), ")");
  absl::StatusOr<sign::Envelope> parsed = sign::Envelope::FromJson(r.envelope());
  if (!parsed.ok()) {
    return absl::DataLossError(absl::StrCat(what, ": ", parsed.status().message()));
  }
  const sign::Envelope& env = *parsed;
  if (auto signer = sign::VerifyEnvelopeTrusted(env, keys); !signer.ok()) {
    return absl::UnauthenticatedError(absl::StrCat(
        what,
        ": the signature does not verify with a key cubd trusts: ", signer.status().message()));
  }
  std::vector<std::string> differ;
  if (env.payload_type != sign::kInTotoPayloadType) {
    differ.push_back(absl::StrCat("payloadType '", env.payload_type, "'"));
  }
  absl::StatusOr<Json> st = ParseJson(env.payload);
  if (!st.ok() || !st->is_object()) {
    differ.push_back("the payload (not a JSON object)");
  } else {
    auto text = [](const Json& j, const char* key) -> std::string {
      auto it = j.find(key);
      return it != j.end() && it->is_string() ? it->get<std::string>() : std::string("(missing)");
    };
    if (text(*st, "_type") != sign::kInTotoStatementType) {
      differ.push_back(absl::StrCat("_type '", text(*st, "_type"), "'"));
    }
    if (text(*st, "predicateType") != kPromotionPredicate) {
      differ.push_back(absl::StrCat("predicateType '", text(*st, "predicateType"), "'"));
    }
    const Json empty = Json::object();
    auto pred_it = st->find("predicate");
    const Json& pred = pred_it != st->end() && pred_it->is_object() ? *pred_it : empty;
    auto space_it = pred.find("Space");
    const Json& space = space_it != pred.end() && space_it->is_object() ? *space_it : empty;
    if (text(space, "ID") != space_id) {
      differ.push_back(absl::StrCat("Space.ID '", text(space, "ID"), "' (not ", space_id, ")"));
    }
    // The columns a listing prints must say what was signed: a row copied with another
    // user or Forced flag does not verify.
    if (text(pred, "Stage") != r.stage()) {
      differ.push_back(absl::StrCat("Stage '", text(pred, "Stage"), "' (row: '", r.stage(), "')"));
    }
    if (text(pred, "PromotedBy") != r.promoted_by()) {
      differ.push_back(absl::StrCat("PromotedBy '", text(pred, "PromotedBy"), "' (row: '",
                                    r.promoted_by(), "')"));
    }
    if (text(pred, "QueuedBy") != r.queued_by()) {
      differ.push_back(
          absl::StrCat("QueuedBy '", text(pred, "QueuedBy"), "' (row: '", r.queued_by(), "')"));
    }
    auto forced_it = pred.find("Forced");
    if (forced_it == pred.end() || !forced_it->is_boolean() ||
        forced_it->get<bool>() != r.forced()) {
      differ.push_back(absl::StrCat("Forced (row: ", r.forced() ? "true" : "false", ")"));
    }
    if (text(pred, "ChangeOrderID") != change_order_id) {
      differ.push_back(absl::StrCat("ChangeOrderID '", text(pred, "ChangeOrderID"), "' (not ",
                                    change_order_id, ")"));
    }
    auto subj = st->find("subject");
    const std::string want_subject = SpaceSubject(text(space, "Slug"));
    if (subj == st->end() || !subj->is_array() || subj->empty() ||
        text((*subj)[0], "name") != want_subject) {
      differ.push_back(absl::StrCat("subject (its first is not ", want_subject, ")"));
    }
    if (absl::StrCat("sha256:", Sha256Hex(env.payload)) != r.statement_digest()) {
      differ.push_back(absl::StrCat("StatementDigest (stored ", r.statement_digest(), ")"));
    }
  }
  if (differ.empty()) return absl::OkStatus();
  return absl::DataLossError(
      absl::StrCat(what, ": the signed statement differs in ", absl::StrJoin(differ, "; ")));
}

absl::Status VerifyPromotionRecordsOf(store::Tx& tx, const sign::KeySnapshot& keys,
                                      const std::string& change_order_id,
                                      const std::string& space_id,
                                      std::vector<std::string>* checks) {
  if (change_order_id.empty()) return absl::OkStatus();
  CUB_ASSIGN_OR_RETURN(auto records, store::ListPromotionRecords(tx, change_order_id, space_id));
  if (records.empty()) {
    checks->push_back("no promotion record of its change order in this space");
    return absl::OkStatus();
  }
  absl::Status first;
  for (const auto& r : records) {
    absl::Status s = VerifyPromotionRecord(r, keys, space_id, change_order_id);
    if (s.ok()) {
      checks->push_back(absl::StrCat(
          "promotion record ", r.record_id(), " (stage '", r.stage(), "', by ", r.promoted_by(),
          r.queued_by().empty() ? "" : ", queued by " + r.queued_by(), r.forced() ? ", forced" : "",
          ", ", r.at(), ") verifies and names this space and change order"));
    } else {
      checks->push_back(std::string(s.message()));
      if (first.ok()) first = s;
    }
  }
  return first;
}

absl::StatusOr<v1::ListPromotionRecordsResponse> ListPromotionRecords(
    store::ConnectionPool& db, const Principal& p, const v1::ListPromotionRecordsRequest& req) {
  return store::InReadTransaction(
      db, [&](store::Tx& tx) -> absl::StatusOr<v1::ListPromotionRecordsResponse> {
        CUB_ASSIGN_OR_RETURN(PageStart page, ReadPageStart(req, req.limit(), req.page_token(), 1));
        CUB_ASSIGN_OR_RETURN(auto rco,
                             ResolveChangeOrder(tx, p, req.change_order(), req.space(), false));
        CUB_ASSIGN_OR_RETURN(auto records,
                             store::ListPromotionRecords(tx, rco.co.id, req.space_name(),
                                                         {page.after, page.limit + 1}));
        v1::ListPromotionRecordsResponse out;
        out.set_next_page_token(FinishPage(page, records, [](const v1::PromotionRecord& r) {
          return std::vector<std::string>{r.record_id()};
        }));
        for (auto& r : records) *out.add_records() = std::move(r);
        return out;
      });
}

}  // namespace cub::ops
