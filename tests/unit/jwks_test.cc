#include "lib/identity/jwks.h"

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

std::string Message(const absl::StatusOr<JwkSet>& s) { return std::string(s.status().message()); }

TEST_CASE("base64url decoding is strict", "[jwks]") {
  CHECK(Base64UrlDecode("") == std::string());
  CHECK(Base64UrlDecode("QQ") == std::string("A"));
  CHECK(Base64UrlDecode("QUI") == std::string("AB"));
  CHECK(Base64UrlDecode("QUJD") == std::string("ABC"));
  CHECK(Base64UrlDecode("-_8") == std::string("\xfb\xff", 2));
  CHECK_FALSE(Base64UrlDecode("QQ=="));  // padding
  CHECK_FALSE(Base64UrlDecode("QR"));    // unused bits set
  CHECK_FALSE(Base64UrlDecode("Q"));     // no encoding has this length
  CHECK_FALSE(Base64UrlDecode("+/8"));   // the standard alphabet
  CHECK_FALSE(Base64UrlDecode("QU I"));
  for (std::string s : {"", "x", "xy", "\x00\xff\x10", "hello world!"}) {
    CHECK(Base64UrlDecode(Base64UrlEncode(s)) == s);
  }
}

TEST_CASE("a key set of RSA, P-256 and Ed25519 keys parses into usable keys", "[jwks]") {
  auto rsa = MakeRsaKey("r1");
  auto ec = MakeP256Key("e1");
  auto ed = MakeEd25519Key("d1");
  auto set = JwkSet::Parse(JwksText({PublicJwk(rsa), PublicJwk(ec, true), PublicJwk(ed)}));
  REQUIRE(set.ok());
  REQUIRE(set->keys().size() == 3);
  CHECK(set->keys()[0].alg == "RS256");
  CHECK(set->keys()[1].alg == "ES256");
  CHECK(set->keys()[2].alg == "EdDSA");
  CHECK(set->keys()[1].kty == "EC");
  CHECK(set->Find("e1", "ES256") == &set->keys()[1]);
  CHECK(set->Find("e1", "RS256") == nullptr);
  CHECK(set->Find("nope", "RS256") == nullptr);
  CHECK(set->Find("", "EdDSA") == &set->keys()[2]);
  for (const Jwk& k : set->keys()) CHECK(k.key != nullptr);
}

TEST_CASE("Find without a kid needs exactly one key for the alg", "[jwks]") {
  auto a = MakeP256Key("");
  auto b = MakeP256Key("");
  auto one = JwkSet::Parse(JwksText({PublicJwk(a)}));
  REQUIRE(one.ok());
  CHECK(one->Find("", "ES256") != nullptr);
  auto two = JwkSet::Parse(JwksText({PublicJwk(a), PublicJwk(b)}));
  REQUIRE(two.ok());
  CHECK(two->Find("", "ES256") == nullptr);
}

TEST_CASE("keys cub cannot use are skipped, not errors", "[jwks]") {
  auto rsa = MakeRsaKey("r");
  Json enc = PublicJwk(rsa);
  enc["use"] = "enc";
  Json rs384 = PublicJwk(rsa);
  rs384["alg"] = "RS384";
  Json priv = PublicJwk(MakeEd25519Key("p"));
  priv["d"] = "AAAA";
  Json p384 = {{"kty", "EC"}, {"crv", "P-384"}, {"x", "AAAA"}, {"y", "AAAA"}};
  Json oct = {{"kty", "oct"}, {"k", "c2VjcmV0"}};
  Json wrap = PublicJwk(MakeP256Key("w"));
  wrap["key_ops"] = Json::array({"wrapKey"});
  auto small = MakeRsaKey("small", 1024);
  auto set = JwkSet::Parse(JwksText({enc, rs384, priv, p384, oct, wrap, PublicJwk(small)}));
  REQUIRE(set.ok());
  CHECK(set->keys().empty());
}

TEST_CASE("malformed key sets and keys are refused by name", "[jwks]") {
  CHECK(Message(JwkSet::Parse("[]")) == "the key set is not a JSON object");
  CHECK(Message(JwkSet::Parse("{}")) == "the key set has no array 'keys'");
  CHECK(Message(JwkSet::Parse("{\"keys\": [1]}")) == "key #1 is not a JSON object");
  CHECK(JwkSet::Parse("{\"keys\": [], \"keys\": []}").status().code() ==
        absl::StatusCode::kInvalidArgument);  // a duplicate member
  CHECK(JwkSet::Parse("not json").status().code() == absl::StatusCode::kInvalidArgument);

  Json bad_n = PublicJwk(MakeRsaKey("k1"));
  bad_n["n"] = "AQAB=";
  CHECK(Message(JwkSet::Parse(JwksText({bad_n}))) == "key 'k1': member 'n' is not base64url");
  Json no_e = PublicJwk(MakeRsaKey("k2"));
  no_e.erase("e");
  CHECK(Message(JwkSet::Parse(JwksText({no_e}))) == "key 'k2': member 'e' is missing");

  Json short_x = PublicJwk(MakeP256Key("k3"));
  short_x["x"] = "AAAA";
  CHECK(Message(JwkSet::Parse(JwksText({short_x}))) ==
        "key 'k3': members 'x' and 'y' of a P-256 key must be 32 bytes each, not 3 and 32");
  Json off_curve = PublicJwk(MakeP256Key("k4"));
  off_curve["y"] = off_curve["x"];
  CHECK(Message(JwkSet::Parse(JwksText({off_curve}))) ==
        "key 'k4': the point (x, y) is not on the curve P-256");
  Json ed = PublicJwk(MakeEd25519Key(""));
  ed["x"] = Base64UrlEncode("short");
  CHECK(Message(JwkSet::Parse(JwksText({ed}))) ==
        "key #1: member 'x' of an Ed25519 key must be 32 bytes, not 5");
  Json kid_number = PublicJwk(MakeEd25519Key(""));
  kid_number["kid"] = 7;
  CHECK(Message(JwkSet::Parse(JwksText({kid_number}))) == "key #1: member 'kid' is not a string");
}

}  // namespace
}  // namespace cub::identity
