// A small gRPC client for the e2e tests (grpc_health_probe is not in Debian):
//
//   grpc_probe health ADDR [SERVICE]       asks grpc.health.v1.Health/Check; prints the status
//                                          (SERVING, NOT_SERVING, ...) or the call's error code
//                                          (NOT_FOUND for a service the server does not know);
//                                          exits 0 only for SERVING
//   grpc_probe call ADDR METHOD [REQUEST_ID]
//                                          calls METHOD ("/cub.v1.AuthService/GetLoginConfig")
//                                          with an empty request, sending x-request-id when
//                                          given; prints the code and the x-request-id the
//                                          server returned in its initial metadata
//
// The messages are encoded by hand (HealthCheckRequest{string service = 1},
// HealthCheckResponse{ServingStatus status = 1}): the health proto is not in Debian's packages.
#include <grpcpp/generic/generic_stub.h>
#include <grpcpp/grpcpp.h>
#include <grpcpp/support/byte_buffer.h>

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <string>

namespace {

grpc::Status Call(const std::string& addr, const std::string& method, const std::string& body,
                  const std::string& request_id, std::string* response, std::string* got_id) {
  auto channel = grpc::CreateChannel(addr, grpc::InsecureChannelCredentials());
  grpc::GenericStub stub(channel);
  grpc::ClientContext ctx;
  ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(5));
  if (!request_id.empty()) ctx.AddMetadata("x-request-id", request_id);
  grpc::Slice slice(body);
  grpc::ByteBuffer request(&slice, 1), reply;
  std::mutex mu;
  std::condition_variable cv;
  bool done = false;
  grpc::Status result;
  stub.UnaryCall(&ctx, method, grpc::StubOptions(), &request, &reply, [&](grpc::Status s) {
    std::lock_guard<std::mutex> l(mu);
    result = std::move(s);
    done = true;
    cv.notify_one();
  });
  std::unique_lock<std::mutex> l(mu);
  cv.wait(l, [&] { return done; });
  std::vector<grpc::Slice> slices;
  if (result.ok() && reply.Dump(&slices).ok()) {
    for (const auto& s : slices)
      response->append(reinterpret_cast<const char*>(s.begin()), s.size());
  }
  const auto& md = ctx.GetServerInitialMetadata();
  if (auto it = md.find("x-request-id"); it != md.end())
    got_id->assign(it->second.data(), it->second.size());
  return result;
}

const char* CodeName(grpc::StatusCode c) {
  static const char* names[] = {"OK",
                                "CANCELLED",
                                "UNKNOWN",
                                "INVALID_ARGUMENT",
                                "DEADLINE_EXCEEDED",
                                "NOT_FOUND",
                                "ALREADY_EXISTS",
                                "PERMISSION_DENIED",
                                "RESOURCE_EXHAUSTED",
                                "FAILED_PRECONDITION",
                                "ABORTED",
                                "OUT_OF_RANGE",
                                "UNIMPLEMENTED",
                                "INTERNAL",
                                "UNAVAILABLE",
                                "DATA_LOSS",
                                "UNAUTHENTICATED"};
  int i = static_cast<int>(c);
  return i >= 0 && i <= 16 ? names[i] : "?";
}

int Usage() {
  std::fprintf(stderr, "usage: grpc_probe health ADDR [SERVICE] | call ADDR METHOD [REQUEST_ID]\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) return Usage();
  const std::string cmd = argv[1], addr = argv[2];
  std::string response, got_id;
  if (cmd == "health") {
    const std::string service = argc > 3 ? argv[3] : "";
    if (service.size() > 127) return Usage();
    std::string body;
    if (!service.empty())
      body = std::string("\x0a", 1) + static_cast<char>(service.size()) + service;
    grpc::Status s = Call(addr, "/grpc.health.v1.Health/Check", body, "", &response, &got_id);
    if (!s.ok()) {
      std::printf("%s\n", CodeName(s.error_code()));
      return 1;
    }
    int status = 0;  // UNKNOWN, absent from the wire when 0
    if (response.size() >= 2 && response[0] == 0x08)
      status = static_cast<unsigned char>(response[1]);
    static const char* statuses[] = {"UNKNOWN", "SERVING", "NOT_SERVING", "SERVICE_UNKNOWN"};
    std::printf("%s\n", status >= 0 && status <= 3 ? statuses[status] : "?");
    return status == 1 ? 0 : 1;
  }
  if (cmd == "call" && argc >= 4) {
    grpc::Status s = Call(addr, argv[3], "", argc > 4 ? argv[4] : "", &response, &got_id);
    std::printf("code=%s request_id=%s\n", CodeName(s.error_code()), got_id.c_str());
    return 0;
  }
  return Usage();
}
