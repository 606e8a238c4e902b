// Benchmark of signing and checking Release provenance (lib/sign): COUNT in-toto statements
// shaped like a Release's provenance (10 Units), each signed as a DSSE envelope with the server's
// kind of key, then checked as a delivery checks them (the envelope read back from its JSON and
// verified against the trusted keys) three ways:
//   - right after signing, in the same process: what a Stage publish's delivery does (the
//     signatures are in the memo of verified signatures, lib/sign/verified_signatures.h);
//   - after the memo has been filled with other entries, so every signature is verified in full
//     (what a cubd that did not sign them, or a restarted one, does).
// Prints wall-clock and CPU time for each; asserts nothing but that every check passes.
//
//   verify_bench [COUNT]     (default 1000)

#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "lib/sign/dsse.h"
#include "lib/sign/key_ring.h"
#include "lib/sign/ring_verify.h"
#include "lib/sign/signing_key.h"
#include "lib/sign/statement.h"
#include "lib/sign/verified_signatures.h"
#include "lib/util/json.h"
#include "lib/util/sha256.h"

namespace {

using Clock = std::chrono::steady_clock;

double CpuSeconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_utime.tv_sec + u.ru_stime.tv_sec + (u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

// A predicate like ops::ProvenancePredicate's for Release 1 of Space `space`.
cub::Json Predicate(const std::string& space) {
  cub::Json units = cub::Json::array();
  for (int i = 1; i <= 10; ++i) {
    units.push_back({{"Unit", "svc" + std::to_string(i)},
                     {"RevisionNum", 3},
                     {"DataHash", "sha256:" + cub::Sha256Hex(space + std::to_string(i))}});
  }
  cub::Json p = cub::Json::object();
  p["Space"] = space;
  p["SpaceID"] = "00000000-0000-4000-8000-000000000001";
  p["Target"] = "bench-workflows/gitops";
  p["ReleaseNum"] = 1;
  p["ChangeOrder"] = "bench-base/bench-v2";
  p["RevisionSelector"] = "ChangeOrder:bench-base/bench-v2";
  p["Description"] = "bench";
  p["Units"] = std::move(units);
  p["PublishedBy"] = "bench";
  p["PublishedAt"] = "2026-12-04T02:00:00Z";
  return p;
}

// Checks every envelope as the delivery does; prints the figures under `label`.
void CheckAll(const char* label, const std::vector<std::string>& envelopes,
              const cub::sign::KeySnapshot& keys) {
  const auto t0 = Clock::now();
  const double c0 = CpuSeconds();
  for (const std::string& json : envelopes) {
    auto env = cub::sign::Envelope::FromJson(json);
    if (!env.ok() || !cub::sign::VerifyEnvelopeTrusted(*env, keys).ok()) {
      std::fprintf(stderr, "verify_bench: an envelope does not verify\n");
      std::exit(1);
    }
  }
  std::printf("%-52s %8.1f ms wall %8.1f ms CPU\n", label,
              std::chrono::duration<double>(Clock::now() - t0).count() * 1e3,
              (CpuSeconds() - c0) * 1e3);
}

}  // namespace

int main(int argc, char** argv) {
  const int count = argc > 1 ? std::atoi(argv[1]) : 1000;
  auto key = cub::sign::SigningKey::Generate();
  if (!key.ok() || count <= 0) return 2;
  cub::sign::KeySnapshot keys;
  keys.trusted.push_back({key->KeyId(), key->PublicKeyPem()});

  std::vector<std::string> statements;
  for (int i = 0; i < count; ++i) {
    const std::string space = "bench-prod-" + std::to_string(i + 1);
    statements.push_back(cub::sign::Statement({{space + "/release-1", cub::Sha256Hex(space)}},
                                              "https://cub.dev/provenance/v1", Predicate(space)));
  }
  const auto t0 = Clock::now();
  const double c0 = CpuSeconds();
  std::vector<std::string> envelopes;
  for (const std::string& s : statements) {
    envelopes.push_back(cub::sign::SignEnvelope(*key, cub::sign::kInTotoPayloadType, s).ToJson());
  }
  std::printf("%d statements of %zu bytes, envelopes of %zu bytes\n", count, statements[0].size(),
              envelopes[0].size());
  std::printf("%-52s %8.1f ms wall %8.1f ms CPU\n", "sign",
              std::chrono::duration<double>(Clock::now() - t0).count() * 1e3,
              (CpuSeconds() - c0) * 1e3);
  CheckAll("check right after signing (as a publish delivers)", envelopes, keys);
  for (size_t i = 0; i < cub::sign::kMaxRemembered; ++i) {
    cub::sign::RememberVerified("bench", std::to_string(i), "bench");
  }
  CheckAll("check in full (signatures not remembered)", envelopes, keys);
  return 0;
}
