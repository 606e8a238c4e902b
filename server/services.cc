#include "server/services.h"

#include "cub/v1/attestation.grpc.pb.h"
#include "cub/v1/auth.grpc.pb.h"
#include "cub/v1/changeorder.grpc.pb.h"
#include "cub/v1/changeworkflow.grpc.pb.h"
#include "cub/v1/function.grpc.pb.h"
#include "cub/v1/release.grpc.pb.h"
#include "cub/v1/space.grpc.pb.h"
#include "cub/v1/unit.grpc.pb.h"
#include "cub/v1/variant.grpc.pb.h"
#include "lib/ops/attestations.h"
#include "lib/ops/change_orders.h"
#include "lib/ops/change_sets.h"
#include "lib/ops/change_workflows.h"
#include "lib/ops/demote.h"
#include "lib/ops/functions.h"
#include "lib/ops/promote.h"
#include "lib/ops/releases.h"
#include "lib/ops/spaces.h"
#include "lib/ops/units.h"
#include "lib/ops/upgrade.h"
#include "lib/ops/variants.h"
#include "server/call.h"

namespace cub::server {
namespace {

using grpc::ServerContext;
using grpc::Status;
using ops::Principal;

// Wraps a use case returning absl::Status (no value) as one returning an empty response.
template <typename Resp, typename Fn>
auto Empty(Fn fn) {
  return [fn](const Principal& p) -> absl::StatusOr<Resp> {
    absl::Status s = fn(p);
    if (!s.ok()) return s;
    return Resp();
  };
}

class AuthServiceImpl final : public v1::AuthService::Service {
 public:
  explicit AuthServiceImpl(CallGate& gate) : gate_(gate), db_(gate.db()) {}
  Status WhoAmI(ServerContext* ctx, const v1::WhoAmIRequest* req,
                v1::WhoAmIResponse* resp) override {
    return RunCall(gate_, ctx, "AuthService/WhoAmI", *req, [&](const Principal& p) {
      v1::User* u = resp->mutable_user();
      u->set_user_id(p.user_id);
      u->set_username(p.username);
      for (const auto& g : p.groups) u->add_groups(g);
      u->set_admin(p.admin);
      u->set_service_account(p.service_account);
      u->set_created_at(p.created_at);
      return absl::OkStatus();
    });
  }

 private:
  CallGate& gate_;
  store::ConnectionPool& db_;
};

class SpaceServiceImpl final : public v1::SpaceService::Service {
 public:
  explicit SpaceServiceImpl(CallGate& gate) : gate_(gate), db_(gate.db()) {}
  Status CreateSpace(ServerContext* ctx, const v1::CreateSpaceRequest* req,
                     v1::Space* resp) override {
    return Respond(gate_, ctx, "SpaceService/CreateSpace", *req, resp,
                   [&](const Principal& p) { return ops::CreateSpace(db_, p, *req); });
  }
  Status GetSpace(ServerContext* ctx, const v1::GetSpaceRequest* req, v1::Space* resp) override {
    return Respond(gate_, ctx, "SpaceService/GetSpace", *req, resp,
                   [&](const Principal& p) { return ops::GetSpace(db_, p, *req); });
  }
  Status ListSpaces(ServerContext* ctx, const v1::ListSpacesRequest* req,
                    v1::ListSpacesResponse* resp) override {
    return Respond(gate_, ctx, "SpaceService/ListSpaces", *req, resp,
                   [&](const Principal& p) { return ops::ListSpaces(db_, p, *req); });
  }
  Status UpdateSpace(ServerContext* ctx, const v1::UpdateSpaceRequest* req,
                     v1::Space* resp) override {
    return Respond(gate_, ctx, "SpaceService/UpdateSpace", *req, resp,
                   [&](const Principal& p) { return ops::UpdateSpace(db_, p, *req); });
  }
  Status DeleteSpace(ServerContext* ctx, const v1::DeleteSpaceRequest* req,
                     v1::DeleteSpaceResponse* resp) override {
    return Respond(gate_, ctx, "SpaceService/DeleteSpace", *req, resp,
                   Empty<v1::DeleteSpaceResponse>(
                       [&](const Principal& p) { return ops::DeleteSpace(db_, p, *req); }));
  }
  Status Grant(ServerContext* ctx, const v1::GrantRequest* req, v1::Permission* resp) override {
    return Respond(gate_, ctx, "SpaceService/Grant", *req, resp,
                   [&](const Principal& p) { return ops::Grant(db_, p, *req); });
  }
  Status Revoke(ServerContext* ctx, const v1::GrantRequest* req, v1::Permission* resp) override {
    return Respond(gate_, ctx, "SpaceService/Revoke", *req, resp,
                   [&](const Principal& p) { return ops::Revoke(db_, p, *req); });
  }
  Status ListPermissions(ServerContext* ctx, const v1::ListPermissionsRequest* req,
                         v1::ListPermissionsResponse* resp) override {
    return Respond(gate_, ctx, "SpaceService/ListPermissions", *req, resp,
                   [&](const Principal& p) { return ops::ListPermissions(db_, p, *req); });
  }

 private:
  CallGate& gate_;
  store::ConnectionPool& db_;
};

class UnitServiceImpl final : public v1::UnitService::Service {
 public:
  explicit UnitServiceImpl(CallGate& gate) : gate_(gate), db_(gate.db()) {}
  Status CreateUnit(ServerContext* ctx, const v1::CreateUnitRequest* req,
                    v1::UnitWithData* resp) override {
    return Respond(gate_, ctx, "UnitService/CreateUnit", *req, resp,
                   [&](const Principal& p) { return ops::CreateUnit(db_, p, *req); });
  }
  Status GetUnit(ServerContext* ctx, const v1::GetUnitRequest* req,
                 v1::UnitWithData* resp) override {
    return Respond(gate_, ctx, "UnitService/GetUnit", *req, resp,
                   [&](const Principal& p) { return ops::GetUnit(db_, p, *req); });
  }
  Status ListUnits(ServerContext* ctx, const v1::ListUnitsRequest* req,
                   v1::ListUnitsResponse* resp) override {
    return Respond(gate_, ctx, "UnitService/ListUnits", *req, resp,
                   [&](const Principal& p) { return ops::ListUnits(db_, p, *req); });
  }
  Status UpdateUnit(ServerContext* ctx, const v1::UpdateUnitRequest* req,
                    v1::UpdateUnitResponse* resp) override {
    return Respond(gate_, ctx, "UnitService/UpdateUnit", *req, resp,
                   [&](const Principal& p) { return ops::UpdateUnit(db_, p, *req); });
  }
  Status DeleteUnit(ServerContext* ctx, const v1::DeleteUnitRequest* req,
                    v1::DeleteUnitResponse* resp) override {
    return Respond(gate_, ctx, "UnitService/DeleteUnit", *req, resp,
                   Empty<v1::DeleteUnitResponse>(
                       [&](const Principal& p) { return ops::DeleteUnit(db_, p, *req); }));
  }
  Status ListRevisions(ServerContext* ctx, const v1::ListRevisionsRequest* req,
                       v1::ListRevisionsResponse* resp) override {
    return Respond(gate_, ctx, "UnitService/ListRevisions", *req, resp,
                   [&](const Principal& p) { return ops::ListRevisions(db_, p, *req); });
  }
  Status GetRevision(ServerContext* ctx, const v1::GetRevisionRequest* req,
                     v1::Revision* resp) override {
    return Respond(gate_, ctx, "UnitService/GetRevision", *req, resp,
                   [&](const Principal& p) { return ops::GetRevision(db_, p, *req); });
  }
  Status DiffUnit(ServerContext* ctx, const v1::DiffUnitRequest* req,
                  v1::DiffUnitResponse* resp) override {
    return Respond(gate_, ctx, "UnitService/DiffUnit", *req, resp,
                   [&](const Principal& p) { return ops::DiffUnit(db_, p, *req); });
  }
  Status TagUnit(ServerContext* ctx, const v1::TagUnitRequest* req, v1::TagMark* resp) override {
    return Respond(gate_, ctx, "UnitService/TagUnit", *req, resp,
                   [&](const Principal& p) { return ops::TagUnit(db_, p, *req); });
  }

 private:
  CallGate& gate_;
  store::ConnectionPool& db_;
};

class ChangeSetServiceImpl final : public v1::ChangeSetService::Service {
 public:
  explicit ChangeSetServiceImpl(CallGate& gate) : gate_(gate), db_(gate.db()) {}
  Status CreateChangeSet(ServerContext* ctx, const v1::CreateChangeSetRequest* req,
                         v1::ChangeSet* resp) override {
    return Respond(gate_, ctx, "ChangeSetService/CreateChangeSet", *req, resp,
                   [&](const Principal& p) { return ops::CreateChangeSet(db_, p, *req); });
  }
  Status GetChangeSet(ServerContext* ctx, const v1::GetChangeSetRequest* req,
                      v1::ChangeSet* resp) override {
    return Respond(gate_, ctx, "ChangeSetService/GetChangeSet", *req, resp,
                   [&](const Principal& p) { return ops::GetChangeSet(db_, p, *req); });
  }
  Status ListChangeSets(ServerContext* ctx, const v1::ListChangeSetsRequest* req,
                        v1::ListChangeSetsResponse* resp) override {
    return Respond(gate_, ctx, "ChangeSetService/ListChangeSets", *req, resp,
                   [&](const Principal& p) { return ops::ListChangeSets(db_, p, *req); });
  }
  Status CloseChangeSet(ServerContext* ctx, const v1::CloseChangeSetRequest* req,
                        v1::ChangeSet* resp) override {
    return Respond(gate_, ctx, "ChangeSetService/CloseChangeSet", *req, resp,
                   [&](const Principal& p) { return ops::CloseChangeSet(db_, p, *req); });
  }

 private:
  CallGate& gate_;
  store::ConnectionPool& db_;
};

class FunctionServiceImpl final : public v1::FunctionService::Service {
 public:
  explicit FunctionServiceImpl(CallGate& gate) : gate_(gate), db_(gate.db()) {}
  Status ListFunctions(ServerContext* ctx, const v1::ListFunctionsRequest* req,
                       v1::ListFunctionsResponse* resp) override {
    return Respond(gate_, ctx, "FunctionService/ListFunctions", *req, resp,
                   [&](const Principal&) { return ops::ListFunctions(*req); });
  }
  Status InvokeFunction(ServerContext* ctx, const v1::InvokeFunctionRequest* req,
                        v1::InvokeFunctionResponse* resp) override {
    return Respond(gate_, ctx, "FunctionService/InvokeFunction", *req, resp,
                   [&](const Principal& p) { return ops::InvokeFunction(db_, p, *req); });
  }

 private:
  CallGate& gate_;
  store::ConnectionPool& db_;
};

class InvocationServiceImpl final : public v1::InvocationService::Service {
 public:
  explicit InvocationServiceImpl(CallGate& gate) : gate_(gate), db_(gate.db()) {}
  Status CreateInvocation(ServerContext* ctx, const v1::CreateInvocationRequest* req,
                          v1::Invocation* resp) override {
    return Respond(gate_, ctx, "InvocationService/CreateInvocation", *req, resp,
                   [&](const Principal& p) { return ops::CreateInvocation(db_, p, *req); });
  }
  Status GetInvocation(ServerContext* ctx, const v1::GetInvocationRequest* req,
                       v1::Invocation* resp) override {
    return Respond(gate_, ctx, "InvocationService/GetInvocation", *req, resp,
                   [&](const Principal& p) { return ops::GetInvocation(db_, p, *req); });
  }
  Status ListInvocations(ServerContext* ctx, const v1::ListInvocationsRequest* req,
                         v1::ListInvocationsResponse* resp) override {
    return Respond(gate_, ctx, "InvocationService/ListInvocations", *req, resp,
                   [&](const Principal& p) { return ops::ListInvocations(db_, p, *req); });
  }

 private:
  CallGate& gate_;
  store::ConnectionPool& db_;
};

class ChangeWorkflowServiceImpl final : public v1::ChangeWorkflowService::Service {
 public:
  explicit ChangeWorkflowServiceImpl(CallGate& gate) : gate_(gate), db_(gate.db()) {}
  Status CreateChangeWorkflow(ServerContext* ctx, const v1::CreateChangeWorkflowRequest* req,
                              v1::ChangeWorkflow* resp) override {
    return Respond(gate_, ctx, "ChangeWorkflowService/CreateChangeWorkflow", *req, resp,
                   [&](const Principal& p) { return ops::CreateChangeWorkflow(db_, p, *req); });
  }
  Status GetChangeWorkflow(ServerContext* ctx, const v1::GetChangeWorkflowRequest* req,
                           v1::ChangeWorkflow* resp) override {
    return Respond(gate_, ctx, "ChangeWorkflowService/GetChangeWorkflow", *req, resp,
                   [&](const Principal& p) { return ops::GetChangeWorkflow(db_, p, *req); });
  }
  Status ListChangeWorkflows(ServerContext* ctx, const v1::ListChangeWorkflowsRequest* req,
                             v1::ListChangeWorkflowsResponse* resp) override {
    return Respond(gate_, ctx, "ChangeWorkflowService/ListChangeWorkflows", *req, resp,
                   [&](const Principal& p) { return ops::ListChangeWorkflows(db_, p, *req); });
  }
  Status UpdateChangeWorkflow(ServerContext* ctx, const v1::UpdateChangeWorkflowRequest* req,
                              v1::ChangeWorkflow* resp) override {
    return Respond(gate_, ctx, "ChangeWorkflowService/UpdateChangeWorkflow", *req, resp,
                   [&](const Principal& p) { return ops::UpdateChangeWorkflow(db_, p, *req); });
  }
  Status DeleteChangeWorkflow(ServerContext* ctx, const v1::DeleteChangeWorkflowRequest* req,
                              v1::DeleteChangeWorkflowResponse* resp) override {
    return Respond(gate_, ctx, "ChangeWorkflowService/DeleteChangeWorkflow", *req, resp,
                   Empty<v1::DeleteChangeWorkflowResponse>([&](const Principal& p) {
                     return ops::DeleteChangeWorkflow(db_, p, *req);
                   }));
  }

 private:
  CallGate& gate_;
  store::ConnectionPool& db_;
};

class ChangeOrderServiceImpl final : public v1::ChangeOrderService::Service {
 public:
  explicit ChangeOrderServiceImpl(CallGate& gate) : gate_(gate), db_(gate.db()) {}
  Status CreateChangeOrder(ServerContext* ctx, const v1::CreateChangeOrderRequest* req,
                           v1::ChangeOrder* resp) override {
    return Respond(gate_, ctx, "ChangeOrderService/CreateChangeOrder", *req, resp,
                   [&](const Principal& p) { return ops::CreateChangeOrder(db_, p, *req); });
  }
  Status GetChangeOrder(ServerContext* ctx, const v1::GetChangeOrderRequest* req,
                        v1::ChangeOrder* resp) override {
    return Respond(gate_, ctx, "ChangeOrderService/GetChangeOrder", *req, resp,
                   [&](const Principal& p) { return ops::GetChangeOrder(db_, p, *req); });
  }
  Status ListChangeOrders(ServerContext* ctx, const v1::ListChangeOrdersRequest* req,
                          v1::ListChangeOrdersResponse* resp) override {
    return Respond(gate_, ctx, "ChangeOrderService/ListChangeOrders", *req, resp,
                   [&](const Principal& p) { return ops::ListChangeOrders(db_, p, *req); });
  }
  Status UpdateChangeOrder(ServerContext* ctx, const v1::UpdateChangeOrderRequest* req,
                           v1::ChangeOrder* resp) override {
    return Respond(gate_, ctx, "ChangeOrderService/UpdateChangeOrder", *req, resp,
                   [&](const Principal& p) { return ops::UpdateChangeOrder(db_, p, *req); });
  }
  Status Promote(ServerContext* ctx, const v1::PromoteRequest* req,
                 v1::PromoteResponse* resp) override {
    return Respond(gate_, ctx, "ChangeOrderService/Promote", *req, resp,
                   [&](const Principal& p) { return ops::Promote(db_, p, *req); });
  }
  Status Demote(ServerContext* ctx, const v1::DemoteRequest* req,
                v1::DemoteResponse* resp) override {
    return Respond(gate_, ctx, "ChangeOrderService/Demote", *req, resp,
                   [&](const Principal& p) { return ops::Demote(db_, p, *req); });
  }

 private:
  CallGate& gate_;
  store::ConnectionPool& db_;
};

class AttestationServiceImpl final : public v1::AttestationService::Service {
 public:
  explicit AttestationServiceImpl(CallGate& gate) : gate_(gate), db_(gate.db()) {}
  Status Approve(ServerContext* ctx, const v1::ApproveRequest* req,
                 v1::ApproveResponse* resp) override {
    return Respond(gate_, ctx, "AttestationService/Approve", *req, resp,
                   [&](const Principal& p) { return ops::Approve(db_, p, *req); });
  }
  Status GetAttestation(ServerContext* ctx, const v1::GetAttestationRequest* req,
                        v1::Attestation* resp) override {
    return Respond(gate_, ctx, "AttestationService/GetAttestation", *req, resp,
                   [&](const Principal& p) { return ops::GetAttestation(db_, p, *req); });
  }
  Status ListAttestations(ServerContext* ctx, const v1::ListAttestationsRequest* req,
                          v1::ListAttestationsResponse* resp) override {
    return Respond(gate_, ctx, "AttestationService/ListAttestations", *req, resp,
                   [&](const Principal& p) { return ops::ListAttestations(db_, p, *req); });
  }
  Status RevokeAttestation(ServerContext* ctx, const v1::RevokeAttestationRequest* req,
                           v1::Attestation* resp) override {
    return Respond(gate_, ctx, "AttestationService/RevokeAttestation", *req, resp,
                   [&](const Principal& p) { return ops::RevokeAttestation(db_, p, *req); });
  }

 private:
  CallGate& gate_;
  store::ConnectionPool& db_;
};

class TargetServiceImpl final : public v1::TargetService::Service {
 public:
  explicit TargetServiceImpl(CallGate& gate) : gate_(gate), db_(gate.db()) {}
  Status CreateTarget(ServerContext* ctx, const v1::CreateTargetRequest* req,
                      v1::Target* resp) override {
    return Respond(gate_, ctx, "TargetService/CreateTarget", *req, resp,
                   [&](const Principal& p) { return ops::CreateTarget(db_, p, *req); });
  }
  Status GetTarget(ServerContext* ctx, const v1::GetTargetRequest* req, v1::Target* resp) override {
    return Respond(gate_, ctx, "TargetService/GetTarget", *req, resp,
                   [&](const Principal& p) { return ops::GetTarget(db_, p, *req); });
  }
  Status ListTargets(ServerContext* ctx, const v1::ListTargetsRequest* req,
                     v1::ListTargetsResponse* resp) override {
    return Respond(gate_, ctx, "TargetService/ListTargets", *req, resp,
                   [&](const Principal& p) { return ops::ListTargets(db_, p, *req); });
  }
  Status UpdateTarget(ServerContext* ctx, const v1::UpdateTargetRequest* req,
                      v1::Target* resp) override {
    return Respond(gate_, ctx, "TargetService/UpdateTarget", *req, resp,
                   [&](const Principal& p) { return ops::UpdateTarget(db_, p, *req); });
  }
  Status DeleteTarget(ServerContext* ctx, const v1::DeleteTargetRequest* req,
                      v1::DeleteTargetResponse* resp) override {
    return Respond(gate_, ctx, "TargetService/DeleteTarget", *req, resp,
                   Empty<v1::DeleteTargetResponse>(
                       [&](const Principal& p) { return ops::DeleteTarget(db_, p, *req); }));
  }

 private:
  CallGate& gate_;
  store::ConnectionPool& db_;
};

class ReleaseServiceImpl final : public v1::ReleaseService::Service {
 public:
  ReleaseServiceImpl(CallGate& gate, const ops::ReleaseEnv& env)
      : gate_(gate), db_(gate.db()), env_(env) {}
  Status PublishRelease(ServerContext* ctx, const v1::PublishReleaseRequest* req,
                        v1::Release* resp) override {
    return Respond(gate_, ctx, "ReleaseService/PublishRelease", *req, resp,
                   [&](const Principal& p) { return ops::PublishRelease(db_, env_, p, *req); });
  }
  Status GetRelease(ServerContext* ctx, const v1::GetReleaseRequest* req,
                    v1::Release* resp) override {
    return Respond(gate_, ctx, "ReleaseService/GetRelease", *req, resp,
                   [&](const Principal& p) { return ops::GetRelease(db_, p, *req); });
  }
  Status ListReleases(ServerContext* ctx, const v1::ListReleasesRequest* req,
                      v1::ListReleasesResponse* resp) override {
    return Respond(gate_, ctx, "ReleaseService/ListReleases", *req, resp,
                   [&](const Principal& p) { return ops::ListReleases(db_, p, *req); });
  }
  Status SetReleaseStatus(ServerContext* ctx, const v1::SetReleaseStatusRequest* req,
                          v1::Release* resp) override {
    return Respond(gate_, ctx, "ReleaseService/SetReleaseStatus", *req, resp,
                   [&](const Principal& p) { return ops::SetReleaseStatus(db_, env_, p, *req); });
  }
  Status ReleaseHistory(ServerContext* ctx, const v1::ReleaseHistoryRequest* req,
                        v1::ReleaseHistoryResponse* resp) override {
    return Respond(gate_, ctx, "ReleaseService/ReleaseHistory", *req, resp,
                   [&](const Principal& p) { return ops::ReleaseHistory(db_, p, *req); });
  }
  Status VerifyRelease(ServerContext* ctx, const v1::VerifyReleaseRequest* req,
                       v1::VerifyReleaseResponse* resp) override {
    return Respond(gate_, ctx, "ReleaseService/VerifyRelease", *req, resp,
                   [&](const Principal& p) { return ops::VerifyRelease(db_, env_, p, *req); });
  }

 private:
  CallGate& gate_;
  store::ConnectionPool& db_;
  const ops::ReleaseEnv& env_;
};

// The public half of the signing key, for checking records offline; any authenticated caller.
class ServerServiceImpl final : public v1::ServerService::Service {
 public:
  ServerServiceImpl(CallGate& gate, const ops::ReleaseEnv& env)
      : gate_(gate), db_(gate.db()), env_(env) {}
  Status GetPublicKey(ServerContext* ctx, const v1::GetPublicKeyRequest* req,
                      v1::PublicKey* resp) override {
    return Respond(
        gate_, ctx, "ServerService/GetPublicKey", *req, resp,
        [&](const Principal&) -> absl::StatusOr<v1::PublicKey> { return ops::GetPublicKey(env_); });
  }

 private:
  CallGate& gate_;
  store::ConnectionPool& db_;
  const ops::ReleaseEnv& env_;
};

class TagServiceImpl final : public v1::TagService::Service {
 public:
  explicit TagServiceImpl(CallGate& gate) : gate_(gate), db_(gate.db()) {}
  Status CreateTag(ServerContext* ctx, const v1::CreateTagRequest* req, v1::Tag* resp) override {
    return Respond(gate_, ctx, "TagService/CreateTag", *req, resp,
                   [&](const Principal& p) { return ops::CreateTag(db_, p, *req); });
  }
  Status GetTag(ServerContext* ctx, const v1::GetTagRequest* req, v1::TagWithMarks* resp) override {
    return Respond(gate_, ctx, "TagService/GetTag", *req, resp,
                   [&](const Principal& p) { return ops::GetTag(db_, p, *req); });
  }
  Status ListTags(ServerContext* ctx, const v1::ListTagsRequest* req,
                  v1::ListTagsResponse* resp) override {
    return Respond(gate_, ctx, "TagService/ListTags", *req, resp,
                   [&](const Principal& p) { return ops::ListTags(db_, p, *req); });
  }

 private:
  CallGate& gate_;
  store::ConnectionPool& db_;
};

class VariantServiceImpl final : public v1::VariantService::Service {
 public:
  explicit VariantServiceImpl(CallGate& gate) : gate_(gate), db_(gate.db()) {}
  Status CreateVariant(ServerContext* ctx, const v1::CreateVariantRequest* req,
                       v1::CreateVariantResponse* resp) override {
    return Respond(gate_, ctx, "VariantService/CreateVariant", *req, resp,
                   [&](const Principal& p) { return ops::CreateVariant(db_, p, *req); });
  }

 private:
  CallGate& gate_;
  store::ConnectionPool& db_;
};

class LinkServiceImpl final : public v1::LinkService::Service {
 public:
  explicit LinkServiceImpl(CallGate& gate) : gate_(gate), db_(gate.db()) {}
  Status CreateLink(ServerContext* ctx, const v1::CreateLinkRequest* req, v1::Link* resp) override {
    return Respond(gate_, ctx, "LinkService/CreateLink", *req, resp,
                   [&](const Principal& p) { return ops::CreateLink(db_, p, *req); });
  }
  Status GetLink(ServerContext* ctx, const v1::GetLinkRequest* req, v1::Link* resp) override {
    return Respond(gate_, ctx, "LinkService/GetLink", *req, resp,
                   [&](const Principal& p) { return ops::GetLink(db_, p, *req); });
  }
  Status ListLinks(ServerContext* ctx, const v1::ListLinksRequest* req,
                   v1::ListLinksResponse* resp) override {
    return Respond(gate_, ctx, "LinkService/ListLinks", *req, resp,
                   [&](const Principal& p) { return ops::ListLinks(db_, p, *req); });
  }

 private:
  CallGate& gate_;
  store::ConnectionPool& db_;
};

class FilterServiceImpl final : public v1::FilterService::Service {
 public:
  explicit FilterServiceImpl(CallGate& gate) : gate_(gate), db_(gate.db()) {}
  Status CreateFilter(ServerContext* ctx, const v1::CreateFilterRequest* req,
                      v1::Filter* resp) override {
    return Respond(gate_, ctx, "FilterService/CreateFilter", *req, resp,
                   [&](const Principal& p) { return ops::CreateFilter(db_, p, *req); });
  }
  Status GetFilter(ServerContext* ctx, const v1::GetFilterRequest* req, v1::Filter* resp) override {
    return Respond(gate_, ctx, "FilterService/GetFilter", *req, resp,
                   [&](const Principal& p) { return ops::GetFilter(db_, p, *req); });
  }
  Status ListFilters(ServerContext* ctx, const v1::ListFiltersRequest* req,
                     v1::ListFiltersResponse* resp) override {
    return Respond(gate_, ctx, "FilterService/ListFilters", *req, resp,
                   [&](const Principal& p) { return ops::ListFilters(db_, p, *req); });
  }

 private:
  CallGate& gate_;
  store::ConnectionPool& db_;
};

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
  out.push_back(std::make_unique<ChangeOrderServiceImpl>(gate));
  out.push_back(std::make_unique<TargetServiceImpl>(gate));
  out.push_back(std::make_unique<AttestationServiceImpl>(gate));
  out.push_back(std::make_unique<ReleaseServiceImpl>(gate, release_env));
  out.push_back(std::make_unique<ServerServiceImpl>(gate, release_env));
  out.push_back(std::make_unique<VariantServiceImpl>(gate));
  out.push_back(std::make_unique<LinkServiceImpl>(gate));
  out.push_back(std::make_unique<FilterServiceImpl>(gate));
  return out;
}

}  // namespace cub::server
