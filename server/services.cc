#include "server/services.h"

#include <google/protobuf/descriptor.h>

#include <string>
#include <type_traits>

#include "cub/v1/attestation.grpc.pb.h"
#include "cub/v1/auth.grpc.pb.h"
#include "cub/v1/changeorder.grpc.pb.h"
#include "cub/v1/changeworkflow.grpc.pb.h"
#include "cub/v1/event.grpc.pb.h"
#include "cub/v1/freeze.grpc.pb.h"
#include "cub/v1/function.grpc.pb.h"
#include "cub/v1/key.grpc.pb.h"
#include "cub/v1/release.grpc.pb.h"
#include "cub/v1/space.grpc.pb.h"
#include "cub/v1/unit.grpc.pb.h"
#include "cub/v1/variant.grpc.pb.h"
#include "cub/v1/version.grpc.pb.h"
#include "lib/ops/argocd_applications.h"
#include "lib/ops/attestations.h"
#include "lib/ops/change_orders.h"
#include "lib/ops/change_sets.h"
#include "lib/ops/change_workflows.h"
#include "lib/ops/demote.h"
#include "lib/ops/events.h"
#include "lib/ops/explain.h"
#include "lib/ops/freezes.h"
#include "lib/ops/functions.h"
#include "lib/ops/keys.h"
#include "lib/ops/promote.h"
#include "lib/ops/promotion_records.h"
#include "lib/ops/queued_promotions.h"
#include "lib/ops/releases.h"
#include "lib/ops/spaces.h"
#include "lib/ops/stage_publish.h"
#include "lib/ops/tokens.h"
#include "lib/ops/units.h"
#include "lib/ops/upgrade.h"
#include "lib/ops/variants.h"
#include "lib/util/version.h"
#include "server/call.h"
#include "server/change_order_watch.h"

namespace cub::server {

std::string RpcLogName(const std::string& service_full_name, const std::string& method) {
  const google::protobuf::ServiceDescriptor* service =
      google::protobuf::DescriptorPool::generated_pool()->FindServiceByName(service_full_name);
  // Every caller names a generated service, so `service` is found; the fallback only keeps a
  // wrong name from crashing.
  std::string short_name = service != nullptr ? service->name() : service_full_name;
  return short_name + "/" + method;
}

namespace {

using grpc::ServerContext;
using grpc::Status;
using ops::Principal;

// The request and response types of a generated handler, read from its member pointer, so a
// table entry names only the method.
template <typename F>
struct Rpc;
template <typename C, typename Req, typename Resp>
struct Rpc<Status (C::*)(ServerContext*, const Req*, Resp*)> {
  using Request = Req;
  using Response = Resp;
};

// Runs `fn` through RunCall. A use case returning absl::Status answers with the empty
// response; one returning StatusOr<Resp> fills `*resp` on success.
template <typename Resp, typename Fn>
Status Answer(CallGate& gate, ServerContext* ctx, const std::string& method,
              const google::protobuf::Message& request, Resp* resp, Fn fn) {
  if constexpr (std::is_same_v<std::invoke_result_t<Fn, const Principal&>, absl::Status>) {
    return RunCall(gate, ctx, method.c_str(), request, fn);
  } else {
    return Respond(gate, ctx, method.c_str(), request, resp, fn);
  }
}

// What every service implementation holds: the gate its calls go through and its pool.
// `Grpc` is the generated service class (v1::SpaceService), whose Service it implements.
template <typename Grpc>
class ServiceImpl : public Grpc::Service {
 public:
  explicit ServiceImpl(CallGate& gate) : gate_(gate), db_(gate.db()) {}

 protected:
  using Generated = Grpc;
  CallGate& gate_;
  store::ConnectionPool& db_;
};

// One RPC: overrides Generated::Service::Method (so a misspelt or missing method does not
// compile), logs it as "Service/Method" (the name built once from the service descriptor), and
// answers with `...`, an expression of `p` (the caller's Principal) and `req` (the request).
#define CUB_RPC_AS(Method, ...)                                                             \
  Status Method(ServerContext* ctx,                                                         \
                const Rpc<decltype(&Generated::Service::Method)>::Request* req,             \
                Rpc<decltype(&Generated::Service::Method)>::Response* resp) override {      \
    static const std::string kMethod = RpcLogName(Generated::service_full_name(), #Method); \
    return Answer(this->gate_, ctx, kMethod, *req, resp,                                    \
                  [&]([[maybe_unused]] const Principal& p) { return __VA_ARGS__; });        \
  }

// The common case: the lib/ops use case of the same name, called with (pool, caller, request).
#define CUB_RPC(Method) CUB_RPC_AS(Method, ops::Method(this->db_, p, *req))

// A method any client may call without a bearer token (server/call.h, RunPublicCall):
// `...` is an expression of `req` returning StatusOr<Response>.
#define CUB_PUBLIC_RPC_AS(Method, ...)                                                      \
  Status Method(ServerContext* ctx,                                                         \
                const Rpc<decltype(&Generated::Service::Method)>::Request* req,             \
                Rpc<decltype(&Generated::Service::Method)>::Response* resp) override {      \
    static const std::string kMethod = RpcLogName(Generated::service_full_name(), #Method); \
    return RunPublicCall(this->gate_, ctx, kMethod.c_str(), *req, [&]() -> absl::Status {   \
      auto r = __VA_ARGS__;                                                                 \
      if (!r.ok()) return r.status();                                                       \
      *resp = *std::move(r);                                                                \
      return absl::OkStatus();                                                              \
    });                                                                                     \
  }

// GetVersion: this build's version.
absl::StatusOr<v1::ServerVersion> ServerVersionOf() {
  v1::ServerVersion v;
  v.set_version(CubVersion());
  return v;
}

// WhoAmI answers with the caller as authenticated.
absl::StatusOr<v1::WhoAmIResponse> CallerOf(const Principal& p) {
  v1::WhoAmIResponse resp;
  v1::User* u = resp.mutable_user();
  u->set_user_id(p.user_id);
  u->set_username(p.username);
  for (const auto& g : p.groups) u->add_groups(g);
  u->set_admin(p.admin);
  u->set_service_account(p.service_account);
  u->set_created_at(p.created_at);
  u->set_issuer(p.issuer);
  u->set_subject(p.subject);
  u->set_email(p.email);
  resp.set_authenticated_by(p.authenticated_by);
  resp.set_expires_at(p.credential_expires_at);
  return resp;
}

// The providers people may log in with: public knowledge, as in their discovery documents.
absl::StatusOr<v1::GetLoginConfigResponse> LoginConfigOf(const ops::Authenticator& auth) {
  v1::GetLoginConfigResponse resp;
  for (const auto& i : auth.options().issuers) {
    v1::LoginIssuer* out = resp.add_issuers();
    out->set_issuer(i.issuer);
    out->set_client_id(i.client_id);
    for (const auto& s : i.scopes) out->add_scopes(s);
  }
  return resp;
}

// clang-format off
class AuthServiceImpl final : public ServiceImpl<v1::AuthService> {
 public:
  using ServiceImpl::ServiceImpl;
  CUB_RPC_AS(WhoAmI, CallerOf(p))
  CUB_PUBLIC_RPC_AS(GetLoginConfig, LoginConfigOf(this->gate_.authenticator()))
  CUB_RPC_AS(CreateToken,
             ops::CreateToken(this->db_, this->gate_.authenticator().options(), p, *req))
  CUB_RPC(ListTokens)
  CUB_RPC(RevokeToken)
};

class SpaceServiceImpl final : public ServiceImpl<v1::SpaceService> {
 public:
  using ServiceImpl::ServiceImpl;
  CUB_RPC(CreateSpace)
  CUB_RPC(GetSpace)
  CUB_RPC(ListSpaces)
  CUB_RPC(UpdateSpace)
  CUB_RPC(DeleteSpace)
  CUB_RPC(Grant)
  CUB_RPC(Revoke)
  CUB_RPC(ListPermissions)
};

class UnitServiceImpl final : public ServiceImpl<v1::UnitService> {
 public:
  using ServiceImpl::ServiceImpl;
  CUB_RPC(CreateUnit)
  CUB_RPC(GetUnit)
  CUB_RPC(ListUnits)
  CUB_RPC(UpdateUnit)
  CUB_RPC(DeleteUnit)
  CUB_RPC(ListRevisions)
  CUB_RPC(GetRevision)
  CUB_RPC(DiffUnit)
  CUB_RPC(TagUnit)
};

class ChangeSetServiceImpl final : public ServiceImpl<v1::ChangeSetService> {
 public:
  using ServiceImpl::ServiceImpl;
  CUB_RPC(CreateChangeSet)
  CUB_RPC(GetChangeSet)
  CUB_RPC(ListChangeSets)
  CUB_RPC(CloseChangeSet)
};

class FunctionServiceImpl final : public ServiceImpl<v1::FunctionService> {
 public:
  using ServiceImpl::ServiceImpl;
  CUB_RPC_AS(ListFunctions, ops::ListFunctions(*req))
  CUB_RPC(InvokeFunction)
};

class InvocationServiceImpl final : public ServiceImpl<v1::InvocationService> {
 public:
  using ServiceImpl::ServiceImpl;
  CUB_RPC(CreateInvocation)
  CUB_RPC(GetInvocation)
  CUB_RPC(ListInvocations)
};

class ChangeWorkflowServiceImpl final : public ServiceImpl<v1::ChangeWorkflowService> {
 public:
  using ServiceImpl::ServiceImpl;
  CUB_RPC(CreateChangeWorkflow)
  CUB_RPC(GetChangeWorkflow)
  CUB_RPC(ListChangeWorkflows)
  CUB_RPC(UpdateChangeWorkflow)
  CUB_RPC(DeleteChangeWorkflow)
};

class ChangeOrderServiceImpl final : public ServiceImpl<v1::ChangeOrderService> {
 public:
  ChangeOrderServiceImpl(CallGate& gate, const ops::ReleaseEnv& env)
      : ServiceImpl(gate), env_(env) {}
  CUB_RPC(CreateChangeOrder)
  CUB_RPC(GetChangeOrder)
  CUB_RPC(ListChangeOrders)
  CUB_RPC(UpdateChangeOrder)
  CUB_RPC_AS(Promote, ops::Promote(db_, p, *req, SignedBy(env_)))
  CUB_RPC(Demote)
  CUB_RPC(ExplainChangeOrder)
  CUB_RPC(ListPromotionRecords)

  // Server-streaming, so written out: the same gate, through RunCall (server/change_order_watch.h).
  Status WatchChangeOrder(ServerContext* ctx, const v1::WatchChangeOrderRequest* req,
                          grpc::ServerWriter<v1::ChangeOrderProgress>* writer) override {
    static const std::string kMethod =
        RpcLogName(Generated::service_full_name(), "WatchChangeOrder");
    return server::WatchChangeOrder(gate_, ctx, kMethod.c_str(), *req, writer);
  }

 private:
  // A caller's promotion, its records signed with the server's key.
  static ops::PromoteBy SignedBy(const ops::ReleaseEnv& env) {
    ops::PromoteBy by;
    by.keys = env.targets.keys;
    return by;
  }
  const ops::ReleaseEnv& env_;
};

// Queued promotions: listing and withdrawing them (queueing is Promote's, with Queue).
class PromotionServiceImpl final : public ServiceImpl<v1::PromotionService> {
 public:
  using ServiceImpl::ServiceImpl;
  CUB_RPC(ListQueuedPromotions)
  CUB_RPC(WithdrawPromotion)
};

class EventServiceImpl final : public ServiceImpl<v1::EventService> {
 public:
  using ServiceImpl::ServiceImpl;
  CUB_RPC(ListEvents)
};

class FreezeServiceImpl final : public ServiceImpl<v1::FreezeService> {
 public:
  using ServiceImpl::ServiceImpl;
  CUB_RPC(CreateFreeze)
  CUB_RPC(GetFreeze)
  CUB_RPC(ListFreezes)
  CUB_RPC(DeleteFreeze)
};

class AttestationServiceImpl final : public ServiceImpl<v1::AttestationService> {
 public:
  using ServiceImpl::ServiceImpl;
  CUB_RPC(Approve)
  CUB_RPC(GetAttestation)
  CUB_RPC(ListAttestations)
  CUB_RPC(RevokeAttestation)
};

class TargetServiceImpl final : public ServiceImpl<v1::TargetService> {
 public:
  using ServiceImpl::ServiceImpl;
  CUB_RPC(CreateTarget)
  CUB_RPC(GetTarget)
  CUB_RPC(ListTargets)
  CUB_RPC(UpdateTarget)
  CUB_RPC(DeleteTarget)
};

class ReleaseServiceImpl final : public ServiceImpl<v1::ReleaseService> {
 public:
  ReleaseServiceImpl(CallGate& gate, const ops::ReleaseEnv& env) : ServiceImpl(gate), env_(env) {}
  CUB_RPC_AS(PublishRelease, ops::PublishRelease(db_, env_, p, *req))
  CUB_RPC_AS(PublishReleases, ops::PublishReleases(db_, env_, p, *req))
  CUB_RPC(GetRelease)
  CUB_RPC(ListReleases)
  CUB_RPC_AS(SetReleaseStatus, ops::SetReleaseStatus(db_, env_, p, *req))
  CUB_RPC(ReleaseHistory)
  CUB_RPC_AS(VerifyRelease, ops::VerifyRelease(db_, env_, p, *req))
  CUB_RPC(ReleaseApplications)

 private:
  const ops::ReleaseEnv& env_;
};

// The public half of the signing key, for checking records offline; any authenticated caller.
class ServerServiceImpl final : public ServiceImpl<v1::ServerService> {
 public:
  ServerServiceImpl(CallGate& gate, const ops::ReleaseEnv& env) : ServiceImpl(gate), env_(env) {}
  CUB_RPC_AS(GetPublicKey, ops::GetPublicKey(env_))

 private:
  const ops::ReleaseEnv& env_;
};

// The trusted keys: listing them for any caller, trusting and revoking for admins, through the
// server's own key ring (so a change shows in its next verification).
class KeyServiceImpl final : public ServiceImpl<v1::KeyService> {
 public:
  KeyServiceImpl(CallGate& gate, const ops::ReleaseEnv& env) : ServiceImpl(gate), env_(env) {}
  CUB_RPC_AS(ListKeys, ops::ListKeys(db_, *env_.targets.keys, p, *req))
  CUB_RPC_AS(TrustKey, ops::TrustKey(db_, *env_.targets.keys, p, *req))
  CUB_RPC_AS(RevokeKey, ops::RevokeKey(db_, *env_.targets.keys, p, *req))

 private:
  const ops::ReleaseEnv& env_;
};

// This build's version; any caller, without a token.
class VersionServiceImpl final : public ServiceImpl<v1::VersionService> {
 public:
  using ServiceImpl::ServiceImpl;
  CUB_PUBLIC_RPC_AS(GetVersion, ServerVersionOf())
};

class TagServiceImpl final : public ServiceImpl<v1::TagService> {
 public:
  using ServiceImpl::ServiceImpl;
  CUB_RPC(CreateTag)
  CUB_RPC(GetTag)
  CUB_RPC(ListTags)
};

class VariantServiceImpl final : public ServiceImpl<v1::VariantService> {
 public:
  using ServiceImpl::ServiceImpl;
  CUB_RPC(CreateVariant)
  CUB_RPC(CreateVariants)
};

class LinkServiceImpl final : public ServiceImpl<v1::LinkService> {
 public:
  using ServiceImpl::ServiceImpl;
  CUB_RPC(CreateLink)
  CUB_RPC(GetLink)
  CUB_RPC(ListLinks)
};

class FilterServiceImpl final : public ServiceImpl<v1::FilterService> {
 public:
  using ServiceImpl::ServiceImpl;
  CUB_RPC(CreateFilter)
  CUB_RPC(GetFilter)
  CUB_RPC(ListFilters)
};
// clang-format on

#undef CUB_RPC
#undef CUB_RPC_AS

}  // namespace

std::vector<std::unique_ptr<grpc::Service>> MakeServices(CallGate& gate,
                                                         const ops::ReleaseEnv& release_env) {
  std::vector<std::unique_ptr<grpc::Service>> out;
  out.push_back(std::make_unique<AuthServiceImpl>(gate));
  out.push_back(std::make_unique<SpaceServiceImpl>(gate));
  out.push_back(std::make_unique<UnitServiceImpl>(gate));
  out.push_back(std::make_unique<TagServiceImpl>(gate));
  out.push_back(std::make_unique<ChangeSetServiceImpl>(gate));
  out.push_back(std::make_unique<FunctionServiceImpl>(gate));
  out.push_back(std::make_unique<InvocationServiceImpl>(gate));
  out.push_back(std::make_unique<ChangeWorkflowServiceImpl>(gate));
  out.push_back(std::make_unique<ChangeOrderServiceImpl>(gate, release_env));
  out.push_back(std::make_unique<PromotionServiceImpl>(gate));
  out.push_back(std::make_unique<EventServiceImpl>(gate));
  out.push_back(std::make_unique<TargetServiceImpl>(gate));
  out.push_back(std::make_unique<AttestationServiceImpl>(gate));
  out.push_back(std::make_unique<ReleaseServiceImpl>(gate, release_env));
  out.push_back(std::make_unique<ServerServiceImpl>(gate, release_env));
  out.push_back(std::make_unique<KeyServiceImpl>(gate, release_env));
  out.push_back(std::make_unique<VersionServiceImpl>(gate));
  out.push_back(std::make_unique<VariantServiceImpl>(gate));
  out.push_back(std::make_unique<LinkServiceImpl>(gate));
  out.push_back(std::make_unique<FilterServiceImpl>(gate));
  out.push_back(std::make_unique<FreezeServiceImpl>(gate));
  return out;
}

}  // namespace cub::server
