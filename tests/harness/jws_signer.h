// Test-only: keys generated with OpenSSL, exported as JWKs, and JWS compact tokens signed with
// them, so the tests of lib/identity verify tokens that a real signer produced.
#ifndef CUB_TESTS_HARNESS_JWS_SIGNER_H_
#define CUB_TESTS_HARNESS_JWS_SIGNER_H_

#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/ecdsa.h>
#include <openssl/evp.h>

#include <memory>
#include <stdexcept>
#include <string>

#include "lib/identity/base64url.h"
#include "lib/util/json.h"

namespace cub::testing {

struct TestKey {
  std::string alg;  // RS256, ES256 or EdDSA
  std::string kid;
  std::shared_ptr<EVP_PKEY> pkey;  // the private key
};

inline std::shared_ptr<EVP_PKEY> OwnKey(EVP_PKEY* p) {
  if (p == nullptr) throw std::runtime_error("OpenSSL could not generate a key");
  return std::shared_ptr<EVP_PKEY>(p, [](EVP_PKEY* k) { EVP_PKEY_free(k); });
}

inline TestKey MakeRsaKey(const std::string& kid, size_t bits = 2048) {
  return {"RS256", kid, OwnKey(EVP_PKEY_Q_keygen(nullptr, nullptr, "RSA", bits))};
}
inline TestKey MakeP256Key(const std::string& kid) {
  return {"ES256", kid, OwnKey(EVP_PKEY_Q_keygen(nullptr, nullptr, "EC", "P-256"))};
}
inline TestKey MakeEd25519Key(const std::string& kid) {
  return {"EdDSA", kid, OwnKey(EVP_PKEY_Q_keygen(nullptr, nullptr, "ED25519"))};
}

inline std::string BnParam(EVP_PKEY* p, const char* name, int pad = 0) {
  BIGNUM* bn = nullptr;
  if (EVP_PKEY_get_bn_param(p, name, &bn) != 1) throw std::runtime_error(name);
  std::string out(pad > 0 ? pad : BN_num_bytes(bn), '\0');
  BN_bn2binpad(bn, reinterpret_cast<unsigned char*>(out.data()), static_cast<int>(out.size()));
  BN_free(bn);
  return identity::Base64UrlEncode(out);
}

// The public half as a JWK (with "alg" and "use" unless `bare`).
inline Json PublicJwk(const TestKey& key, bool bare = false) {
  Json jwk = Json::object();
  EVP_PKEY* p = key.pkey.get();
  if (key.alg == "RS256") {
    jwk["kty"] = "RSA";
    jwk["n"] = BnParam(p, OSSL_PKEY_PARAM_RSA_N);
    jwk["e"] = BnParam(p, OSSL_PKEY_PARAM_RSA_E);
  } else if (key.alg == "ES256") {
    jwk["kty"] = "EC";
    jwk["crv"] = "P-256";
    jwk["x"] = BnParam(p, OSSL_PKEY_PARAM_EC_PUB_X, 32);
    jwk["y"] = BnParam(p, OSSL_PKEY_PARAM_EC_PUB_Y, 32);
  } else {
    jwk["kty"] = "OKP";
    jwk["crv"] = "Ed25519";
    std::string raw(32, '\0');
    size_t len = raw.size();
    EVP_PKEY_get_raw_public_key(p, reinterpret_cast<unsigned char*>(raw.data()), &len);
    jwk["x"] = identity::Base64UrlEncode(raw);
  }
  if (!key.kid.empty()) jwk["kid"] = key.kid;
  if (!bare) {
    jwk["alg"] = key.alg;
    jwk["use"] = "sig";
  }
  return jwk;
}

inline std::string JwksText(std::initializer_list<Json> jwks) {
  Json set = Json::object();
  set["keys"] = Json::array();
  for (const Json& j : jwks) set["keys"].push_back(j);
  return JsonText(set);
}

// The raw JWS signature of `input` (ES256 as R||S).
inline std::string RawSign(const TestKey& key, const std::string& input) {
  EVP_MD_CTX* ctx = EVP_MD_CTX_new();
  const EVP_MD* md = key.alg == "EdDSA" ? nullptr : EVP_sha256();
  size_t len = 0;
  std::string sig;
  if (EVP_DigestSignInit(ctx, nullptr, md, nullptr, key.pkey.get()) != 1 ||
      EVP_DigestSign(ctx, nullptr, &len, reinterpret_cast<const unsigned char*>(input.data()),
                     input.size()) != 1) {
    EVP_MD_CTX_free(ctx);
    throw std::runtime_error("sign");
  }
  sig.resize(len);
  EVP_DigestSign(ctx, reinterpret_cast<unsigned char*>(sig.data()), &len,
                 reinterpret_cast<const unsigned char*>(input.data()), input.size());
  EVP_MD_CTX_free(ctx);
  sig.resize(len);
  if (key.alg != "ES256") return sig;
  const auto* der = reinterpret_cast<const unsigned char*>(sig.data());
  ECDSA_SIG* es = d2i_ECDSA_SIG(nullptr, &der, static_cast<long>(sig.size()));
  std::string raw(64, '\0');
  BN_bn2binpad(ECDSA_SIG_get0_r(es), reinterpret_cast<unsigned char*>(raw.data()), 32);
  BN_bn2binpad(ECDSA_SIG_get0_s(es), reinterpret_cast<unsigned char*>(raw.data()) + 32, 32);
  ECDSA_SIG_free(es);
  return raw;
}

// A token: `header` gets alg and kid from the key unless it names them already.
inline std::string SignJwt(const TestKey& key, const Json& claims, Json header = Json::object()) {
  if (!header.contains("alg")) header["alg"] = key.alg;
  if (!header.contains("kid") && !key.kid.empty()) header["kid"] = key.kid;
  std::string input = identity::Base64UrlEncode(JsonText(header)) + "." +
                      identity::Base64UrlEncode(JsonText(claims));
  return input + "." + identity::Base64UrlEncode(RawSign(key, input));
}

}  // namespace cub::testing

#endif  // CUB_TESTS_HARNESS_JWS_SIGNER_H_
