// gRPC service implementations: thin adapters from cub.v1 requests to lib/ops use cases.
// Each handler is one line of a table naming the RPC (the name it is logged under is derived
// from the generated service, never written by hand); it authenticates through RunCall and
// holds no state of its own, so any number of cubd processes can serve one database.
#ifndef CUB_SERVER_SERVICES_H_
#define CUB_SERVER_SERVICES_H_

#include <grpcpp/grpcpp.h>
#include <grpcpp/impl/codegen/service_type.h>

#include <memory>
#include <string>
#include <vector>

#include "lib/ops/releases.h"
#include "server/call.h"

namespace cub::server {

// All cub.v1 services, calling through `gate` (its pool and limits) with the release
// environment, whose key ring (release_env.targets.keys) must be set; both must outlive them.
std::vector<std::unique_ptr<grpc::Service>> MakeServices(CallGate& gate,
                                                         const ops::ReleaseEnv& release_env);

// The name an RPC is logged under ("method=SpaceService/GetSpace"): the service's name without
// its package, a slash, the method. `service_full_name` is the generated service's
// ("cub.v1.SpaceService"). Exposed for tests.
std::string RpcLogName(const std::string& service_full_name, const std::string& method);

}  // namespace cub::server

#endif  // CUB_SERVER_SERVICES_H_
