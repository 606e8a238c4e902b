#include "server/change_order_watch.h"

#include <google/protobuf/util/message_differencer.h>
#include <grpcpp/support/sync_stream.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <optional>
#include <thread>

#include "absl/time/clock.h"
#include "lib/ops/change_order_progress.h"
#include "lib/store/engine_connection.h"
#include "lib/store/events.h"
#include "lib/util/status_macros.h"

namespace cub::server {
namespace {

// The longest a watch goes without looking again.
constexpr absl::Duration kRecheck = absl::Seconds(5);
// How often a waiting watch checks for cancellation and shutdown.
constexpr absl::Duration kPollSlice = absl::Milliseconds(250);

class Watch {
 public:
  Watch(CallGate& gate, grpc::ServerContext* ctx, const ops::Principal& p,
        const v1::WatchChangeOrderRequest& req, grpc::ServerWriter<v1::ChangeOrderProgress>* writer)
      : gate_(gate), ctx_(ctx), p_(p), req_(req), writer_(writer) {}

  absl::Status Run() {
    // The first snapshot before anything else is opened: it is what refuses a caller who may
    // not read the ChangeOrder, exactly as GetChangeOrder does.
    CUB_ASSIGN_OR_RETURN(bool more, SendIfChanged());
    // The first look after LISTEN is at once, so an event between the first snapshot and
    // LISTEN is not missed.
    bool wait = false;
    while (more) {
      if (!listener_) Listen();  // the first time, and again after it was lost
      if (wait) CUB_RETURN_IF_ERROR(WaitForChange());
      wait = true;
      CUB_ASSIGN_OR_RETURN(more, SendIfChanged());
    }
    return absl::OkStatus();
  }

 private:
  // Reads a snapshot and sends it if it differs from the last one sent. False once it was
  // final.
  absl::StatusOr<bool> SendIfChanged() {
    CUB_ASSIGN_OR_RETURN(auto snap, ops::ChangeOrderProgress(gate_.db(), p_, req_));
    const bool final = ops::IsFinalProgressState(snap.state());
    if (last_ && google::protobuf::util::MessageDifferencer::Equals(*last_, snap)) return !final;
    if (!writer_->Write(snap)) return absl::CancelledError("the client ended the watch");
    last_ = std::move(snap);
    return !final;
  }

  // A listening connection of the watch's own; without one (the database refused it, or it
  // was lost), the watch looks again every kRecheck only.
  void Listen() {
    auto conn = store::EngineConnection::Open(gate_.db().url(), store::kEventChannel);
    if (conn.ok()) {
      listener_ = *std::move(conn);
    } else if (!warned_) {
      warned_ = true;
      std::fprintf(stderr, "cubd: watch of %s: cannot listen for events (%s); polling every %d s\n",
                   req_.change_order().c_str(), std::string(conn.status().message()).c_str(),
                   static_cast<int>(absl::ToInt64Seconds(kRecheck)));
    }
  }

  // Returns when an event arrived or kRecheck passed; CANCELLED or UNAVAILABLE when the watch
  // must end.
  absl::Status WaitForChange() {
    const absl::Time until = absl::Now() + kRecheck;
    for (;;) {
      if (ctx_->IsCancelled()) return absl::CancelledError("the client ended the watch");
      if (gate_.streams().stopping()) {
        return absl::UnavailableError("cubd is shutting down; watch again");
      }
      const absl::Duration left = until - absl::Now();
      if (left <= absl::ZeroDuration()) return absl::OkStatus();
      const absl::Duration slice = std::min(left, kPollSlice);
      if (!listener_) {
        std::this_thread::sleep_for(absl::ToChronoMilliseconds(slice));
        continue;
      }
      absl::StatusOr<bool> woken = listener_->Wait(slice);
      if (!woken.ok()) {
        listener_.reset();  // lost: the next look opens another
        continue;
      }
      if (*woken) return absl::OkStatus();
    }
  }

  CallGate& gate_;
  grpc::ServerContext* const ctx_;
  const ops::Principal& p_;
  const v1::WatchChangeOrderRequest& req_;
  grpc::ServerWriter<v1::ChangeOrderProgress>* const writer_;
  std::optional<v1::ChangeOrderProgress> last_;
  std::unique_ptr<store::EngineConnection> listener_;
  bool warned_ = false;
};

}  // namespace

grpc::Status WatchChangeOrder(CallGate& gate, grpc::ServerContext* ctx, const char* method,
                              const v1::WatchChangeOrderRequest& req,
                              grpc::ServerWriter<v1::ChangeOrderProgress>* writer) {
  return RunCall(gate, ctx, method, req, [&](const ops::Principal& p) -> absl::Status {
    CUB_ASSIGN_OR_RETURN(StreamLimiter::Slot slot, gate.streams().Acquire());
    return Watch(gate, ctx, p, req, writer).Run();
  });
}

}  // namespace cub::server
