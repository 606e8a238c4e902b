#include "lib/identity/jwt.h"

#include <openssl/bn.h>
#include <openssl/ecdsa.h>
#include <openssl/err.h>
#include <openssl/evp.h>

#include <cmath>
#include <limits>
#include <memory>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/cord.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "lib/identity/base64url.h"
#include "lib/util/time_text.h"

namespace cub::identity {
namespace {

// Marks VerifySignature's "no such key" error, for IsUnknownKey.
constexpr char kUnknownKeyPayload[] = "cub.identity/unknown-key";

struct MdCtxFree {
  void operator()(EVP_MD_CTX* c) const { EVP_MD_CTX_free(c); }
};
struct EcdsaSigFree {
  void operator()(ECDSA_SIG* s) const { ECDSA_SIG_free(s); }
};

// abseil's string_view is its own type in this build, not std's.
absl::string_view Absl(std::string_view s) { return absl::string_view(s.data(), s.size()); }
std::string_view Std(absl::string_view s) { return std::string_view(s.data(), s.size()); }

// A value from the token, fit for a message: escaped and cut short.
std::string Shown(std::string_view s) {
  constexpr size_t kMax = 80;
  std::string cut(s.substr(0, kMax));
  return absl::StrCat(absl::CHexEscape(cut), s.size() > kMax ? "..." : "");
}

std::string Quoted(std::string_view s) { return absl::StrCat("'", Shown(s), "'"); }

absl::StatusOr<Json> DecodeObject(absl::string_view part, const char* name) {
  std::optional<std::string> bytes = Base64UrlDecode(Std(part));
  if (!bytes) {
    return absl::InvalidArgumentError(absl::StrCat("the token's ", name, " is not base64url"));
  }
  absl::StatusOr<Json> json = ParseJson(*bytes);
  if (!json.ok() || !json->is_object()) {
    return absl::InvalidArgumentError(absl::StrCat("the token's ", name, " is not a JSON object"));
  }
  return *std::move(json);
}

bool IsAccepted(const std::string& alg) {
  return alg == "RS256" || alg == "ES256" || alg == "EdDSA";
}

// JWS ES256 signatures are R||S (RFC 7518 section 3.4); OpenSSL verifies DER ECDSA-Sig-Value.
absl::StatusOr<std::string> Es256ToDer(const std::string& raw) {
  if (raw.size() != 64) {
    return absl::UnauthenticatedError(
        absl::StrCat("the token's ES256 signature is ", raw.size(), " bytes, not 64"));
  }
  const auto* p = reinterpret_cast<const unsigned char*>(raw.data());
  std::unique_ptr<ECDSA_SIG, EcdsaSigFree> sig(ECDSA_SIG_new());
  BIGNUM* r = BN_bin2bn(p, 32, nullptr);
  BIGNUM* s = BN_bin2bn(p + 32, 32, nullptr);
  if (!sig || r == nullptr || s == nullptr || ECDSA_SIG_set0(sig.get(), r, s) != 1) {
    BN_free(r);
    BN_free(s);
    ERR_clear_error();
    return absl::InternalError("OpenSSL could not build an ECDSA signature");
  }
  unsigned char* der = nullptr;
  int len = i2d_ECDSA_SIG(sig.get(), &der);
  if (len <= 0) {
    ERR_clear_error();
    return absl::InternalError("OpenSSL could not encode an ECDSA signature");
  }
  std::string out(reinterpret_cast<char*>(der), static_cast<size_t>(len));
  OPENSSL_free(der);
  return out;
}

absl::Status VerifyWith(const Jwt& jwt, const Jwk& key) {
  std::string signature = jwt.signature;
  const EVP_MD* md = nullptr;  // EdDSA hashes inside the algorithm
  if (jwt.alg == "RS256") {
    md = EVP_sha256();
  } else if (jwt.alg == "ES256") {
    md = EVP_sha256();
    absl::StatusOr<std::string> der = Es256ToDer(jwt.signature);
    if (!der.ok()) return der.status();
    signature = *std::move(der);
  }
  std::unique_ptr<EVP_MD_CTX, MdCtxFree> ctx(EVP_MD_CTX_new());
  int ok = ctx != nullptr &&
           EVP_DigestVerifyInit(ctx.get(), nullptr, md, nullptr, key.key.get()) == 1 &&
           EVP_DigestVerify(ctx.get(), reinterpret_cast<const unsigned char*>(signature.data()),
                            signature.size(),
                            reinterpret_cast<const unsigned char*>(jwt.signing_input.data()),
                            jwt.signing_input.size()) == 1;
  ERR_clear_error();  // a failed verification leaves entries on this thread's queue
  if (!ok) {
    std::string name = key.kid.empty() ? std::string("the issuer's ") + key.alg + " key"
                                       : absl::StrCat("key ", Quoted(key.kid));
    return absl::UnauthenticatedError(
        absl::StrCat("the token's signature does not verify with ", name));
  }
  return absl::OkStatus();
}

absl::Status UnknownKey(std::string message) {
  absl::Status status = absl::UnauthenticatedError(std::move(message));
  status.SetPayload(kUnknownKeyPayload, absl::Cord("1"));
  return status;
}

// A NumericDate claim (RFC 7519 section 2): seconds since the epoch, integer or not.
absl::StatusOr<std::optional<absl::Time>> TimeClaim(const Json& claims, const char* name) {
  auto it = claims.find(name);
  if (it == claims.end()) return std::optional<absl::Time>();
  if (it->is_number_unsigned()) {
    uint64_t v = it->get<uint64_t>();
    if (v > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
      return std::optional<absl::Time>(absl::InfiniteFuture());
    }
    return std::optional<absl::Time>(absl::FromUnixSeconds(static_cast<int64_t>(v)));
  }
  if (it->is_number_integer()) {
    return std::optional<absl::Time>(absl::FromUnixSeconds(it->get<int64_t>()));
  }
  if (it->is_number_float() && std::isfinite(it->get<double>())) {
    return std::optional<absl::Time>(absl::UnixEpoch() + absl::Seconds(it->get<double>()));
  }
  return absl::UnauthenticatedError(
      absl::StrCat("the token's claim '", name, "' is not a number of seconds"));
}

std::string QuotedList(const std::vector<std::string>& values, const char* last_joiner) {
  std::string out;
  for (size_t i = 0; i < values.size(); ++i) {
    if (i > 0) out += i + 1 == values.size() ? last_joiner : ", ";
    out += Quoted(values[i]);
  }
  return out;
}

absl::Status CheckAudience(const Json& claims, const ClaimRules& rules,
                           std::vector<std::string>* audiences) {
  auto it = claims.find("aud");
  if (it == claims.end()) return absl::UnauthenticatedError("the token names no audience (aud)");
  if (it->is_string()) {
    audiences->push_back(it->get<std::string>());
  } else if (it->is_array()) {
    for (const Json& a : *it) {
      if (!a.is_string()) {
        return absl::UnauthenticatedError("the token's audience (aud) holds a non-string");
      }
      audiences->push_back(a.get<std::string>());
    }
  } else {
    return absl::UnauthenticatedError(
        "the token's audience (aud) is neither a string nor an array of strings");
  }
  for (const std::string& want : rules.audiences) {
    for (const std::string& have : *audiences) {
      if (have == want) return absl::OkStatus();
    }
  }
  return absl::UnauthenticatedError(
      absl::StrCat("the token is for ", audiences->size() == 1 ? "audience " : "audiences ",
                   audiences->empty() ? std::string("(none)") : QuotedList(*audiences, ", "),
                   ", not ", QuotedList(rules.audiences, " or ")));
}

absl::Status CheckTimes(const Json& claims, const ClaimRules& rules, VerifiedClaims* out) {
  absl::StatusOr<std::optional<absl::Time>> exp = TimeClaim(claims, "exp");
  if (!exp.ok()) return exp.status();
  if (!exp->has_value()) return absl::UnauthenticatedError("the token has no expiry (exp)");
  out->expires_at = **exp;
  if (rules.now > out->expires_at + rules.skew) {
    return absl::UnauthenticatedError(
        absl::StrCat("the token expired at ", FormatRfc3339(out->expires_at)));
  }
  absl::StatusOr<std::optional<absl::Time>> nbf = TimeClaim(claims, "nbf");
  if (!nbf.ok()) return nbf.status();
  if (nbf->has_value() && rules.now + rules.skew < **nbf) {
    return absl::UnauthenticatedError(
        absl::StrCat("the token is not valid before ", FormatRfc3339(**nbf)));
  }
  absl::StatusOr<std::optional<absl::Time>> iat = TimeClaim(claims, "iat");
  if (!iat.ok()) return iat.status();
  if (iat->has_value()) {
    if (rules.now + rules.skew < **iat) {
      return absl::UnauthenticatedError(
          absl::StrCat("the token was issued in the future, at ", FormatRfc3339(**iat)));
    }
    out->issued_at = **iat;
  }
  return absl::OkStatus();
}

}  // namespace

bool LooksLikeJwt(std::string_view token) {
  if (token.size() > kMaxJwtBytes || token.substr(0, 3) != "eyJ") return false;
  std::vector<absl::string_view> parts = absl::StrSplit(Absl(token), '.');
  if (parts.size() != 3) return false;
  for (absl::string_view p : parts) {
    if (p.empty() || !IsBase64UrlAlphabet(Std(p))) return false;
  }
  return true;
}

absl::StatusOr<Jwt> ParseJwt(std::string_view token) {
  if (token.size() > kMaxJwtBytes) {
    return absl::InvalidArgumentError(
        absl::StrCat("the token is longer than ", kMaxJwtBytes, " bytes"));
  }
  std::vector<absl::string_view> parts = absl::StrSplit(Absl(token), '.');
  if (parts.size() != 3) {
    return absl::InvalidArgumentError(
        absl::StrCat("the token has ", parts.size(),
                     " parts separated by '.', not 3 (header.payload.signature)"));
  }
  Jwt jwt;
  absl::StatusOr<Json> header = DecodeObject(parts[0], "header");
  if (!header.ok()) return header.status();
  jwt.header = *std::move(header);
  absl::StatusOr<Json> claims = DecodeObject(parts[1], "payload");
  if (!claims.ok()) return claims.status();
  jwt.claims = *std::move(claims);
  std::optional<std::string> signature = Base64UrlDecode(Std(parts[2]));
  if (!signature) return absl::InvalidArgumentError("the token's signature is not base64url");
  jwt.signature = *std::move(signature);

  auto alg = jwt.header.find("alg");
  if (alg == jwt.header.end() || !alg->is_string() || alg->get_ref<const std::string&>().empty()) {
    return absl::InvalidArgumentError("the token names no alg");
  }
  jwt.alg = alg->get<std::string>();
  if (auto kid = jwt.header.find("kid"); kid != jwt.header.end()) {
    if (!kid->is_string()) return absl::InvalidArgumentError("the token's kid is not a string");
    jwt.kid = kid->get<std::string>();
  }
  // RFC 7515 section 4.1.11: a recipient must refuse extensions it does not understand, and
  // cub understands none.
  if (jwt.header.contains("crit")) {
    return absl::InvalidArgumentError(
        "the token's header has a 'crit' member (critical extensions), which cubd does not "
        "understand");
  }
  jwt.signing_input = absl::StrCat(parts[0], ".", parts[1]);
  return jwt;
}

absl::Status VerifySignature(const Jwt& jwt, const JwkSet& keys) {
  if (!IsAccepted(jwt.alg)) {
    return absl::UnauthenticatedError(absl::StrCat("the token is signed with alg ", Shown(jwt.alg),
                                                   ", which cubd does not accept (only RS256, "
                                                   "ES256 and EdDSA)"));
  }
  const Jwk* key = keys.Find(jwt.kid, jwt.alg);
  if (key == nullptr && !jwt.kid.empty()) {
    for (const Jwk& k : keys.keys()) {
      if (k.kid == jwt.kid) {
        return absl::UnauthenticatedError(absl::StrCat("the token is signed with alg ", jwt.alg,
                                                       " but key ", Quoted(jwt.kid),
                                                       " is a key for ", k.alg));
      }
    }
    return UnknownKey(absl::StrCat("the token is signed by key ", Quoted(jwt.kid),
                                   ", which the issuer does not publish"));
  }
  if (key == nullptr) {
    size_t n = 0;
    for (const Jwk& k : keys.keys()) n += k.alg == jwt.alg ? 1 : 0;
    if (n == 0) {
      return UnknownKey(absl::StrCat("the token names no key (kid) and the issuer publishes no ",
                                     jwt.alg, " key"));
    }
    return absl::UnauthenticatedError(absl::StrCat(
        "the token names no key (kid) and the issuer publishes ", n, " ", jwt.alg, " keys"));
  }
  return VerifyWith(jwt, *key);
}

bool IsUnknownKey(const absl::Status& status) {
  return !status.ok() && status.GetPayload(kUnknownKeyPayload).has_value();
}

absl::StatusOr<VerifiedClaims> CheckClaims(const Jwt& jwt, const ClaimRules& rules) {
  const Json& claims = jwt.claims;
  VerifiedClaims out;
  auto iss = claims.find("iss");
  if (iss == claims.end() || !iss->is_string()) {
    return absl::UnauthenticatedError("the token names no issuer (iss)");
  }
  out.issuer = iss->get<std::string>();
  if (out.issuer != rules.issuer) {
    return absl::UnauthenticatedError(absl::StrCat("the token was issued by ", Quoted(out.issuer),
                                                   ", not ", Quoted(rules.issuer)));
  }
  auto sub = claims.find("sub");
  if (sub == claims.end() || !sub->is_string() || sub->get_ref<const std::string&>().empty()) {
    return absl::UnauthenticatedError("the token names no subject (sub)");
  }
  out.subject = sub->get<std::string>();
  if (absl::Status s = CheckAudience(claims, rules, &out.audiences); !s.ok()) return s;
  if (absl::Status s = CheckTimes(claims, rules, &out); !s.ok()) return s;
  out.claims = claims;
  return out;
}

std::optional<std::string> ClaimText(const Json& claims, const std::string& name) {
  if (!claims.is_object()) return std::nullopt;
  auto it = claims.find(name);
  if (it == claims.end()) return std::nullopt;
  if (it->is_string()) return it->get<std::string>();
  if (it->is_number() || it->is_boolean()) return JsonText(*it);
  return std::nullopt;
}

absl::StatusOr<std::vector<std::string>> ClaimStrings(const Json& claims, const std::string& name) {
  std::vector<std::string> out;
  if (!claims.is_object()) return out;
  auto it = claims.find(name);
  if (it == claims.end() || it->is_null()) return out;
  if (it->is_string()) {
    out.push_back(it->get<std::string>());
    return out;
  }
  if (!it->is_array()) {
    return absl::InvalidArgumentError(absl::StrCat("the token's claim '", Shown(name),
                                                   "' is a value of kind ", JsonKindName(*it),
                                                   ", not a string or a list of strings"));
  }
  for (const Json& v : *it) {
    if (!v.is_string()) {
      return absl::InvalidArgumentError(absl::StrCat("the token's claim '", Shown(name),
                                                     "' holds a value of kind ", JsonKindName(v),
                                                     ", not only strings"));
    }
    out.push_back(v.get<std::string>());
  }
  return out;
}

}  // namespace cub::identity
