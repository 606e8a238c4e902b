#include "server/rest_stream.h"

#include <utility>

#include "absl/strings/str_cat.h"

namespace cub::server {
namespace {

// How often a waiting relay checks whether its HTTP client has gone.
constexpr auto kPoll = std::chrono::milliseconds(500);

absl::Status FromGrpc(const grpc::Status& s) {
  return absl::Status(static_cast<absl::StatusCode>(s.error_code()), s.error_message());
}

}  // namespace

std::string EventFrame(const std::string& data) { return absl::StrCat("data: ", data, "\n\n"); }

std::string ErrorEventFrame(int grpc_code, const std::string& message) {
  return absl::StrCat("event: error\ndata: ", JsonErrorBody(grpc_code, message), "\n\n");
}

StreamingCall::StreamingCall(const std::shared_ptr<grpc::Channel>& channel, const std::string& path,
                             StreamEncoder encode, std::chrono::milliseconds heartbeat)
    : stub_(channel), path_(path), encode_(std::move(encode)), heartbeat_(heartbeat) {}

StreamingCall::~StreamingCall() {
  if (call_ && !finished_) {
    ctx_.TryCancel();
    if (pending_) Await([] { return false; });
    Finish();
  }
  cq_.Shutdown();
  void* tag;
  bool ok;
  while (cq_.Next(&tag, &ok)) {
  }
}

bool StreamingCall::Await(const std::function<bool()>& gone) {
  pending_ = false;
  bool cancelled = false;
  for (;;) {
    void* tag;
    bool ok = false;
    auto r = cq_.AsyncNext(&tag, &ok, std::chrono::system_clock::now() + kPoll);
    if (r == grpc::CompletionQueue::GOT_EVENT) return ok;
    if (r == grpc::CompletionQueue::SHUTDOWN) return false;
    if (!cancelled && gone()) {
      ctx_.TryCancel();  // the operation then completes, failed
      cancelled = true;
    }
  }
}

grpc::Status StreamingCall::Finish() {
  grpc::Status status;
  call_->Finish(&status, this);
  pending_ = true;
  Await([] { return false; });
  finished_ = true;
  return status;
}

absl::StatusOr<std::string> StreamingCall::Begin(const grpc::ByteBuffer& request,
                                                 std::chrono::system_clock::time_point deadline) {
  const auto late = [deadline] { return std::chrono::system_clock::now() >= deadline; };
  call_ = stub_.PrepareCall(&ctx_, path_, &cq_);
  bool ok = true;
  call_->StartCall(this);
  pending_ = true;
  ok = Await(late);
  if (ok) {
    call_->WriteLast(request, grpc::WriteOptions(), this);
    pending_ = true;
    ok = Await(late);
  }
  if (ok) {
    call_->Read(&message_, this);
    pending_ = true;
    ok = Await(late);
  }
  if (!ok) {
    grpc::Status status = Finish();
    if (late() && status.error_code() == grpc::StatusCode::CANCELLED) {
      return absl::DeadlineExceededError("the stream sent nothing before the deadline");
    }
    if (status.ok()) return std::string();
    return FromGrpc(status);
  }
  absl::StatusOr<std::string> text = encode_(message_);
  if (!text.ok()) return text.status();
  return EventFrame(*text);
}

void StreamingCall::RelayTo(HttpStream& out) {
  auto last_write = std::chrono::steady_clock::now();
  // Checked every kPoll while no message comes: whether the client has gone, and a comment
  // after `heartbeat_` of silence, so a proxy does not take the stream for idle (and a dead
  // client is noticed when the write fails).
  const auto gone = [&] {
    if (out.closed()) return true;
    const auto now = std::chrono::steady_clock::now();
    if (now - last_write < heartbeat_) return false;
    last_write = now;
    return !out.Write(": keep-alive\n\n");
  };
  bool reported = false;  // an error frame was written already
  while (!finished_) {
    call_->Read(&message_, this);
    pending_ = true;
    if (!Await(gone)) break;
    absl::StatusOr<std::string> text = encode_(message_);
    if (!text.ok()) {
      out.Write(ErrorEventFrame(static_cast<int>(text.status().code()),
                                std::string(text.status().message())));
      reported = true;
      ctx_.TryCancel();
      break;
    }
    if (!out.Write(EventFrame(*text))) ctx_.TryCancel();
    last_write = std::chrono::steady_clock::now();
  }
  grpc::Status status = finished_ ? grpc::Status::OK : Finish();
  if (!status.ok() && !reported && !out.closed()) {
    out.Write(ErrorEventFrame(static_cast<int>(status.error_code()), status.error_message()));
  }
  out.Close();
}

StreamRelays::~StreamRelays() {
  std::vector<Relay> relays;
  {
    std::lock_guard<std::mutex> l(mu_);
    stopping_ = true;
    relays.swap(relays_);
  }
  for (auto& r : relays) r.call->Cancel();
  for (auto& r : relays) r.thread.join();
}

void StreamRelays::ReapLocked() {
  for (auto it = relays_.begin(); it != relays_.end();) {
    if (*it->done) {
      it->thread.join();
      it = relays_.erase(it);
    } else {
      ++it;
    }
  }
}

void StreamRelays::Start(std::shared_ptr<StreamingCall> call, std::shared_ptr<HttpStream> out) {
  std::lock_guard<std::mutex> l(mu_);
  if (stopping_) {
    out->Close();
    return;
  }
  ReapLocked();
  auto done = std::make_shared<bool>(false);
  std::thread t([this, call, out, done] {
    call->RelayTo(*out);
    std::lock_guard<std::mutex> l(mu_);
    *done = true;
  });
  relays_.push_back(Relay{std::move(call), std::move(t), std::move(done)});
}

}  // namespace cub::server
