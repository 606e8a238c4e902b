// The OpenID verifier (lib/identity/oidc_verifier.h) against a real HTTP server on loopback
// (tests/harness/static_http.mjs) that serves a discovery document and a key set which the
// test writes, signs tokens with keys it generates, and rewrites to rotate them.
#include "lib/identity/oidc_verifier.h"

#include <unistd.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <thread>

#include "harness/jws_signer.h"
#include "harness/static_http.h"

namespace cub::identity {
namespace {

using cub::testing::JwksText;
using cub::testing::MakeEd25519Key;
using cub::testing::MakeP256Key;
using cub::testing::MakeRsaKey;
using cub::testing::PublicJwk;
using cub::testing::SignJwt;
using cub::testing::StaticHttpServer;
using cub::testing::TestKey;

constexpr char kDiscovery[] = "/.well-known/openid-configuration";

std::string TempDir(const std::string& name) {
  static std::atomic<int> n{0};
  return std::filesystem::temp_directory_path() /
         ("cub_oidc_" + std::to_string(getpid()) + "_" + name + "_" + std::to_string(n++));
}

// A provider: the static server with a discovery document naming `issuer` (its own URL unless
// given) and /jwks.json.
struct Provider {
  std::string dir;
  StaticHttpServer server;
  std::string issuer;

  explicit Provider(const std::string& name, const std::string& suffix = "")
      : dir(TempDir(name)), server(dir), issuer(server.url() + suffix) {
    Discovery(issuer, server.url() + "/jwks.json");
  }
  ~Provider() { std::filesystem::remove_all(dir); }

  void Discovery(const std::string& iss, const std::string& jwks_uri) {
    Json doc = {{"issuer", iss},
                {"jwks_uri", jwks_uri},
                {"id_token_signing_alg_values_supported", {"RS256", "ES256", "EdDSA"}}};
    server.Write(kDiscovery, JsonText(doc));
  }
  void Keys(std::initializer_list<Json> jwks) { server.Write("jwks.json", JwksText(jwks)); }
  int JwksFetches() const { return server.Count("/jwks.json"); }

  std::string Token(const TestKey& key, const std::string& sub = "alice") const {
    absl::Time now = absl::Now();
    return SignJwt(key, Json{{"iss", issuer},
                             {"sub", sub},
                             {"aud", "cubd"},
                             {"iat", absl::ToUnixSeconds(now)},
                             {"exp", absl::ToUnixSeconds(now + absl::Minutes(10))}});
  }
};

Jwt Parsed(const std::string& token) {
  auto jwt = ParseJwt(token);
  REQUIRE(jwt.ok());
  return *std::move(jwt);
}

absl::StatusOr<VerifiedClaims> Verify(OidcVerifier& v, const Provider& p,
                                      const std::string& token) {
  return v.Verify(Parsed(token), p.issuer, {"cubd"}, absl::Now());
}

VerifierOptions Options() {
  net::InitHttpClient();
  VerifierOptions o;
  o.fetch_timeout = absl::Seconds(5);
  return o;
}

TEST_CASE("tokens signed by the issuer's published keys verify", "[oidc]") {
  Provider p("ok");
  auto rsa = MakeRsaKey("r1");
  auto ec = MakeP256Key("e1");
  auto ed = MakeEd25519Key("d1");
  p.Keys({PublicJwk(rsa), PublicJwk(ec), PublicJwk(ed)});
  OidcVerifier v(Options());
  for (const TestKey& key : {rsa, ec, ed}) {
    auto claims = Verify(v, p, p.Token(key, "sub-" + key.kid));
    INFO(claims.status().message());
    REQUIRE(claims.ok());
    CHECK(claims->subject == "sub-" + key.kid);
    CHECK(claims->issuer == p.issuer);
  }
  CHECK(p.server.Count(kDiscovery) == 1);  // fetched once, then cached
  CHECK(p.JwksFetches() == 1);

  auto stranger = MakeRsaKey("r1");  // the same kid, another key
  auto forged = Verify(v, p, p.Token(stranger));
  CHECK(forged.status().code() == absl::StatusCode::kUnauthenticated);
  CHECK(forged.status().message() ==
        "the token's signature does not verify with the keys of issuer " + p.issuer);

  auto wrong_aud = v.Verify(Parsed(p.Token(rsa)), p.issuer, {"cub-cli"}, absl::Now());
  CHECK(wrong_aud.status().message() ==
        "the token is for audience 'cubd', not 'cub-cli' (OpenID issuer " + p.issuer + ")");
  auto expired = v.Verify(Parsed(p.Token(rsa)), p.issuer, {"cubd"}, absl::Now() + absl::Hours(1));
  CHECK(expired.status().code() == absl::StatusCode::kUnauthenticated);
  CHECK(expired.status().message().find("the token expired at ") == 0);
}

TEST_CASE("an issuer with a trailing slash is discovered without a doubled slash", "[oidc]") {
  Provider p("slash", "/");
  auto key = MakeEd25519Key("k");
  p.Keys({PublicJwk(key)});
  OidcVerifier v(Options());
  auto claims = Verify(v, p, p.Token(key));
  INFO(claims.status().message());
  CHECK(claims.ok());
  CHECK(p.server.Count(kDiscovery) == 1);
  CHECK(p.server.Count(std::string("/") + kDiscovery) == 0);
}

TEST_CASE("rotated keys are fetched again on an unknown kid", "[oidc]") {
  Provider p("rotate");
  auto old_key = MakeP256Key("2026-11");
  auto new_key = MakeP256Key("2026-12");
  p.Keys({PublicJwk(old_key)});
  VerifierOptions o = Options();
  o.min_refetch_interval = absl::ZeroDuration();
  OidcVerifier v(o);
  REQUIRE(Verify(v, p, p.Token(old_key)).ok());
  CHECK(p.JwksFetches() == 1);

  p.Keys({PublicJwk(new_key)});                // the provider rotates
  CHECK(Verify(v, p, p.Token(old_key)).ok());  // the cached key, no fetch
  CHECK(p.JwksFetches() == 1);
  auto rotated = Verify(v, p, p.Token(new_key));
  INFO(rotated.status().message());
  CHECK(rotated.ok());
  CHECK(p.JwksFetches() == 2);
  auto retired = Verify(v, p, p.Token(old_key));  // no longer published
  CHECK(retired.status().code() == absl::StatusCode::kUnauthenticated);
  CHECK(retired.status().message() ==
        "the token is signed by key '2026-11', which the issuer does not publish (OpenID issuer " +
            p.issuer + ")");
}

TEST_CASE("a flood of unknown kids costs at most one fetch per interval", "[oidc]") {
  Provider p("flood");
  auto key = MakeRsaKey("real");
  p.Keys({PublicJwk(key)});

  SECTION("within the interval: no refetch at all") {
    VerifierOptions o = Options();
    o.min_refetch_interval = absl::Hours(1);
    OidcVerifier v(o);
    REQUIRE(Verify(v, p, p.Token(key)).ok());
    for (int i = 0; i < 30; ++i) {
      auto made_up = MakeEd25519Key("made-up-" + std::to_string(i));
      auto r = Verify(v, p, p.Token(made_up));
      CHECK(r.status().code() == absl::StatusCode::kUnauthenticated);
      CHECK(IsUnknownKey(r.status()));
    }
    CHECK(p.JwksFetches() == 1);
  }
  SECTION("after the interval: one refetch, however many tokens") {
    VerifierOptions o = Options();
    o.min_refetch_interval = absl::Seconds(1);
    OidcVerifier v(o);
    REQUIRE(Verify(v, p, p.Token(key)).ok());
    std::this_thread::sleep_for(std::chrono::milliseconds(1100));
    absl::Time start = absl::Now();
    auto made_up = MakeEd25519Key("made-up");
    for (int i = 0; i < 30; ++i) CHECK_FALSE(Verify(v, p, p.Token(made_up)).ok());
    // One refetch now, and at most one more per second the loop took.
    int allowed = 2 + static_cast<int>(absl::ToInt64Seconds(absl::Now() - start));
    CHECK(p.JwksFetches() >= 2);
    CHECK(p.JwksFetches() <= allowed);
  }
}

TEST_CASE("concurrent first uses share one fetch", "[oidc]") {
  Provider p("single_flight");
  auto key = MakeP256Key("k");
  p.Keys({PublicJwk(key)});
  OidcVerifier v(Options());
  std::string token = p.Token(key);
  Jwt jwt = Parsed(token);
  std::atomic<int> ok{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < 8; ++i) {
    threads.emplace_back([&] {
      if (v.Verify(jwt, p.issuer, {"cubd"}, absl::Now()).ok()) ++ok;
    });
  }
  for (auto& t : threads) t.join();
  CHECK(ok == 8);
  CHECK(p.server.Count(kDiscovery) == 1);
  CHECK(p.JwksFetches() == 1);
}

TEST_CASE("a discovery document for another issuer is refused", "[oidc]") {
  Provider p("mismatch");
  auto key = MakeRsaKey("k");
  p.Keys({PublicJwk(key)});
  p.Discovery("https://evil.example", p.server.url() + "/jwks.json");
  OidcVerifier v(Options());
  auto r = Verify(v, p, p.Token(key));
  CHECK(r.status().code() == absl::StatusCode::kUnavailable);
  CHECK(r.status().message() ==
        "cannot read the keys of OpenID issuer " + p.issuer + ": " + p.issuer + kDiscovery +
            " names issuer \"https://evil.example\", not \"" + p.issuer + "\"");
  CHECK(p.JwksFetches() == 0);
}

TEST_CASE("a jwks_uri over http to another host is refused", "[oidc]") {
  Provider p("http_jwks");
  auto key = MakeRsaKey("k");
  p.Discovery(p.issuer, "http://keys.example.com/jwks.json");
  OidcVerifier v(Options());
  auto r = Verify(v, p, p.Token(key));
  CHECK(r.status().code() == absl::StatusCode::kUnavailable);
  CHECK(r.status().message() ==
        "cannot read the keys of OpenID issuer " + p.issuer + ": " + p.issuer + kDiscovery +
            ": jwks_uri http://keys.example.com/jwks.json: http:// is accepted only on a "
            "loopback address (127.0.0.1, [::1], localhost); use https://");
}

TEST_CASE("an oversized key set is refused", "[oidc]") {
  Provider p("big");
  auto key = MakeRsaKey("k");
  Json padded = PublicJwk(key);
  padded["x-padding"] = std::string(10000, 'a');
  p.Keys({padded});
  VerifierOptions o = Options();
  o.max_document_bytes = 8192;
  OidcVerifier v(o);
  auto r = Verify(v, p, p.Token(key));
  CHECK(r.status().code() == absl::StatusCode::kUnavailable);
  CHECK(r.status().message() == "cannot read the keys of OpenID issuer " + p.issuer + ": GET " +
                                    p.server.url() +
                                    "/jwks.json: the response is longer than 8192 bytes");
}

TEST_CASE("a provider that is down: UNAVAILABLE, and keys fetched earlier keep working", "[oidc]") {
  Provider p("down");
  auto key = MakeRsaKey("k");
  p.Keys({PublicJwk(key)});
  VerifierOptions o = Options();
  o.min_refetch_interval = absl::ZeroDuration();
  OidcVerifier v(o);
  std::string token = p.Token(key);
  REQUIRE(Verify(v, p, token).ok());

  std::string issuer = p.issuer;
  p.server.Stop();
  CHECK(Verify(v, p, token).ok());  // the cached key
  auto unknown = Verify(v, p, p.Token(MakeRsaKey("other")));
  CHECK(unknown.status().code() == absl::StatusCode::kUnavailable);
  CHECK(unknown.status().message().find("cannot read the keys of OpenID issuer " + issuer +
                                        ": GET " + issuer + kDiscovery + ": ") == 0);
  CHECK(Verify(v, p, token).ok());  // still, after the failed refetch

  OidcVerifier fresh(Options());
  auto none = Verify(fresh, p, token);
  CHECK(none.status().code() == absl::StatusCode::kUnavailable);
  CHECK(none.status().message().find("cannot read the keys of OpenID issuer " + issuer) == 0);
}

TEST_CASE("a failed fetch is remembered for the backoff", "[oidc]") {
  Provider p("backoff");
  auto key = MakeEd25519Key("k");
  p.Keys({PublicJwk(key)});
  std::filesystem::remove(std::filesystem::path(p.dir) / ".well-known/openid-configuration");
  VerifierOptions o = Options();
  o.failure_backoff = absl::Hours(1);
  OidcVerifier v(o);
  auto first = Verify(v, p, p.Token(key));
  CHECK(first.status().code() == absl::StatusCode::kUnavailable);
  CHECK(first.status().message() == "cannot read the keys of OpenID issuer " + p.issuer + ": GET " +
                                        p.issuer + kDiscovery + ": HTTP status 404");
  p.Discovery(p.issuer, p.server.url() + "/jwks.json");  // the provider recovers
  auto second = Verify(v, p, p.Token(key));
  CHECK(second.status().message() == first.status().message());  // answered from memory
  CHECK(p.server.Count(kDiscovery) == 1);

  VerifierOptions quick = Options();
  quick.failure_backoff = absl::ZeroDuration();
  OidcVerifier w(quick);
  CHECK(Verify(w, p, p.Token(key)).ok());
}

TEST_CASE("a key the provider withdraws stops verifying after max_key_age", "[oidc]") {
  Provider p("withdraw");
  auto leaked = MakeRsaKey("k1");
  auto kept = MakeRsaKey("k2");
  p.Keys({PublicJwk(leaked), PublicJwk(kept)});
  VerifierOptions o = Options();
  o.max_key_age = absl::Seconds(2);
  OidcVerifier v(o);
  std::string token = p.Token(leaked);
  REQUIRE(Verify(v, p, token).ok());

  p.Keys({PublicJwk(kept)});  // k1 leaked: the provider stops publishing it
  std::this_thread::sleep_for(std::chrono::milliseconds(2100));
  auto withdrawn = Verify(v, p, token);
  CHECK(withdrawn.status().code() == absl::StatusCode::kUnauthenticated);
  CHECK(withdrawn.status().message() ==
        "the token is signed by key 'k1', which the issuer does not publish (OpenID issuer " +
            p.issuer + ")");
  CHECK(p.JwksFetches() == 2);
  CHECK(Verify(v, p, p.Token(kept)).ok());
}

TEST_CASE("through an outage, keys verify up to max_stale_age, then UNAVAILABLE", "[oidc]") {
  Provider p("stale");
  auto key = MakeP256Key("k");
  p.Keys({PublicJwk(key)});
  VerifierOptions o = Options();
  o.max_key_age = absl::Seconds(1);
  o.max_stale_age = absl::Seconds(3);
  o.failure_backoff = absl::Hours(1);
  OidcVerifier v(o);
  std::string token = p.Token(key);
  REQUIRE(Verify(v, p, token).ok());
  absl::Time fetched = absl::Now();  // the keys were fetched before this

  std::string issuer = p.issuer;
  p.server.Stop();
  std::this_thread::sleep_for(std::chrono::milliseconds(1100));
  auto stale = Verify(v, p, token);  // past max_key_age: the refetch fails, the keys still do
  INFO(stale.status().message());
  CHECK(stale.ok());

  absl::SleepFor(fetched + absl::Milliseconds(3200) - absl::Now());
  auto expired = Verify(v, p, token);
  CHECK(expired.status().code() == absl::StatusCode::kUnavailable);
  std::string msg(expired.status().message());
  CHECK(msg.find("cannot read the keys of OpenID issuer " + issuer + ": GET " + issuer +
                 kDiscovery + ": ") == 0);
  CHECK(msg.find(" are older than max_stale_age (3s)") != std::string::npos);
}

TEST_CASE("calls naming made-up keys do not wait for another call's slow refetch", "[oidc]") {
  Provider p("slow");
  auto key = MakeRsaKey("real");
  p.Keys({PublicJwk(key)});
  VerifierOptions o = Options();
  o.min_refetch_interval = absl::ZeroDuration();
  o.fetch_timeout = absl::Seconds(5);
  OidcVerifier v(o);
  REQUIRE(Verify(v, p, p.Token(key)).ok());
  REQUIRE(p.server.Count(kDiscovery) == 1);

  // The provider now takes a minute to answer: the refetch below ends at fetch_timeout.
  p.server.Write(std::string(kDiscovery) + ".delay_ms", "60000");
  Jwt first = Parsed(p.Token(MakeEd25519Key("made-up-first")));
  absl::Status refetch;
  std::thread fetching(
      [&] { refetch = v.Verify(first, p.issuer, {"cubd"}, absl::Now()).status(); });
  for (int i = 0; i < 500 && p.server.Count(kDiscovery) < 2; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  REQUIRE(p.server.Count(kDiscovery) == 2);  // the refetch is under way

  // Had they waited for that fetch, they would get its failure (UNAVAILABLE) after it.
  constexpr int kThreads = 8;
  std::vector<absl::Status> results(kThreads);
  std::vector<Jwt> tokens;
  for (int i = 0; i < kThreads; ++i) {
    tokens.push_back(Parsed(p.Token(MakeEd25519Key("made-up-" + std::to_string(i)))));
  }
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; ++i) {
    threads.emplace_back(
        [&, i] { results[i] = v.Verify(tokens[i], p.issuer, {"cubd"}, absl::Now()).status(); });
  }
  for (auto& t : threads) t.join();
  for (const absl::Status& r : results) {
    INFO(r.message());
    CHECK(r.code() == absl::StatusCode::kUnauthenticated);
    CHECK(IsUnknownKey(r));
  }
  CHECK(p.server.Count(kDiscovery) == 2);  // no request of their own

  fetching.join();
  CHECK(refetch.code() == absl::StatusCode::kUnavailable);
  CHECK(refetch.message().find("cannot read the keys of OpenID issuer " + p.issuer + ": GET " +
                               p.issuer + kDiscovery + ": ") == 0);
  CHECK(Verify(v, p, p.Token(key)).ok());  // the keys held still verify
}

TEST_CASE("the discovery document and the keys share one fetch_timeout", "[oidc]") {
  Provider p("deadline");
  auto key = MakeEd25519Key("k");
  p.Keys({PublicJwk(key)});
  p.server.Write(std::string(kDiscovery) + ".delay_ms", "1500");
  p.server.Write("jwks.json.delay_ms", "1500");
  VerifierOptions o = Options();
  o.fetch_timeout = absl::Seconds(2);  // enough for either, not for both
  OidcVerifier v(o);
  auto r = Verify(v, p, p.Token(key));
  CHECK(r.status().code() == absl::StatusCode::kUnavailable);
  CHECK(r.status().message().find("cannot read the keys of OpenID issuer " + p.issuer + ": GET " +
                                  p.server.url() + "/jwks.json: ") == 0);
}

TEST_CASE("first uses wait for a slow fetch and share it", "[oidc]") {
  Provider p("slow_first");
  auto key = MakeP256Key("k");
  p.Keys({PublicJwk(key)});
  p.server.Write(std::string(kDiscovery) + ".delay_ms", "500");
  OidcVerifier v(Options());
  Jwt jwt = Parsed(p.Token(key));
  std::atomic<int> ok{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < 4; ++i) {
    threads.emplace_back([&] {
      if (v.Verify(jwt, p.issuer, {"cubd"}, absl::Now()).ok()) ++ok;
    });
  }
  for (auto& t : threads) t.join();
  CHECK(ok == 4);
  CHECK(p.server.Count(kDiscovery) == 1);
}

}  // namespace
}  // namespace cub::identity
