// Server-streaming methods on the REST mirror: one gRPC call through the generic stub on the
// in-process channel, relayed to an HTTP response as server-sent events (rest_gateway.h says
// what a client sees). Knows nothing of any method: messages arrive as bytes and leave as the
// text an `encode` function makes of them.
//
// Threads. The handler's thread starts the call and waits for its first message (so an error
// before it can still be a plain JSON error response); the rest is relayed by a thread of the
// call's own, started once the HTTP server hands over the response's stream. That thread
// polls every half second whether the HTTP client has gone, and cancels the call if so; after
// a while without a message (15 s by default) it writes the comment line ": keep-alive" (which
// event-stream clients ignore), so proxies keep the connection and a dead client is noticed.
#ifndef CUB_SERVER_REST_STREAM_H_
#define CUB_SERVER_REST_STREAM_H_

#include <grpcpp/channel.h>
#include <grpcpp/client_context.h>
#include <grpcpp/completion_queue.h>
#include <grpcpp/generic/generic_stub.h>
#include <grpcpp/support/byte_buffer.h>

#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/statusor.h"
#include "server/http_server.h"

namespace cub::server {

// Makes the text of one event's data (a single line) from a message's bytes.
using StreamEncoder = std::function<absl::StatusOr<std::string>(grpc::ByteBuffer&)>;

// One server-streaming call. Not copyable; used by one thread at a time.
class StreamingCall {
 public:
  // A call of `path` ("/cub.v1.Service/Method"); add its metadata to context() before Begin.
  // `heartbeat`: the silence after which the relay writes a comment.
  StreamingCall(const std::shared_ptr<grpc::Channel>& channel, const std::string& path,
                StreamEncoder encode, std::chrono::milliseconds heartbeat);
  StreamingCall(const StreamingCall&) = delete;
  StreamingCall& operator=(const StreamingCall&) = delete;
  // Cancels the call if it is still open, and waits for it to end.
  ~StreamingCall();

  grpc::ClientContext& context() { return ctx_; }

  // Sends the request and waits up to `deadline` for the first message. Returns its event
  // frame; an error (the call's status, or DEADLINE_EXCEEDED) when the call ended, or did not
  // send one in time, before its first message. A call that ends with OK and no message gives
  // an empty frame.
  absl::StatusOr<std::string> Begin(const grpc::ByteBuffer& request,
                                    std::chrono::system_clock::time_point deadline);

  // Relays the rest to `out` as event frames, until the call ends (then an `event: error`
  // frame if it failed) or `out` is closed (then the call is cancelled), and closes `out`. A
  // call that ended in Begin has nothing more: `out` is just closed.
  void RelayTo(HttpStream& out);

  // Ends the call from another thread (the gateway being destroyed).
  void Cancel() { ctx_.TryCancel(); }

 private:
  // Waits for the one pending operation; false when it failed. Cancels the call once
  // `gone()` says the reader has left, checked every poll interval.
  bool Await(const std::function<bool()>& gone);
  // The call's status, once a Read failed.
  grpc::Status Finish();

  grpc::ClientContext ctx_;
  grpc::CompletionQueue cq_;
  grpc::GenericStub stub_;
  const std::string path_;
  const StreamEncoder encode_;
  const std::chrono::milliseconds heartbeat_;
  std::unique_ptr<grpc::GenericClientAsyncReaderWriter> call_;
  grpc::ByteBuffer message_;
  bool pending_ = false;   // an operation has been started and not yet awaited
  bool finished_ = false;  // Finish has completed
};

// The relay threads of one gateway: each runs until its call ends; the destructor cancels
// those still open and joins them all.
class StreamRelays {
 public:
  StreamRelays() = default;
  StreamRelays(const StreamRelays&) = delete;
  StreamRelays& operator=(const StreamRelays&) = delete;
  ~StreamRelays();

  // Relays `call` to `out` on a new thread.
  void Start(std::shared_ptr<StreamingCall> call, std::shared_ptr<HttpStream> out);

 private:
  struct Relay {
    std::shared_ptr<StreamingCall> call;
    std::thread thread;
    std::shared_ptr<bool> done;  // guarded by mu_
  };
  void ReapLocked();

  std::mutex mu_;
  std::vector<Relay> relays_;  // guarded by mu_
  bool stopping_ = false;      // guarded by mu_
};

// "data: <text>\n\n", and the error frame "event: error\ndata: <JSON error body>\n\n".
std::string EventFrame(const std::string& data);
std::string ErrorEventFrame(int grpc_code, const std::string& message);

}  // namespace cub::server

#endif  // CUB_SERVER_REST_STREAM_H_
