// gRPC service implementations: thin adapters from cub.v1 requests to lib/ops use cases.
// Each handler authenticates through RunCall and holds no state of its own, so any number of
// cubd processes can serve one database.
#ifndef CUB_SERVER_SERVICES_H_
#define CUB_SERVER_SERVICES_H_

#include <grpcpp/grpcpp.h>
#include <grpcpp/impl/codegen/service_type.h>

#include <memory>
#include <vector>

#include "lib/ops/releases.h"
#include "server/call.h"

namespace cub::server {

// All cub.v1 services, calling through `gate` (its pool and limits) with the release
// environment; both must outlive them.
std::vector<std::unique_ptr<grpc::Service>> MakeServices(CallGate& gate,
                                                         const ops::ReleaseEnv& release_env);

}  // namespace cub::server

#endif  // CUB_SERVER_SERVICES_H_
