// The names cubd logs its calls under ("method=SpaceService/GetSpace") are derived from the
// generated services (server/services.cc); log readers and the e2e tests rely on this form.
#include <google/protobuf/descriptor.h>

#include <catch2/catch.hpp>
#include <string>

#include "cub/v1/auth.grpc.pb.h"
#include "cub/v1/space.grpc.pb.h"
#include "cub/v1/unit.grpc.pb.h"
#include "server/services.h"

namespace cub::server {
namespace {

TEST_CASE("RpcLogName is the service without its package, a slash, the method", "[names]") {
  CHECK(RpcLogName(v1::SpaceService::service_full_name(), "GetSpace") == "SpaceService/GetSpace");
  CHECK(RpcLogName(v1::AuthService::service_full_name(), "WhoAmI") == "AuthService/WhoAmI");
  CHECK(RpcLogName(v1::UnitService::service_full_name(), "DiffUnit") == "UnitService/DiffUnit");
}

TEST_CASE("Every method of the space service is named alike", "[names]") {
  const google::protobuf::ServiceDescriptor* space =
      google::protobuf::DescriptorPool::generated_pool()->FindServiceByName(
          v1::SpaceService::service_full_name());
  REQUIRE(space != nullptr);
  REQUIRE(space->method_count() > 0);
  for (int i = 0; i < space->method_count(); ++i) {
    const std::string method = space->method(i)->name();
    CHECK(RpcLogName(space->full_name(), method) == "SpaceService/" + method);
  }
}

}  // namespace
}  // namespace cub::server
