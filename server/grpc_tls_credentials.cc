#include "server/grpc_tls_credentials.h"

#include <grpc/grpc.h>
#include <grpc/grpc_security.h>

#include <atomic>
#include <string>

namespace cub::server {
namespace {

// grpc::ServerCredentials over a C-core SSL credentials object: the C++ API of gRPC 1.51 has
// no way to build SSL credentials with a config fetcher, but a ServerCredentials need only
// add its port, as grpc::SecureServerCredentials does.
class ReloadingCredentials final : public grpc::ServerCredentials {
 public:
  explicit ReloadingCredentials(std::shared_ptr<TlsReloader> reloader)
      : reloader_(std::move(reloader)) {
    grpc_ssl_server_credentials_options* options =
        grpc_ssl_server_credentials_create_options_using_config_fetcher(
            GRPC_SSL_DONT_REQUEST_CLIENT_CERTIFICATE, &Fetch, this);
    creds_ = grpc_ssl_server_credentials_create_with_options(options);  // takes `options`
  }
  ~ReloadingCredentials() override { grpc_server_credentials_release(creds_); }

  // cubd authenticates calls in its own call gate (server/call.h), not by a metadata processor.
  void SetAuthMetadataProcessor(const std::shared_ptr<grpc::AuthMetadataProcessor>&) override {}

 private:
  int AddPortToServer(const std::string& addr, grpc_server* server) override {
    return grpc_server_add_http2_port(server, addr.c_str(), creds_);
  }

  // Called by gRPC when it sets up its server handshakers (first at AddPort) and before
  // every handshake: a new config when the reloader holds a newer pair.
  static grpc_ssl_certificate_config_reload_status Fetch(
      void* self, grpc_ssl_server_certificate_config** config) {
    auto* c = static_cast<ReloadingCredentials*>(self);
    uint64_t generation = 0;
    std::shared_ptr<const TlsPem> pem = c->reloader_->current(&generation);
    uint64_t served = c->served_.load();
    if (generation == served) return GRPC_SSL_CERTIFICATE_CONFIG_RELOAD_UNCHANGED;
    if (!c->served_.compare_exchange_strong(served, generation)) {
      return GRPC_SSL_CERTIFICATE_CONFIG_RELOAD_UNCHANGED;  // another handshake took it
    }
    grpc_ssl_pem_key_cert_pair pair{pem->private_key.c_str(), pem->cert_chain.c_str()};
    // gRPC 1.51 asserts that a fetched config has client roots even when it requests no
    // client certificate; the server's own chain serves, and is never used to verify anyone.
    *config = grpc_ssl_server_certificate_config_create(pem->cert_chain.c_str(), &pair,
                                                        1);  // copies
    return GRPC_SSL_CERTIFICATE_CONFIG_RELOAD_NEW;
  }

  const std::shared_ptr<TlsReloader> reloader_;
  std::atomic<uint64_t> served_{0};  // the generation gRPC was last given
  grpc_server_credentials* creds_ = nullptr;
};

}  // namespace

std::shared_ptr<grpc::ServerCredentials> ReloadingTlsCredentials(
    std::shared_ptr<TlsReloader> reloader) {
  return std::make_shared<ReloadingCredentials>(std::move(reloader));
}

}  // namespace cub::server
