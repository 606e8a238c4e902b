// The checks every cubd call passes at the edge (server/call.h): text fields, the request size
// limit and budget, and the failed-authentication limiter, first as pieces and then through
// the real services on a TCP port.
#include <grpcpp/generic/generic_stub.h>
#include <grpcpp/grpcpp.h>

#include <catch2/catch.hpp>
#include <condition_variable>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <mutex>
#include <string>

#include "cub/v1/auth.grpc.pb.h"
#include "cub/v1/space.grpc.pb.h"
#include "cub/v1/unit.grpc.pb.h"
#include "harness/test_db.h"
#include "lib/ops/users.h"
#include "lib/sign/key_ring.h"
#include "lib/sign/signing_key.h"
#include "lib/util/proto_text.h"
#include "server/auth_limiter.h"
#include "server/call.h"
#include "server/database.h"
#include "server/request_budget.h"
#include "server/services.h"

namespace cub::server {
namespace {

TEST_CASE("CheckTextFields names the field by its JSON path", "[edge]") {
  v1::CreateUnitRequest req;
  req.set_space("home");
  req.set_data(std::string("secret=1\0IGNORED\n", 17));
  absl::Status s = CheckTextFields(req);
  CHECK(s.code() == absl::StatusCode::kInvalidArgument);
  CHECK(s.message() == "Data holds a NUL byte at offset 8; text fields cannot contain NUL bytes");

  req.set_data("ok");
  (*req.mutable_labels())["team"] = "a\xff";
  s = CheckTextFields(req);
  CHECK(s.code() == absl::StatusCode::kInvalidArgument);
  CHECK(s.message() ==
        "Labels[\"team\"] is not valid UTF-8 at byte offset 1; text fields must be UTF-8");

  req.mutable_labels()->clear();
  (*req.mutable_labels())[std::string("k\0", 2)] = "v";
  s = CheckTextFields(req);
  CHECK(s.code() == absl::StatusCode::kInvalidArgument);
  CHECK(s.message() ==
        "Labels key [0] holds a NUL byte at offset 1; text fields cannot contain NUL bytes");

  req.mutable_labels()->clear();
  CHECK(CheckTextFields(req).ok());
  TextFieldLimits limits;
  limits.max_field_bytes = 1;
  limits.limit_name = "--max-unit-bytes";
  s = CheckTextFields(req, limits);
  CHECK(s.code() == absl::StatusCode::kResourceExhausted);
  CHECK(s.message() == "Space holds 4 bytes, more than the limit of 1 bytes (--max-unit-bytes)");
}

TEST_CASE("CheckTextFields walks nested and repeated messages", "[edge]") {
  v1::UnitWithData u;
  u.mutable_unit()->set_slug(std::string("a\0", 2));
  CHECK(CheckTextFields(u).message() ==
        "Unit.Slug holds a NUL byte at offset 1; text fields cannot contain NUL bytes");
  v1::ListUnitsResponse list;
  list.add_units();
  list.add_units()->set_toolchain_type("\xc3");
  CHECK(CheckTextFields(list).message() ==
        "Units[1].ToolchainType is not valid UTF-8 at byte offset 0; text fields must be UTF-8");
}

TEST_CASE("RequestBudget refuses what does not fit and frees on release", "[edge]") {
  RequestBudget budget({/*total=*/100, /*threshold=*/10, /*factor=*/4});
  RequestBudget::Charge small;
  CHECK(budget.Acquire(9, &small).ok());  // under the threshold: free
  CHECK(budget.InUseForTest() == 0);
  {
    RequestBudget::Charge a;
    REQUIRE(budget.Acquire(20, &a).ok());  // 80 of 100
    CHECK(budget.InUseForTest() == 80);
    RequestBudget::Charge b;
    absl::Status refused = budget.Acquire(10, &b);  // 40 more does not fit
    CHECK(refused.code() == absl::StatusCode::kResourceExhausted);
    CHECK(refused.message() ==
          "cubd is busy: this 10-byte request needs 40 bytes of the large-request budget, and 1 "
          "large requests already hold 80 of its 100 bytes (cubd --max-inflight-request-bytes); "
          "retry later");
  }
  CHECK(budget.InUseForTest() == 0);
  RequestBudget::Charge c;
  CHECK(budget.Acquire(25, &c).ok());  // exactly the whole budget
  RequestBudget::Charge d;
  CHECK(!budget.Acquire(30, &d).ok());  // more than the whole budget, ever
}

TEST_CASE("AuthFailureLimiter blocks after the burst and refills", "[edge]") {
  AuthFailureLimiter limiter({/*burst=*/3, /*per_minute=*/60, /*max_addresses=*/2});
  const absl::Time t0 = absl::FromUnixSeconds(1'000'000);
  CHECK(limiter.RetryAfter("a", t0) == absl::ZeroDuration());
  CHECK(!limiter.RecordFailure("a", t0));
  CHECK(!limiter.RecordFailure("a", t0));
  CHECK(limiter.RetryAfter("a", t0) == absl::ZeroDuration());
  CHECK(limiter.RecordFailure("a", t0));  // the third spends the allowance
  CHECK(limiter.RetryAfter("a", t0) == absl::Seconds(1));
  CHECK(limiter.RetryAfter("b", t0) == absl::ZeroDuration());  // others unaffected
  CHECK(limiter.RetryAfter("a", t0 + absl::Seconds(1)) == absl::ZeroDuration());

  // A full table forgets refilled addresses first, then shares one overflow bucket.
  CHECK(!limiter.RecordFailure("b", t0));
  CHECK(limiter.TrackedForTest() == 2);
  CHECK(!limiter.RecordFailure("c", t0));  // nothing refilled: c goes to the overflow bucket
  CHECK(limiter.TrackedForTest() == 2);
  CHECK(!limiter.RecordFailure("d", t0));
  CHECK(limiter.RecordFailure("e", t0));  // c, d, e together spent the overflow allowance
  CHECK(limiter.RetryAfter("f", t0) > absl::ZeroDuration());
  const absl::Time later = t0 + absl::Minutes(5);
  CHECK(!limiter.RecordFailure("g", later));  // a and b refilled and were forgotten
  CHECK(limiter.TrackedForTest() == 1);
}

TEST_CASE("ClientAddress trusts the REST mirror's address only in-process", "[edge]") {
  const std::string http = "203.0.113.7";
  CHECK(ClientAddress("ipv4:127.0.0.1:5000", &http) == "127.0.0.1");
  CHECK(ClientAddress("ipv6:[::1]:5000", nullptr) == "::1");
  CHECK(ClientAddress("unix:/run/cubd.sock", nullptr) == "unix:/run/cubd.sock");
  CHECK(ClientAddress("unknown", &http) == "203.0.113.7");
  CHECK(ClientAddress("unknown", nullptr) == "unknown");
}

// The real services on a TCP port, as cubd serves them.
struct Server {
  explicit Server(const EdgeLimits& limits) {
    const std::string url = testing::FreshDatabaseUrl("call_edge");
    DatabaseOptions opts;
    opts.url = url;
    auto db = OpenDatabase(opts);
    REQUIRE(db.ok());
    pool = std::make_unique<store::ConnectionPool>(db->url, 4);
    store::NewUser admin;
    admin.username = "admin";
    admin.admin = true;
    auto created = ops::CreateUser(*pool, admin);
    REQUIRE(created.ok());
    token = created->token;
    dir = std::filesystem::temp_directory_path() /
          ("call_edge_" + std::to_string(::getpid()) + "_" + std::to_string(std::rand()));
    std::filesystem::create_directories(dir);
    auto k = sign::SigningKey::LoadOrCreate((dir / "key.pem").string());
    REQUIRE(k.ok());
    key = std::make_unique<sign::SigningKey>(*std::move(k));
    env.targets.work_dir = (dir / "work").string();
    env.targets.keys = sign::FixedKeyRing(*key);
    gate = std::make_unique<CallGate>(*pool, limits);
    services = MakeServices(*gate, env);
    grpc::ServerBuilder builder;
    builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port);
    builder.SetMaxReceiveMessageSize(static_cast<int>(MaxRequestBytes(limits)));
    for (auto& s : services) builder.RegisterService(s.get());
    server = builder.BuildAndStart();
    REQUIRE(server);
    channel = grpc::CreateChannel("127.0.0.1:" + std::to_string(port),
                                  grpc::InsecureChannelCredentials());
  }
  ~Server() {
    server->Shutdown();
    std::error_code ignored;
    std::filesystem::remove_all(dir, ignored);
  }

  grpc::Status WhoAmI(const std::string& bearer, const std::string& claimed_addr = "") {
    auto stub = v1::AuthService::NewStub(channel);
    grpc::ClientContext ctx;
    ctx.AddMetadata("authorization", "Bearer " + bearer);
    if (!claimed_addr.empty()) ctx.AddMetadata(kHttpClientAddrKey, claimed_addr);
    v1::WhoAmIResponse resp;
    return stub->WhoAmI(&ctx, v1::WhoAmIRequest(), &resp);
  }

  std::unique_ptr<store::ConnectionPool> pool;
  std::string token;
  std::filesystem::path dir;
  std::unique_ptr<sign::SigningKey> key;
  ops::ReleaseEnv env;
  std::unique_ptr<CallGate> gate;
  std::vector<std::unique_ptr<grpc::Service>> services;
  int port = 0;
  std::unique_ptr<grpc::Server> server;
  std::shared_ptr<grpc::Channel> channel;
};

TEST_CASE("Failed authentication is limited per address, whatever a gRPC client claims",
          "[edge][db]") {
  EdgeLimits limits;
  limits.auth.burst = 5;
  limits.auth.per_minute = 1;
  Server s(limits);
  REQUIRE(s.WhoAmI(s.token).ok());
  for (int i = 0; i < 5; ++i) {
    // A network client naming another HTTP client address each time is still counted as
    // itself.
    grpc::Status st = s.WhoAmI("bad", "198.51.100." + std::to_string(i));
    CHECK(st.error_code() == grpc::StatusCode::UNAUTHENTICATED);
  }
  grpc::Status blocked = s.WhoAmI("bad");
  CHECK(blocked.error_code() == grpc::StatusCode::RESOURCE_EXHAUSTED);
  CHECK_THAT(blocked.error_message(),
             Catch::StartsWith("too many failed authentication attempts from 127.0.0.1; retry in"));
  // While blocked, even a good token is refused unread: a guess must not be checkable then.
  CHECK(s.WhoAmI(s.token).error_code() == grpc::StatusCode::RESOURCE_EXHAUSTED);
}

TEST_CASE("Large text is refused at the edge with RESOURCE_EXHAUSTED", "[edge][db]") {
  EdgeLimits limits;
  limits.max_unit_bytes = 64 << 10;
  Server s(limits);
  auto stub = v1::UnitService::NewStub(s.channel);
  v1::CreateUnitRequest req;
  req.set_space("nowhere");
  req.set_slug("big");
  req.set_toolchain_type("AppConfig/Text");
  req.set_data(std::string((64 << 10) + 1, 'x'));
  grpc::ClientContext ctx;
  ctx.AddMetadata("authorization", "Bearer " + s.token);
  v1::UnitWithData resp;
  grpc::Status st = stub->CreateUnit(&ctx, req, &resp);
  CHECK(st.error_code() == grpc::StatusCode::RESOURCE_EXHAUSTED);
  CHECK(st.error_message() ==
        "Data holds 65537 bytes, more than the limit of 65536 bytes (cubd --max-unit-bytes)");

  // Past the largest request, gRPC itself refuses before cubd parses it.
  req.set_data(std::string(MaxRequestBytes(limits) + 1, 'x'));
  grpc::ClientContext ctx2;
  ctx2.AddMetadata("authorization", "Bearer " + s.token);
  st = stub->CreateUnit(&ctx2, req, &resp);
  CHECK(st.error_code() == grpc::StatusCode::RESOURCE_EXHAUSTED);
}

// A refusal's message longer than a client takes in a header (8 KiB by default) is cut by cubd,
// so that the client still reads the code and the start of the message rather than a transport
// error ("received initial metadata size exceeds limit").
TEST_CASE("A refusal too long for a header arrives cut, with its code", "[edge][db]") {
  Server s(EdgeLimits{});
  auto stub = v1::SpaceService::NewStub(s.channel);
  const auto get = [&](const std::string& name) {
    v1::GetSpaceRequest req;
    req.set_space(name);
    grpc::ClientContext ctx;
    ctx.AddMetadata("authorization", "Bearer " + s.token);
    v1::Space resp;
    return stub->GetSpace(&ctx, req, &resp);
  };
  const std::string long_name(20000, 'n');
  grpc::Status st = get(long_name);
  CHECK(st.error_code() == grpc::StatusCode::NOT_FOUND);
  CHECK_THAT(st.error_message(), Catch::StartsWith("space 'nnnn"));
  CHECK_THAT(st.error_message(), Catch::EndsWith(" more bytes)"));
  CHECK(st.error_message().size() <= 2048);
  // Non-ASCII text encodes to three bytes a byte: cut sooner, never inside a character.
  std::string wide;
  for (int i = 0; i < 1500; ++i) wide += "\xc3\xa9";  // U+00E9, 3000 bytes in all
  st = get(wide);
  CHECK(st.error_code() == grpc::StatusCode::NOT_FOUND);
  CHECK_THAT(st.error_message(), Catch::EndsWith(" more bytes)"));
  const std::string msg = st.error_message();
  const size_t tail = msg.rfind(" ... (");
  REQUIRE(tail != std::string::npos);
  CHECK((tail - std::string("space '").size()) % 2 == 0);  // whole characters only
  // A message that fits is sent whole.
  st = get("short");
  CHECK(st.error_message() == "space 'short' not found");
}

}  // namespace
}  // namespace cub::server

namespace cub::server {
namespace {

// A gRPC client that sends a string that is not UTF-8 (cub refuses to) is refused by gRPC's
// own parsing of the request, before cubd sees it: nothing is stored.
TEST_CASE("Invalid UTF-8 over gRPC is refused and nothing is stored", "[edge][db]") {
  Server s(EdgeLimits{});
  v1::CreateUnitRequest req;
  req.set_space("home");
  req.set_slug("latin");
  req.set_toolchain_type("AppConfig/Text");
  req.set_data("caf\xe9\n");
  std::string bytes;
  req.SerializeToString(&bytes);  // logs that the field is not UTF-8, and serializes it anyway
  grpc::Slice slice(bytes);
  grpc::ByteBuffer request(&slice, 1);
  grpc::ByteBuffer response;
  grpc::GenericStub stub(s.channel);
  grpc::ClientContext ctx;
  ctx.AddMetadata("authorization", "Bearer " + s.token);
  std::mutex mu;
  std::condition_variable cv;
  bool done = false;
  grpc::Status status;
  stub.UnaryCall(&ctx, "/cub.v1.UnitService/CreateUnit", grpc::StubOptions(), &request, &response,
                 [&](grpc::Status st) {
                   std::lock_guard<std::mutex> l(mu);
                   status = std::move(st);
                   done = true;
                   cv.notify_one();
                 });
  std::unique_lock<std::mutex> l(mu);
  cv.wait(l, [&] { return done; });
  UNSCOPED_INFO("code " << status.error_code() << ": " << status.error_message());
  CHECK(status.error_code() == grpc::StatusCode::INTERNAL);
  auto units = v1::UnitService::NewStub(s.channel);
  grpc::ClientContext list_ctx;
  list_ctx.AddMetadata("authorization", "Bearer " + s.token);
  v1::ListUnitsRequest list;
  list.set_space("*");
  v1::ListUnitsResponse listed;
  REQUIRE(units->ListUnits(&list_ctx, list, &listed).ok());
  CHECK(listed.units_size() == 0);
}

}  // namespace
}  // namespace cub::server
