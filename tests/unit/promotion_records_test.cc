// The promotion record's statement and its check (lib/ops/promotion_records.h).
#include "lib/ops/promotion_records.h"

#include <catch2/catch.hpp>
#include <map>
#include <tuple>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "lib/sign/base64.h"
#include "lib/sign/dsse.h"
#include "lib/sign/statement.h"
#include "lib/util/json.h"
#include "lib/util/sha256.h"

namespace cub::ops {
namespace {

PromotionRecordFacts Facts(const PromotionEvidence* evidence) {
  PromotionRecordFacts f;
  f.change_order_id = "11111111-1111-1111-1111-111111111111";
  f.change_order = "base/v2";
  f.stage = "prod";
  f.space_id = "22222222-2222-2222-2222-222222222222";
  f.space = "acme-prod";
  f.promoted_by = "alice";
  f.queued_by = "alice";
  f.by_engine = true;
  f.at = absl::FromUnixSeconds(1800000000);
  f.forced = true;
  f.force_reason = "hotfix";
  f.overridden_gates = {"requires Healthy"};
  f.units = {{"u1", "api", "Upgraded", 4, absl::StrCat("sha256:", std::string(64, 'a'))},
             {"u2", "web", "Added", 1, absl::StrCat("sha256:", std::string(64, 'b'))}};
  f.evidence = evidence;
  return f;
}

v1::PromotionRecord Record(const sign::SigningKey& key, const std::string& statement) {
  v1::PromotionRecord r;
  r.set_record_id("r1");
  r.set_space("acme-prod");
  r.set_stage("prod");
  // The columns a listing shows, as the statement of Facts() signs them.
  r.set_promoted_by("alice");
  r.set_queued_by("alice");
  r.set_forced(true);
  r.set_statement_digest(absl::StrCat("sha256:", Sha256Hex(statement)));
  r.set_envelope(sign::SignEnvelope(key, sign::kInTotoPayloadType, statement).ToJson());
  return r;
}

// The held approval gate of acme-staging, with bob's vote as its evidence.
GateFinding HeldApproval() {
  GateFinding held;
  held.stage = "prod";
  held.gate = "two-approvers";
  held.kind = std::string(kGateAttestation);
  held.space = "acme-staging";
  held.space_id = "s1";
  held.held = true;
  held.evidence_json = R"({"Votes":[{"AttestationID":"a1","User":"bob"}]})";
  return held;
}

TEST_CASE("the statement names the Space, its Units, the ChangeOrder, who and the gates") {
  PromotionEvidence e;
  e.gates = {"Healthy", "two-approvers"};
  GateFinding held = HeldApproval();
  GateFinding forced;
  forced.gate = "Healthy";
  forced.message = "requires Healthy";
  e.findings = {held, forced};
  const std::string text = PromotionStatement(Facts(&e));
  REQUIRE(text == PromotionStatement(Facts(&e)));  // the same facts, the same bytes
  auto st = ParseJson(text);
  REQUIRE(st.ok());
  CHECK((*st)["_type"] == "https://in-toto.io/Statement/v1");
  CHECK((*st)["predicateType"] == "https://cub.dev/promotion/v1");
  const Json& subject = (*st)["subject"];
  REQUIRE(subject.size() == 3);
  CHECK(subject[0]["name"] == "space/acme-prod");
  const std::string lines = absl::StrCat("api 4 sha256:", std::string(64, 'a'),
                                         "\nweb 1 sha256:", std::string(64, 'b'), "\n");
  CHECK(subject[0]["digest"]["sha256"] == Sha256Hex(lines));
  CHECK(subject[1]["name"] == "acme-prod/api@4");
  CHECK(subject[1]["digest"]["sha256"] == std::string(64, 'a'));
  const Json& p = (*st)["predicate"];
  CHECK(p["ChangeOrder"] == "base/v2");
  CHECK(p["Stage"] == "prod");
  CHECK(p["Space"]["Slug"] == "acme-prod");
  CHECK(p["PromotedBy"] == "alice");
  CHECK(p["QueuedBy"] == "alice");
  CHECK(p["ByEngine"] == true);
  CHECK(p["PromotedAt"] == "2027-01-15T08:00:00Z");
  CHECK(p["Forced"] == true);
  CHECK(p["ForceReason"] == "hotfix");
  CHECK(p["OverriddenGates"][0] == "requires Healthy");
  CHECK(p["GatesEvaluated"].size() == 2);
  REQUIRE(p["Gates"].size() == 2);
  CHECK(p["Gates"][0]["Held"] == true);
  CHECK(p["Gates"][0]["Evidence"]["Votes"][0]["User"] == "bob");  // parsed, not a string
  CHECK(p["Gates"][1]["Message"] == "requires Healthy");
  CHECK(p["Gates"][1].find("Evidence") == p["Gates"][1].end());
}

TEST_CASE("a row whose columns differ from what was signed does not verify") {
  auto key = sign::SigningKey::Generate();
  REQUIRE(key.ok());
  v1::PromotionRecord r = Record(*key, PromotionStatement(Facts(nullptr)));
  const std::string pem = key->PublicKeyPem();
  const std::string space = "22222222-2222-2222-2222-222222222222";
  const std::string co = "11111111-1111-1111-1111-111111111111";
  REQUIRE(VerifyPromotionRecord(r, pem, space, co).ok());
  r.set_forced(false);  // a genuine envelope copied into a row that says it was not forced
  absl::Status s = VerifyPromotionRecord(r, pem, space, co);
  CHECK(absl::IsDataLoss(s));
  CHECK_THAT(std::string(s.message()), Catch::Contains("Forced (row: false)"));
  r.set_forced(true);
  r.set_promoted_by("mallory");
  CHECK_THAT(std::string(VerifyPromotionRecord(r, pem, space, co).message()),
             Catch::Contains("PromotedBy 'alice' (row: 'mallory')"));
}

TEST_CASE("a large evaluation is summarized per gate beyond this Space's own findings") {
  PromotionEvidence e;
  e.gates = {"Healthy"};
  for (int i = 0; i < 200; ++i) {
    GateFinding g;
    g.stage = "prod";
    g.gate = "Healthy";
    g.kind = "Builtin";
    g.space_id = absl::StrCat("space-", i);
    g.held = i % 4 != 0;
    e.findings.push_back(g);
  }
  GateFinding own;
  own.stage = "prod";
  own.gate = "content";
  own.kind = "Block";
  own.space_id = "22222222-2222-2222-2222-222222222222";
  own.held = true;
  e.findings.push_back(own);
  auto f = Facts(&e);
  auto st = ParseJson(PromotionStatement(f));
  REQUIRE(st.ok());
  const Json& p = (*st)["predicate"];
  REQUIRE(p["Gates"].size() == 1);  // only this Space's own finding in full
  CHECK(p["Gates"][0]["Kind"] == "Block");
  REQUIRE(p["GateSummary"].size() == 1);
  CHECK(p["GateSummary"][0]["Gate"] == "Healthy");
  CHECK(p["GateSummary"][0]["Held"] == 150);
  CHECK(p["GateSummary"][0]["NotHeld"] == 50);
}

// An in-toto statement as a Json document, printed by JsonText.
std::string StatementJson(const std::vector<sign::Subject>& subjects, const std::string& type,
                          Json predicate) {
  Json subject = Json::array();
  for (const auto& s : subjects) {
    Json one = Json::object();
    if (!s.name.empty()) one["name"] = s.name;
    one["digest"] = {{"sha256", s.sha256_hex}};
    subject.push_back(std::move(one));
  }
  Json statement = Json::object();
  statement["_type"] = "https://in-toto.io/Statement/v1";
  statement["subject"] = std::move(subject);
  statement["predicateType"] = type;
  statement["predicate"] = std::move(predicate);
  return JsonText(statement);
}

TEST_CASE("a statement is written as JsonText writes its Json") {
  const std::vector<sign::Subject> subjects = {{"space/a\"b", std::string(64, 'c')},
                                               {"", std::string(64, 'd')}};
  Json pred = {{"K", "v\n"}, {"N", 3}};
  CHECK(sign::StatementText(subjects, "https://x/\u00e9", JsonText(pred)) ==
        StatementJson(subjects, "https://x/\u00e9", pred));
  CHECK(sign::Statement(subjects, "t", pred) == StatementJson(subjects, "t", pred));
  CHECK(sign::Statement({}, "t", Json::object()) == StatementJson({}, "t", Json::object()));
}

// The statement as a Json document, member by member, and printed by JsonText: what
// PromotionStatement writes directly, byte for byte.
std::string StatementByJson(const PromotionRecordFacts& f) {
  auto strings = [](const std::vector<std::string>& v) {
    Json out = Json::array();
    for (const auto& s : v) out.push_back(s);
    return out;
  };
  std::vector<sign::Subject> subjects;
  std::string lines;
  for (const auto& u : f.units)
    absl::StrAppend(&lines, u.slug, " ", u.revision_num, " ", u.data_hash, "\n");
  subjects.push_back({"space/" + f.space, Sha256Hex(lines)});
  Json units = Json::array();
  for (const auto& u : f.units) {
    subjects.push_back(
        {absl::StrCat(f.space, "/", u.slug, "@", u.revision_num), u.data_hash.substr(7)});
    Json ju = Json::object();
    ju["Unit"] = u.slug;
    ju["UnitID"] = u.unit_id;
    ju["Action"] = u.action;
    ju["RevisionNum"] = u.revision_num;
    ju["DataHash"] = u.data_hash;
    units.push_back(std::move(ju));
  }
  Json gates = Json::array();
  Json summary = Json::array();
  if (f.evidence != nullptr && f.evidence->findings.size() <= kFullEvidenceFindings) {
    for (const auto& g : f.evidence->findings) gates.push_back(FindingJson(g));
  } else if (f.evidence != nullptr) {
    std::map<std::tuple<std::string, std::string, std::string>, std::pair<int, int>> rest;
    for (const auto& g : f.evidence->findings) {
      if (g.space_id == f.space_id) {
        gates.push_back(FindingJson(g));
        continue;
      }
      auto& c = rest[{g.stage, g.gate, g.kind}];
      (g.held ? c.first : c.second) += 1;
    }
    for (const auto& [key, n] : rest) {
      summary.push_back(Json{{"Stage", std::get<0>(key)},
                             {"Gate", std::get<1>(key)},
                             {"Kind", std::get<2>(key)},
                             {"Held", n.first},
                             {"NotHeld", n.second}});
    }
  }
  Json pred = Json::object();
  pred["ChangeOrder"] = f.change_order;
  pred["ChangeOrderID"] = f.change_order_id;
  pred["Stage"] = f.stage;
  pred["Space"] = {{"ID", f.space_id}, {"Slug", f.space}};
  pred["PromotedBy"] = f.promoted_by;
  pred["QueuedBy"] = f.queued_by;
  pred["ByEngine"] = f.by_engine;
  pred["PromotedAt"] = "2027-01-15T08:00:00Z";
  pred["Forced"] = f.forced;
  pred["ForceReason"] = f.force_reason;
  pred["OverriddenGates"] = strings(f.overridden_gates);
  pred["Units"] = std::move(units);
  pred["GatesEvaluated"] = f.evidence ? strings(f.evidence->gates) : Json::array();
  pred["Gates"] = std::move(gates);
  if (!summary.empty()) pred["GateSummary"] = std::move(summary);
  return StatementJson(subjects, kPromotionPredicate, std::move(pred));
}

TEST_CASE("the statement is written as JsonText writes its Json, whatever its text holds") {
  auto f = Facts(nullptr);
  CHECK(PromotionStatement(f) == StatementByJson(f));
  // Text that needs escaping, text beyond ASCII, and a byte that is not UTF-8 (printed as
  // U+FFFD by both).
  f.force_reason = "say \"why\"\\ on\nmany\tlines\x01, d\xC3\xA9j\xC3\xA0 vu \xFF";
  f.overridden_gates = {"gate \"Healthy\"", "", "\x7F"};
  f.units[0].slug = "api-\xE2\x9C\x93";
  f.units[1].slug = "web-\xFF";  // nothing to escape, but not UTF-8
  CHECK(PromotionStatement(f) == StatementByJson(f));

  PromotionEvidence few;
  few.gates = {"Healthy", "two-approvers"};
  GateFinding g = HeldApproval();
  g.message = "needs \"bob\"";
  few.findings = {g, g};
  few.findings[1].evidence_json = "not json";
  f.evidence = &few;
  CHECK(PromotionStatement(f) == StatementByJson(f));

  PromotionEvidence many;
  many.gates = {"Healthy", "content"};
  for (int i = 0; i < 100; ++i) {
    GateFinding h;
    h.stage = i % 3 == 0 ? "staging" : "prod";
    h.gate = i % 2 == 0 ? "Healthy" : "content";
    h.kind = "Builtin";
    h.space_id = i == 7 || i == 8 ? f.space_id : absl::StrCat("space-", i);
    h.held = i % 5 != 0;
    many.findings.push_back(h);
  }
  f.evidence = &many;
  CHECK(PromotionStatement(f) == StatementByJson(f));
  f.space_id = "a Space with no findings of its own";
  CHECK(PromotionStatement(f) == StatementByJson(f));
  for (auto& h : many.findings) h.space_id = f.space_id;  // only its own: no GateSummary
  CHECK(PromotionStatement(f) == StatementByJson(f));
  CHECK(PromotionStatement(f).find("GateSummary") == std::string::npos);
}

TEST_CASE("an envelope is written as JsonText writes its Json") {
  sign::Envelope env;
  env.payload_type = std::string(sign::kInTotoPayloadType);
  env.payload = "{\"a\":\"\xFF\"}";
  env.signatures = {{"key-1", std::string("\x01\x02\xFE", 3)}, {"key \"2\"", "sig"}};
  Json sigs = Json::array();
  for (const auto& sig : env.signatures) {
    sigs.push_back({{"keyid", sig.keyid}, {"sig", sign::Base64Encode(sig.sig)}});
  }
  Json j = Json::object();
  j["payloadType"] = env.payload_type;
  j["payload"] = sign::Base64Encode(env.payload);
  j["signatures"] = std::move(sigs);
  CHECK(env.ToJson() == JsonText(j));
}

TEST_CASE("a record verifies with the server's key and names its Space and ChangeOrder") {
  auto key = sign::SigningKey::Generate();
  REQUIRE(key.ok());
  const std::string text = PromotionStatement(Facts(nullptr));
  const v1::PromotionRecord r = Record(*key, text);
  const std::string pem = key->PublicKeyPem();
  const std::string space = "22222222-2222-2222-2222-222222222222";
  const std::string co = "11111111-1111-1111-1111-111111111111";
  CHECK(VerifyPromotionRecord(r, pem, space, co).ok());

  SECTION("another Space or ChangeOrder") {
    absl::Status s = VerifyPromotionRecord(r, pem, "33333333-3333-3333-3333-333333333333", co);
    CHECK(s.code() == absl::StatusCode::kDataLoss);
    CHECK_THAT(std::string(s.message()), Catch::Contains("Space.ID '" + space + "'"));
    s = VerifyPromotionRecord(r, pem, space, "other");
    CHECK_THAT(std::string(s.message()), Catch::Contains("ChangeOrderID"));
  }
  SECTION("another key") {
    auto other = sign::SigningKey::Generate();
    REQUIRE(other.ok());
    absl::Status s = VerifyPromotionRecord(r, other->PublicKeyPem(), space, co);
    CHECK(s.code() == absl::StatusCode::kUnauthenticated);
    CHECK_THAT(std::string(s.message()), Catch::Contains("promotion record r1 (space 'acme-prod'"));
  }
  SECTION("a tampered payload") {
    auto env = sign::Envelope::FromJson(r.envelope());
    REQUIRE(env.ok());
    env->payload.replace(env->payload.find("alice"), 5, "mallo");
    v1::PromotionRecord t = r;
    t.set_envelope(env->ToJson());
    CHECK(VerifyPromotionRecord(t, pem, space, co).code() == absl::StatusCode::kUnauthenticated);
  }
  SECTION("a stored digest that is not the statement's") {
    v1::PromotionRecord t = r;
    t.set_statement_digest("sha256:00");
    absl::Status s = VerifyPromotionRecord(t, pem, space, co);
    CHECK(s.code() == absl::StatusCode::kDataLoss);
    CHECK_THAT(std::string(s.message()), Catch::Contains("StatementDigest"));
  }
  SECTION("another predicate type, signed") {
    const std::string other = sign::Statement({{"space/acme-prod", std::string(64, 'c')}},
                                              "https://cub.dev/deployment/v1", Json::object());
    absl::Status s = VerifyPromotionRecord(Record(*key, other), pem, space, co);
    CHECK(s.code() == absl::StatusCode::kDataLoss);
    CHECK_THAT(std::string(s.message()), Catch::Contains("predicateType"));
  }
}

}  // namespace
}  // namespace cub::ops
