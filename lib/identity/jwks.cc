#include "lib/identity/jwks.h"

#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/param_build.h>

#include <algorithm>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "lib/identity/base64url.h"
#include "lib/util/json.h"

namespace cub::identity {
namespace {

// The most keys one set may list: a provider publishes a handful; each key costs a parse.
constexpr size_t kMaxKeys = 100;
// The longest RSA modulus accepted (bits): verification time grows with it.
constexpr int kMaxRsaBits = 8192;

struct BnFree {
  void operator()(BIGNUM* b) const { BN_free(b); }
};
struct ParamBldFree {
  void operator()(OSSL_PARAM_BLD* b) const { OSSL_PARAM_BLD_free(b); }
};
struct ParamFree {
  void operator()(OSSL_PARAM* p) const { OSSL_PARAM_free(p); }
};
struct PkeyCtxFree {
  void operator()(EVP_PKEY_CTX* c) const { EVP_PKEY_CTX_free(c); }
};
using BnPtr = std::unique_ptr<BIGNUM, BnFree>;

std::shared_ptr<EVP_PKEY> Shared(EVP_PKEY* p) {
  return std::shared_ptr<EVP_PKEY>(p, [](EVP_PKEY* k) { EVP_PKEY_free(k); });
}

// How a key is named in messages: its kid, or its place in the set.
std::string KeyName(const std::string& kid, size_t index) {
  if (kid.empty()) return absl::StrCat("key #", index + 1);
  std::string shown = kid.size() > 64 ? kid.substr(0, 64) + "..." : kid;
  return absl::StrCat("key '", absl::CHexEscape(shown), "'");
}

// A required base64url string member, decoded.
absl::StatusOr<std::string> Member(const Json& key, const char* name, const std::string& who) {
  auto it = key.find(name);
  if (it == key.end()) {
    return absl::InvalidArgumentError(absl::StrCat(who, ": member '", name, "' is missing"));
  }
  if (!it->is_string()) {
    return absl::InvalidArgumentError(absl::StrCat(who, ": member '", name, "' is not a string"));
  }
  std::optional<std::string> bytes = Base64UrlDecode(it->get_ref<const std::string&>());
  if (!bytes) {
    return absl::InvalidArgumentError(absl::StrCat(who, ": member '", name, "' is not base64url"));
  }
  return *std::move(bytes);
}

// An optional string member; "" when absent. Not a string: an error.
absl::StatusOr<std::string> OptionalString(const Json& key, const char* name,
                                           const std::string& who) {
  auto it = key.find(name);
  if (it == key.end()) return std::string();
  if (!it->is_string()) {
    return absl::InvalidArgumentError(absl::StrCat(who, ": member '", name, "' is not a string"));
  }
  return it->get<std::string>();
}

absl::StatusOr<std::shared_ptr<EVP_PKEY>> FromData(const char* type, OSSL_PARAM_BLD* bld,
                                                   const std::string& who, const char* what) {
  std::unique_ptr<OSSL_PARAM, ParamFree> params(OSSL_PARAM_BLD_to_param(bld));
  std::unique_ptr<EVP_PKEY_CTX, PkeyCtxFree> ctx(
      EVP_PKEY_CTX_new_from_name(nullptr, type, nullptr));
  EVP_PKEY* pkey = nullptr;
  if (!params || !ctx || EVP_PKEY_fromdata_init(ctx.get()) != 1 ||
      EVP_PKEY_fromdata(ctx.get(), &pkey, EVP_PKEY_PUBLIC_KEY, params.get()) != 1) {
    ERR_clear_error();
    return absl::InvalidArgumentError(absl::StrCat(who, ": ", what));
  }
  return Shared(pkey);
}

// nullptr (and OK) when the key is too short to use.
absl::StatusOr<std::shared_ptr<EVP_PKEY>> RsaKey(const Json& key, const std::string& who) {
  absl::StatusOr<std::string> n = Member(key, "n", who);
  if (!n.ok()) return n.status();
  absl::StatusOr<std::string> e = Member(key, "e", who);
  if (!e.ok()) return e.status();
  if (n->size() > kMaxRsaBits / 8 + 1) {
    return absl::InvalidArgumentError(
        absl::StrCat(who, ": member 'n' is longer than ", kMaxRsaBits, " bits"));
  }
  if (e->empty() || e->size() > 8) {
    return absl::InvalidArgumentError(absl::StrCat(who, ": member 'e' is not a usable exponent"));
  }
  auto bytes = [](const std::string& s) {
    return reinterpret_cast<const unsigned char*>(s.data());
  };
  BnPtr bn_n(BN_bin2bn(bytes(*n), static_cast<int>(n->size()), nullptr));
  BnPtr bn_e(BN_bin2bn(bytes(*e), static_cast<int>(e->size()), nullptr));
  if (!bn_n || !bn_e) return absl::InternalError("OpenSSL could not allocate a number");
  if (BN_num_bits(bn_n.get()) < 2048) return std::shared_ptr<EVP_PKEY>();
  if (BN_num_bits(bn_n.get()) > kMaxRsaBits) {
    return absl::InvalidArgumentError(
        absl::StrCat(who, ": member 'n' is longer than ", kMaxRsaBits, " bits"));
  }
  std::unique_ptr<OSSL_PARAM_BLD, ParamBldFree> bld(OSSL_PARAM_BLD_new());
  if (!bld || OSSL_PARAM_BLD_push_BN(bld.get(), OSSL_PKEY_PARAM_RSA_N, bn_n.get()) != 1 ||
      OSSL_PARAM_BLD_push_BN(bld.get(), OSSL_PKEY_PARAM_RSA_E, bn_e.get()) != 1) {
    ERR_clear_error();
    return absl::InternalError("OpenSSL could not build an RSA key");
  }
  return FromData("RSA", bld.get(), who, "OpenSSL refuses the RSA key (n, e)");
}

absl::StatusOr<std::shared_ptr<EVP_PKEY>> P256Key(const Json& key, const std::string& who) {
  absl::StatusOr<std::string> x = Member(key, "x", who);
  if (!x.ok()) return x.status();
  absl::StatusOr<std::string> y = Member(key, "y", who);
  if (!y.ok()) return y.status();
  if (x->size() != 32 || y->size() != 32) {
    return absl::InvalidArgumentError(
        absl::StrCat(who, ": members 'x' and 'y' of a P-256 key must be 32 bytes each, not ",
                     x->size(), " and ", y->size()));
  }
  std::string point = absl::StrCat("\x04", *x, *y);  // SEC 1 uncompressed point
  std::unique_ptr<OSSL_PARAM_BLD, ParamBldFree> bld(OSSL_PARAM_BLD_new());
  if (!bld ||
      OSSL_PARAM_BLD_push_utf8_string(bld.get(), OSSL_PKEY_PARAM_GROUP_NAME, "prime256v1", 0) !=
          1 ||
      OSSL_PARAM_BLD_push_octet_string(bld.get(), OSSL_PKEY_PARAM_PUB_KEY, point.data(),
                                       point.size()) != 1) {
    ERR_clear_error();
    return absl::InternalError("OpenSSL could not build an EC key");
  }
  return FromData("EC", bld.get(), who, "the point (x, y) is not on the curve P-256");
}

absl::StatusOr<std::shared_ptr<EVP_PKEY>> Ed25519Key(const Json& key, const std::string& who) {
  absl::StatusOr<std::string> x = Member(key, "x", who);
  if (!x.ok()) return x.status();
  if (x->size() != 32) {
    return absl::InvalidArgumentError(
        absl::StrCat(who, ": member 'x' of an Ed25519 key must be 32 bytes, not ", x->size()));
  }
  EVP_PKEY* pkey = EVP_PKEY_new_raw_public_key(
      EVP_PKEY_ED25519, nullptr, reinterpret_cast<const unsigned char*>(x->data()), x->size());
  if (pkey == nullptr) {
    ERR_clear_error();
    return absl::InvalidArgumentError(absl::StrCat(who, ": OpenSSL refuses the Ed25519 key"));
  }
  return Shared(pkey);
}

// Whether the key is one cub verifies with, and for which alg ("" when not).
std::string UsableAlg(const Json& key, const std::string& kty) {
  auto member = [&](const char* name) -> std::string {
    auto it = key.find(name);
    return it != key.end() && it->is_string() ? it->get<std::string>() : std::string();
  };
  // Private keys and symmetric secrets have no place in a published set: never use them.
  for (const char* secret : {"d", "p", "q", "dp", "dq", "qi", "k"}) {
    if (key.contains(secret)) return "";
  }
  if (key.contains("use") && member("use") != "sig") return "";
  if (auto ops = key.find("key_ops"); ops != key.end()) {
    if (!ops->is_array() || std::find(ops->begin(), ops->end(), Json("verify")) == ops->end()) {
      return "";
    }
  }
  std::string alg;
  if (kty == "RSA") {
    alg = "RS256";
  } else if (kty == "EC" && member("crv") == "P-256") {
    alg = "ES256";
  } else if (kty == "OKP" && member("crv") == "Ed25519") {
    alg = "EdDSA";
  } else {
    return "";
  }
  // A key that names another alg (RS384, PS256, ...) is for that alg only.
  if (key.contains("alg") && member("alg") != alg) return "";
  return alg;
}

}  // namespace

absl::StatusOr<JwkSet> JwkSet::Parse(std::string_view json) {
  absl::StatusOr<Json> doc = ParseJson(json);
  if (!doc.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("the key set is not JSON: ", doc.status().message()));
  }
  if (!doc->is_object()) return absl::InvalidArgumentError("the key set is not a JSON object");
  auto keys = doc->find("keys");
  if (keys == doc->end() || !keys->is_array()) {
    return absl::InvalidArgumentError("the key set has no array 'keys'");
  }
  if (keys->size() > kMaxKeys) {
    return absl::InvalidArgumentError(
        absl::StrCat("the key set lists ", keys->size(), " keys, more than ", kMaxKeys));
  }
  JwkSet set;
  for (size_t i = 0; i < keys->size(); ++i) {
    const Json& key = (*keys)[i];
    if (!key.is_object()) {
      return absl::InvalidArgumentError(absl::StrCat("key #", i + 1, " is not a JSON object"));
    }
    absl::StatusOr<std::string> kid = OptionalString(key, "kid", KeyName("", i));
    if (!kid.ok()) return kid.status();
    std::string who = KeyName(*kid, i);
    absl::StatusOr<std::string> kty = OptionalString(key, "kty", who);
    if (!kty.ok()) return kty.status();
    std::string alg = UsableAlg(key, *kty);
    if (alg.empty()) continue;
    absl::StatusOr<std::shared_ptr<EVP_PKEY>> pkey = alg == "RS256"   ? RsaKey(key, who)
                                                     : alg == "ES256" ? P256Key(key, who)
                                                                      : Ed25519Key(key, who);
    if (!pkey.ok()) return pkey.status();
    if (*pkey == nullptr) continue;  // an RSA key under 2048 bits
    set.keys_.push_back(Jwk{*std::move(kid), *std::move(kty), std::move(alg), *std::move(pkey)});
  }
  return set;
}

const Jwk* JwkSet::Find(const std::string& kid, const std::string& alg) const {
  const Jwk* found = nullptr;
  for (const Jwk& k : keys_) {
    if (k.alg != alg) continue;
    if (!kid.empty()) {
      if (k.kid == kid) return &k;
      continue;
    }
    if (found != nullptr) return nullptr;  // several: the token must say which
    found = &k;
  }
  return found;
}

}  // namespace cub::identity
