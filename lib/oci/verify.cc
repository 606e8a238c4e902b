// The verification rules (pure) and the results cache; reading from the registry is
// verify_io.cc.
#include "lib/oci/verify.h"

#include <algorithm>
#include <map>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "lib/sign/dsse.h"
#include "lib/sign/statement.h"
#include "lib/util/json.h"

namespace cub::oci {
namespace {

std::string Hex(const std::string& digest) { return digest.size() > 7 ? digest.substr(7) : ""; }

Verification Result(const char* reason, std::string message, const std::string& digest) {
  return Verification{reason, std::move(message), digest, ""};
}

// A DSSE envelope's statement, signed by a trusted key.
struct SignedStatement {
  std::string key_id;
  Json statement;
};

// The statement of `envelope_json` when a trusted key signed it and it is an in-toto Statement
// of `predicate_type` whose (first) subject has the digest `sha256_hex`; otherwise why not.
absl::StatusOr<SignedStatement> ReadSigned(const std::string& envelope_json,
                                           const sign::KeySnapshot& keys,
                                           const std::string& predicate_type,
                                           const std::string& sha256_hex) {
  auto env = sign::Envelope::FromJson(envelope_json);
  if (!env.ok()) return env.status();
  // cubd signs once; each further signature costs a check against every trusted key.
  constexpr size_t kMaxSignatures = 8;
  if (env->signatures.size() > kMaxSignatures) {
    return absl::InvalidArgumentError(absl::StrCat("the envelope has ", env->signatures.size(),
                                                   " signatures; at most ", kMaxSignatures,
                                                   " are read"));
  }
  SignedStatement out;
  for (const sign::TrustedPublicKey& k : keys.trusted) {
    if (sign::VerifyEnvelope(*env, k.public_pem).ok()) {
      out.key_id = k.key_id;
      break;
    }
  }
  if (out.key_id.empty()) {
    std::vector<std::string> ids;
    for (const auto& s : env->signatures) ids.push_back(s.keyid.empty() ? "(no keyid)" : s.keyid);
    return absl::UnauthenticatedError(absl::StrCat("not signed by a trusted key (signed by ",
                                                   absl::StrJoin(ids, ", "),
                                                   "; revoked or never trusted)"));
  }
  if (env->payload_type != sign::kInTotoPayloadType) {
    return absl::InvalidArgumentError(
        absl::StrCat("payloadType is '", env->payload_type, "', not an in-toto statement"));
  }
  auto st = ParseJson(env->payload);
  if (!st.ok() || !st->is_object()) {
    return absl::InvalidArgumentError("the signed payload is not a JSON object");
  }
  out.statement = *std::move(st);
  const Json& s = out.statement;
  if (s.value("_type", "") != sign::kInTotoStatementType) {
    return absl::InvalidArgumentError("the signed payload is not an in-toto Statement v1");
  }
  if (s.value("predicateType", "") != predicate_type) {
    return absl::InvalidArgumentError(absl::StrCat(
        "predicateType is '", s.value("predicateType", ""), "', not '", predicate_type, "'"));
  }
  auto subj = s.find("subject");
  std::string got;
  if (subj != s.end() && subj->is_array() && !subj->empty() && (*subj)[0].is_object()) {
    auto d = (*subj)[0].find("digest");
    if (d != (*subj)[0].end() && d->is_object()) got = d->value("sha256", "");
  }
  if (got != sha256_hex) {
    return absl::PermissionDeniedError(absl::StrCat(
        "its subject is sha256:", got.empty() ? "(none)" : got, ", not sha256:", sha256_hex));
  }
  return out;
}

const Json& Predicate(const SignedStatement& s) {
  static const Json kEmpty = Json::object();
  auto it = s.statement.find("predicate");
  return it != s.statement.end() && it->is_object() ? *it : kEmpty;
}

std::string Text(const Json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : "";
}

int64_t Number(const Json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_number_integer() ? it->get<int64_t>() : 0;
}

// A field that differs: "<what> names <field> 'got', this deploy expects 'want'".
std::optional<std::string> Differs(const char* what, const char* field, const std::string& got,
                                   const std::string& want) {
  if (got == want) return std::nullopt;
  return absl::StrCat(what, " names ", field, " '", got, "', this deploy expects '", want, "'");
}

// Why the sealed approvals' votes do not approve, or nullopt when each requirement of the policy
// has its count of counted Pass votes in every Unit revision voted on and no counted rejection.
std::optional<std::string> VotesShortfall(const Json& pred) {
  auto policy = pred.find("Policy");
  auto votes = pred.find("Votes");
  if (policy == pred.end() || !policy->is_array() || policy->empty()) {
    return "the sealed approvals list no requirement";
  }
  if (votes == pred.end() || !votes->is_array()) return "the sealed approvals list no votes";
  for (const Json& rule : *policy) {
    if (!rule.is_object()) return "a requirement of the sealed approvals is not an object";
    std::string name = Text(rule, "Name");
    int64_t count = Number(rule, "Count");
    std::map<std::pair<std::string, int64_t>, int64_t> passes;  // (unit, revision) -> passes
    for (const Json& v : *votes) {
      if (!v.is_object() || Text(v, "Requirement") != name || !v.value("Counted", false)) continue;
      auto& n = passes[{Text(v, "Unit"), Number(v, "RevisionNum")}];
      if (Text(v, "Result") != "Pass") {
        return absl::StrCat("requirement '", name, "' has a counted rejection by ",
                            Text(v, "User"));
      }
      ++n;
    }
    if (passes.empty() && count > 0) {
      return absl::StrCat("requirement '", name, "' has no counted approval");
    }
    for (const auto& [read, n] : passes) {
      if (n < count) {
        return absl::StrCat("requirement '", name, "': ", read.first, " revision ", read.second,
                            " has ", n, " of ", count, " approvals");
      }
    }
  }
  return std::nullopt;
}

// The sealed approvals check; nullopt when they approve this Release.
std::optional<std::string> ApprovalsProblem(const Attestations& a, const Json& claims,
                                            const std::string& bundle_digest,
                                            const Expectation& expected,
                                            const sign::KeySnapshot& keys) {
  if (a.sealed_approvals.empty()) {
    return "a release gate requires approvals and the registry holds no sealed approvals";
  }
  auto sealed = ReadSigned(a.sealed_approvals, keys, kApprovalPredicateType, Hex(bundle_digest));
  if (!sealed.ok()) return absl::StrCat("sealed approvals: ", sealed.status().message());
  const Json& pred = Predicate(*sealed);
  Json release =
      pred.contains("Release") && pred["Release"].is_object() ? pred["Release"] : Json::object();
  if (auto d = Differs("the sealed approvals", "Space", Text(release, "Space"), expected.space)) {
    return d;
  }
  if (Number(release, "ReleaseNum") != Number(claims, "ReleaseNum")) {
    return absl::StrCat("the sealed approvals name release ", Number(release, "ReleaseNum"),
                        ", the artifact is release ", Number(claims, "ReleaseNum"));
  }
  if (auto d = Differs("the sealed approvals", "ChangeOrder", Text(pred, "ChangeOrder"),
                       expected.change_order)) {
    return d;
  }
  return VotesShortfall(pred);
}

// The signature check: the claims of the first signature by a trusted key over this manifest.
absl::StatusOr<SignedStatement> GoodSignature(const std::string& manifest_digest,
                                              const FoundEvidence& evidence,
                                              const sign::KeySnapshot& keys) {
  std::vector<std::string> why;
  for (size_t i = 0; i < evidence.signatures.size(); ++i) {
    auto s = ReadSigned(evidence.signatures[i], keys, kArtifactPredicate, Hex(manifest_digest));
    if (s.ok()) return s;
    why.push_back(absl::StrCat("signature ", i + 1, ": ", s.status().message()));
  }
  return absl::UnauthenticatedError(absl::StrJoin(why, "; "));
}

// The signed claims and the provenance against the expectation and the layer's bundle digest.
std::optional<std::string> ProvenanceProblem(const Json& claims, const Attestations& a,
                                             const std::string& bundle_digest,
                                             const Expectation& expected,
                                             const sign::KeySnapshot& keys) {
  const char* sig = "the artifact's signature";
  if (auto d = Differs(sig, "Space", Text(claims, "Space"), expected.space)) return d;
  if (auto d = Differs(sig, "ChangeOrder", Text(claims, "ChangeOrder"), expected.change_order)) {
    return d;
  }
  if (!expected.release_id.empty()) {
    if (auto d = Differs(sig, "ReleaseID", Text(claims, "ReleaseID"), expected.release_id)) {
      return d;
    }
  }
  if (Text(claims, "BundleDigest") != bundle_digest) {
    return absl::StrCat(sig, " names bundle ", Text(claims, "BundleDigest"),
                        ", the artifact's layer holds bundle ", bundle_digest);
  }
  if (a.provenance.empty()) return "the registry holds no provenance for the artifact";
  auto prov = ReadSigned(a.provenance, keys, kProvenancePredicateType, Hex(bundle_digest));
  if (!prov.ok()) return absl::StrCat("provenance: ", prov.status().message());
  const Json& pred = Predicate(*prov);
  if (auto d = Differs("the provenance", "Space", Text(pred, "Space"), expected.space)) return d;
  if (auto d = Differs("the provenance", "ChangeOrder", Text(pred, "ChangeOrder"),
                       expected.change_order)) {
    return d;
  }
  if (Number(pred, "ReleaseNum") != Number(claims, "ReleaseNum")) {
    return absl::StrCat("the provenance names release ", Number(pred, "ReleaseNum"),
                        ", the signature release ", Number(claims, "ReleaseNum"));
  }
  return std::nullopt;
}

}  // namespace

Verification JudgeEvidence(const std::string& manifest_digest, const std::string& bundle_digest,
                           const FoundEvidence& evidence, const Expectation& expected,
                           const sign::KeySnapshot& keys) {
  const std::string& d = manifest_digest;
  if (!keys.signing) {
    return Result(
        kSigningKeyNotReady,
        absl::StrCat("cubd has no signing key yet", keys.signing_missing.empty() ? "" : ": ",
                     keys.signing_missing, "; nothing is deployed"),
        d);
  }
  std::string notes = evidence.notes.empty()
                          ? ""
                          : absl::StrCat(" (skipped: ", absl::StrJoin(evidence.notes, "; "), ")");
  if (evidence.signatures.empty()) {
    return Result(kSignatureMissing,
                  absl::StrCat("no signature of ", d, " in the registry (tag ", SignatureTag(d),
                               " or a referrer)", notes),
                  d);
  }
  auto sig = GoodSignature(d, evidence, keys);
  if (!sig.ok()) {
    return Result(kSignatureInvalid,
                  absl::StrCat("no valid signature of ", d, ": ", sig.status().message()), d);
  }
  const Json& claims = Predicate(*sig);
  if (auto p = ProvenanceProblem(claims, evidence.attestations, bundle_digest, expected, keys)) {
    return Result(kProvenanceMismatch, absl::StrCat(d, ": ", *p), d);
  }
  if (expected.approvals_required) {
    if (auto p = ApprovalsProblem(evidence.attestations, claims, bundle_digest, expected, keys)) {
      return Result(kApprovalsMissing, absl::StrCat(d, ": ", *p), d);
    }
  }
  std::string co = expected.change_order.empty() ? "no change order" : expected.change_order;
  Verification v =
      Result(kVerified,
             absl::StrCat(d, " signed by ", sig->key_id, "; provenance names space ",
                          expected.space, ", ", co, " and bundle ", bundle_digest,
                          expected.approvals_required ? "; sealed approvals approve it" : ""),
             d);
  v.key_id = sig->key_id;
  return v;
}

std::optional<Verification> VerificationCache::Find(const std::string& key) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = index_.find(key);
  if (it == index_.end()) return std::nullopt;
  lru_.splice(lru_.begin(), lru_, it->second);
  return it->second->second;
}

void VerificationCache::Put(const std::string& key, const Verification& v) {
  if (v.reason == kRegistryUnavailable || v.reason == kSigningKeyNotReady) return;
  std::lock_guard<std::mutex> lock(mu_);
  auto it = index_.find(key);
  if (it != index_.end()) {
    it->second->second = v;
    lru_.splice(lru_.begin(), lru_, it->second);
    return;
  }
  lru_.emplace_front(key, v);
  index_[key] = lru_.begin();
  while (lru_.size() > capacity_) {
    index_.erase(lru_.back().first);
    lru_.pop_back();
  }
}

std::string VerificationCache::Key(const std::string& manifest_digest,
                                   const std::vector<Descriptor>& evidence,
                                   const Expectation& expected, int64_t generation) {
  std::vector<std::string> digests;
  for (const auto& e : evidence) digests.push_back(e.digest);
  std::sort(digests.begin(), digests.end());
  Json key = Json::array({manifest_digest, digests, expected.space, expected.release_id,
                          expected.change_order, expected.approvals_required, generation});
  return JsonText(key);
}

}  // namespace cub::oci
