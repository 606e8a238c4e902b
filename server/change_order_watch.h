// ChangeOrderService/WatchChangeOrder: a server-streaming call that sends the ChangeOrder's
// progress (lib/ops/change_order_progress.h) at once and then whenever it changes, until it is
// Completed or Aborted.
//
// Authenticated and checked through RunCall like every call; the ChangeOrder is read as
// GetChangeOrder reads it, again for every snapshot, so a caller who may not (or may no longer)
// read it gets GetChangeOrder's error. Each stream takes a place of gate.streams() (refused
// with RESOURCE_EXHAUSTED when none is free) and a database connection of its own that
// LISTENs on the event channel (store::kEventChannel): an event wakes it, and without one it
// looks again every 5 s (time-based gates, or writes that append no event). A snapshot is sent
// only when it differs from the last one sent. The stream ends, besides at a final snapshot,
// when the client cancels (CANCELLED) or cubd shuts down (UNAVAILABLE, within a fraction of a
// second of gate.streams().Stop()).
#ifndef CUB_SERVER_CHANGE_ORDER_WATCH_H_
#define CUB_SERVER_CHANGE_ORDER_WATCH_H_

#include <grpcpp/grpcpp.h>

#include "cub/v1/changeorder.pb.h"
#include "server/call.h"

namespace cub::server {

grpc::Status WatchChangeOrder(CallGate& gate, grpc::ServerContext* ctx, const char* method,
                              const v1::WatchChangeOrderRequest& req,
                              grpc::ServerWriter<v1::ChangeOrderProgress>* writer);

}  // namespace cub::server

#endif  // CUB_SERVER_CHANGE_ORDER_WATCH_H_
