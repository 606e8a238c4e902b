#include "lib/identity/jwt.h"

#include <catch2/catch.hpp>

#include "../harness/jws_signer.h"
#include "lib/identity/base64url.h"

namespace cub::identity {
namespace {

using cub::testing::JwksText;
using cub::testing::MakeEd25519Key;
using cub::testing::MakeP256Key;
using cub::testing::MakeRsaKey;
using cub::testing::PublicJwk;
using cub::testing::SignJwt;
using cub::testing::TestKey;

const absl::Time kNow = absl::FromUnixSeconds(1800000000);  // 2027-01-15T08:00:00Z

Json Claims() {
  return Json{{"iss", "https://idp.example"},
              {"sub", "alice"},
              {"aud", "cub"},
              {"exp", 1800000000 + 600},
              {"iat", 1800000000 - 10}};
}

ClaimRules Rules() { return ClaimRules{"https://idp.example", {"cub"}, kNow}; }

JwkSet Keys(std::initializer_list<Json> jwks) {
  auto set = JwkSet::Parse(JwksText(jwks));
  REQUIRE(set.ok());
  return *std::move(set);
}

Jwt Parsed(const std::string& token) {
  auto jwt = ParseJwt(token);
  INFO(jwt.status().message());
  REQUIRE(jwt.ok());
  return *std::move(jwt);
}

std::string VerifyMessage(const std::string& token, const JwkSet& keys) {
  return std::string(VerifySignature(Parsed(token), keys).message());
}

std::string ParseMessage(std::string_view token) {
  return std::string(ParseJwt(token).status().message());
}

std::string ClaimsMessage(const Json& claims, const ClaimRules& rules = Rules()) {
  Jwt jwt;
  jwt.claims = claims;
  return std::string(CheckClaims(jwt, rules).status().message());
}

std::string Part(const Json& j) { return Base64UrlEncode(JsonText(j)); }

TEST_CASE("tokens signed with RS256, ES256 and EdDSA verify", "[jwt]") {
  for (TestKey key : {MakeRsaKey("r1"), MakeP256Key("e1"), MakeEd25519Key("d1")}) {
    INFO(key.alg);
    JwkSet keys = Keys({PublicJwk(key)});
    std::string token = SignJwt(key, Claims());
    CHECK(LooksLikeJwt(token));
    Jwt jwt = Parsed(token);
    CHECK(jwt.alg == key.alg);
    CHECK(jwt.kid == key.kid);
    CHECK(VerifySignature(jwt, keys).ok());
    auto claims = CheckClaims(jwt, Rules());
    REQUIRE(claims.ok());
    CHECK(claims->subject == "alice");
    CHECK(claims->issuer == "https://idp.example");
    CHECK(claims->audiences == std::vector<std::string>{"cub"});
    CHECK(claims->expires_at == kNow + absl::Seconds(600));
    CHECK(claims->issued_at == kNow - absl::Seconds(10));
  }
}

TEST_CASE("a tampered payload or another key's signature does not verify", "[jwt]") {
  for (TestKey key : {MakeRsaKey("k"), MakeP256Key("k"), MakeEd25519Key("k")}) {
    INFO(key.alg);
    std::string token = SignJwt(key, Claims());
    Json evil = Claims();
    evil["sub"] = "root";
    size_t dot = token.find('.');
    std::string tampered =
        token.substr(0, dot + 1) + Part(evil) + token.substr(token.find('.', dot + 1));
    JwkSet keys = Keys({PublicJwk(key)});
    CHECK(VerifyMessage(tampered, keys) == "the token's signature does not verify with key 'k'");
    TestKey other = key.alg == "RS256"   ? MakeRsaKey("k")
                    : key.alg == "ES256" ? MakeP256Key("k")
                                         : MakeEd25519Key("k");
    absl::Status wrong = VerifySignature(Parsed(token), Keys({PublicJwk(other)}));
    CHECK(wrong.code() == absl::StatusCode::kUnauthenticated);
    CHECK(wrong.message() == "the token's signature does not verify with key 'k'");
    CHECK_FALSE(IsUnknownKey(wrong));
  }
}

TEST_CASE("an unknown kid is reported as such, so the caller can refetch", "[jwt]") {
  auto key = MakeP256Key("old");
  auto rotated = MakeP256Key("new");
  absl::Status s = VerifySignature(Parsed(SignJwt(rotated, Claims())), Keys({PublicJwk(key)}));
  CHECK(s.code() == absl::StatusCode::kUnauthenticated);
  CHECK(s.message() == "the token is signed by key 'new', which the issuer does not publish");
  CHECK(IsUnknownKey(s));
  CHECK_FALSE(IsUnknownKey(absl::OkStatus()));
  CHECK_FALSE(IsUnknownKey(absl::UnauthenticatedError("x")));
}

TEST_CASE("a token without kid verifies when the issuer has one key for its alg", "[jwt]") {
  auto a = MakeEd25519Key("a");
  auto b = MakeEd25519Key("b");
  auto anonymous = MakeEd25519Key("");
  std::string token = SignJwt(anonymous, Claims());
  CHECK(Parsed(token).kid.empty());
  CHECK(VerifySignature(Parsed(token), Keys({PublicJwk(anonymous), PublicJwk(MakeRsaKey("r"))}))
            .ok());
  CHECK(VerifyMessage(SignJwt(TestKey{"EdDSA", "", a.pkey}, Claims()),
                      Keys({PublicJwk(a), PublicJwk(b)})) ==
        "the token names no key (kid) and the issuer publishes 2 EdDSA keys");
  absl::Status none = VerifySignature(Parsed(token), Keys({PublicJwk(MakeRsaKey("r"))}));
  CHECK(none.message() == "the token names no key (kid) and the issuer publishes no EdDSA key");
  CHECK(IsUnknownKey(none));
}

TEST_CASE("alg none, HS256 and other algs are refused by name", "[jwt]") {
  JwkSet keys = Keys({PublicJwk(MakeRsaKey("k"))});
  std::string unsigned_token = Part({{"alg", "none"}}) + "." + Part(Claims()) + ".";
  CHECK_FALSE(LooksLikeJwt(unsigned_token));
  CHECK(VerifyMessage(unsigned_token, keys) ==
        "the token is signed with alg none, which cubd does not accept (only RS256, ES256 and "
        "EdDSA)");
  std::string hs = Part({{"alg", "HS256"}, {"kid", "k"}}) + "." + Part(Claims()) + ".c2ln";
  absl::Status s = VerifySignature(Parsed(hs), keys);
  CHECK(s.code() == absl::StatusCode::kUnauthenticated);
  CHECK(s.message() ==
        "the token is signed with alg HS256, which cubd does not accept (only RS256, ES256 and "
        "EdDSA)");
  CHECK_FALSE(IsUnknownKey(s));
  std::string ps = Part({{"alg", "PS256"}}) + "." + Part(Claims()) + ".c2ln";
  CHECK(VerifyMessage(ps, keys) ==
        "the token is signed with alg PS256, which cubd does not accept (only RS256, ES256 and "
        "EdDSA)");
}

TEST_CASE("a token whose alg differs from its key's is refused", "[jwt]") {
  auto rsa = MakeRsaKey("k");
  auto ec = MakeP256Key("k");
  // An ES256 token naming the RSA key's kid.
  std::string token = SignJwt(ec, Claims());
  CHECK(VerifyMessage(token, Keys({PublicJwk(rsa)})) ==
        "the token is signed with alg ES256 but key 'k' is a key for RS256");
  // The RSA key relabelled RS256 -> ES256 in the token header cannot verify either.
  std::string relabelled = SignJwt(rsa, Claims(), Json{{"alg", "ES256"}});
  CHECK_FALSE(VerifySignature(Parsed(relabelled), Keys({PublicJwk(rsa)})).ok());
}

TEST_CASE("an ES256 signature must be 64 bytes of R||S", "[jwt]") {
  auto ec = MakeP256Key("e");
  std::string token = SignJwt(ec, Claims());
  std::string input = token.substr(0, token.rfind('.'));
  JwkSet keys = Keys({PublicJwk(ec)});
  CHECK(VerifyMessage(input + "." + Base64UrlEncode(std::string(63, 'x')), keys) ==
        "the token's ES256 signature is 63 bytes, not 64");
  // The DER form OpenSSL writes is not the JWS form.
  CHECK(VerifyMessage(input + "." + Base64UrlEncode(std::string(70, '\x30')), keys) ==
        "the token's ES256 signature is 70 bytes, not 64");
  CHECK(VerifyMessage(input + "." + Base64UrlEncode(std::string(64, '\0')), keys) ==
        "the token's signature does not verify with key 'e'");
}

TEST_CASE("malformed tokens are refused naming the part", "[jwt]") {
  std::string claims = Part(Claims());
  std::string header = Part({{"alg", "RS256"}});
  CHECK(ParseMessage("abc") ==
        "the token has 1 parts separated by '.', not 3 "
        "(header.payload.signature)");
  CHECK(ParseMessage("a.b.c.d").find("has 4 parts") != std::string::npos);
  CHECK(ParseMessage(header + "=." + claims + ".c2ln") == "the token's header is not base64url");
  CHECK(ParseMessage(header + "." + claims + "==.c2ln") == "the token's payload is not base64url");
  CHECK(ParseMessage(header + "." + claims + ".c2l+") == "the token's signature is not base64url");
  CHECK(ParseMessage(Part("x") + "." + claims + ".c2ln") ==
        "the token's header is not a JSON object");
  CHECK(ParseMessage(header + "." + Part(Json::array({1})) + ".c2ln") ==
        "the token's payload is not a JSON object");
  CHECK(ParseMessage(header + "." + Base64UrlEncode("{\"a\":1,\"a\":2}") + ".c2ln") ==
        "the token's payload is not a JSON object");
  CHECK(ParseMessage(header + "." + Base64UrlEncode("not json") + ".c2ln") ==
        "the token's payload is not a JSON object");
  CHECK(ParseMessage(Part({{"typ", "JWT"}}) + "." + claims + ".c2ln") == "the token names no alg");
  CHECK(ParseMessage(Part({{"alg", 5}}) + "." + claims + ".c2ln") == "the token names no alg");
  CHECK(ParseMessage(Part({{"alg", "RS256"}, {"kid", 5}}) + "." + claims + ".c2ln") ==
        "the token's kid is not a string");
  CHECK(ParseMessage(Part({{"alg", "RS256"}, {"crit", {"exp"}}, {"exp", 1}}) + "." + claims +
                     ".c2ln") ==
        "the token's header has a 'crit' member (critical extensions), which cubd does not "
        "understand");
  CHECK_FALSE(LooksLikeJwt("cub_abcdef"));
  CHECK_FALSE(LooksLikeJwt("eyJ.b"));
  CHECK_FALSE(LooksLikeJwt("eyJ.b.c!"));
}

TEST_CASE("an oversized token is refused before decoding", "[jwt]") {
  std::string huge = Part({{"alg", "RS256"}}) + "." + std::string(kMaxJwtBytes, 'A') + ".c2ln";
  CHECK_FALSE(LooksLikeJwt(huge));
  absl::StatusOr<Jwt> jwt = ParseJwt(huge);
  CHECK(jwt.status().code() == absl::StatusCode::kInvalidArgument);
  CHECK(jwt.status().message() == "the token is longer than 16384 bytes");
}

TEST_CASE("the registered claims are checked", "[jwt]") {
  Json c = Claims();
  c["iss"] = "https://evil.example";
  CHECK(ClaimsMessage(c) ==
        "the token was issued by 'https://evil.example', not 'https://idp.example'");
  c = Claims();
  c.erase("iss");
  CHECK(ClaimsMessage(c) == "the token names no issuer (iss)");

  c = Claims();
  c["aud"] = Json::array({"other", "cub"});
  Jwt jwt;
  jwt.claims = c;
  auto ok = CheckClaims(jwt, Rules());
  REQUIRE(ok.ok());
  CHECK(ok->audiences == std::vector<std::string>{"other", "cub"});
  c["aud"] = "x";
  CHECK(ClaimsMessage(c) == "the token is for audience 'x', not 'cub'");
  c["aud"] = Json::array({"x", "y"});
  ClaimRules two = Rules();
  two.audiences = {"cub", "cub-cli"};
  CHECK(ClaimsMessage(c, two) == "the token is for audiences 'x', 'y', not 'cub' or 'cub-cli'");
  c["aud"] = Json::array({"cub", 3});
  CHECK(ClaimsMessage(c) == "the token's audience (aud) holds a non-string");
  c.erase("aud");
  CHECK(ClaimsMessage(c) == "the token names no audience (aud)");

  c = Claims();
  c["exp"] = 1800000000 - 61;
  CHECK(ClaimsMessage(c) == "the token expired at 2027-01-15T07:58:59Z");
  c["exp"] = 1800000000 - 59;  // within the skew
  jwt.claims = c;
  CHECK(CheckClaims(jwt, Rules()).ok());
  c["exp"] = 1800000000.5;
  jwt.claims = c;
  CHECK(CheckClaims(jwt, Rules()).ok());
  c["exp"] = "tomorrow";
  CHECK(ClaimsMessage(c) == "the token's claim 'exp' is not a number of seconds");
  c.erase("exp");
  CHECK(ClaimsMessage(c) == "the token has no expiry (exp)");

  c = Claims();
  c["nbf"] = 1800000000 + 61;
  CHECK(ClaimsMessage(c) == "the token is not valid before 2027-01-15T08:01:01Z");
  c["nbf"] = 1800000000 + 59;
  jwt.claims = c;
  CHECK(CheckClaims(jwt, Rules()).ok());
  c = Claims();
  c["iat"] = 1800000000 + 3600;
  CHECK(ClaimsMessage(c) == "the token was issued in the future, at 2027-01-15T09:00:00Z");
  c.erase("iat");
  jwt.claims = c;
  auto no_iat = CheckClaims(jwt, Rules());
  REQUIRE(no_iat.ok());
  CHECK(no_iat->issued_at == absl::InfinitePast());

  c = Claims();
  c.erase("sub");
  CHECK(ClaimsMessage(c) == "the token names no subject (sub)");
  c["sub"] = "";
  CHECK(ClaimsMessage(c) == "the token names no subject (sub)");
  c["sub"] = 42;
  CHECK(ClaimsMessage(c) == "the token names no subject (sub)");
}

TEST_CASE("a huge exp does not overflow", "[jwt]") {
  Jwt jwt;
  jwt.claims = Claims();
  jwt.claims["exp"] = 18446744073709551615ull;
  auto c = CheckClaims(jwt, Rules());
  REQUIRE(c.ok());
  CHECK(c->expires_at == absl::InfiniteFuture());
  jwt.claims["exp"] = 1e300;
  CHECK(CheckClaims(jwt, Rules()).ok());
  jwt.claims["exp"] = -9223372036854775807ll;
  CHECK(CheckClaims(jwt, Rules()).status().message().find("expired") != std::string::npos);
}

TEST_CASE("ClaimText and ClaimStrings read other claims", "[jwt]") {
  Json c = {{"name", "Alice"}, {"n", 42},
            {"b", true},       {"obj", {{"a", 1}}},
            {"nul", nullptr},  {"groups", {"dev", "ops"}},
            {"one", "dev"},    {"mixed", {"dev", 1}}};
  CHECK(ClaimText(c, "name") == std::string("Alice"));
  CHECK(ClaimText(c, "n") == std::string("42"));
  CHECK(ClaimText(c, "b") == std::string("true"));
  CHECK_FALSE(ClaimText(c, "obj"));
  CHECK_FALSE(ClaimText(c, "nul"));
  CHECK_FALSE(ClaimText(c, "groups"));
  CHECK_FALSE(ClaimText(c, "absent"));
  CHECK(*ClaimStrings(c, "groups") == std::vector<std::string>{"dev", "ops"});
  CHECK(*ClaimStrings(c, "one") == std::vector<std::string>{"dev"});
  CHECK(ClaimStrings(c, "absent")->empty());
  CHECK(ClaimStrings(c, "nul")->empty());
  CHECK(ClaimStrings(c, "mixed").status().message() ==
        "the token's claim 'mixed' holds a value of kind int, not only strings");
  CHECK(ClaimStrings(c, "n").status().message() ==
        "the token's claim 'n' is a value of kind int, not a string or a list of strings");
  CHECK(ClaimStrings(c, "n").status().code() == absl::StatusCode::kInvalidArgument);
}

TEST_CASE("every one-character change to a signed token is refused", "[jwt]") {
  // Strict base64url gives each token one spelling, so a change either fails to decode or
  // changes the signed bytes or the signature.
  for (TestKey key : {MakeP256Key("k"), MakeEd25519Key("k")}) {
    JwkSet keys = Keys({PublicJwk(key)});
    std::string token = SignJwt(key, Claims());
    for (size_t i = 0; i < token.size(); ++i) {
      for (char c : {'A', 'B', 'f', '_', '-', '.', '='}) {
        if (token[i] == c) continue;
        std::string changed = token;
        changed[i] = c;
        absl::StatusOr<Jwt> jwt = ParseJwt(changed);
        INFO(changed);
        CHECK((!jwt.ok() || !VerifySignature(*jwt, keys).ok()));
      }
    }
  }
}

TEST_CASE("deeply nested JSON in a token neither crashes nor is accepted blindly", "[jwt]") {
  std::string deep = std::string(6000, '[') + std::string(6000, ']');
  std::string header = Part({{"alg", "EdDSA"}});
  CHECK(ParseMessage(header + "." + Base64UrlEncode(deep) + ".c2ln") ==
        "the token's payload is not a JSON object");
  std::string nested = "{\"sub\":" + deep + "}";
  absl::StatusOr<Jwt> jwt = ParseJwt(header + "." + Base64UrlEncode(nested) + ".c2ln");
  REQUIRE(jwt.ok());  // within kMaxJwtBytes, and the signature check comes next
  CHECK_FALSE(ClaimText(jwt->claims, "sub"));
  CHECK_FALSE(ClaimStrings(jwt->claims, "sub").ok());
  CHECK_FALSE(VerifySignature(*jwt, Keys({PublicJwk(MakeEd25519Key("k"))})).ok());
}

}  // namespace
}  // namespace cub::identity
