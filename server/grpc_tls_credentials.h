// gRPC server credentials that serve the pair a TlsReloader holds, and the next one once it
// changes, without a restart. gRPC 1.51's own FileWatcherCertificateProvider would take any
// pair the files hold, a mismatched one too (it has no key check yet), so cubd feeds gRPC's
// SSL credentials from its own reloader instead, through their certificate-config fetcher
// (called at each new handshake; it answers "unchanged" until the generation moves on).
#ifndef CUB_SERVER_GRPC_TLS_CREDENTIALS_H_
#define CUB_SERVER_GRPC_TLS_CREDENTIALS_H_

#include <grpcpp/security/server_credentials.h>

#include <memory>

#include "server/tls_reloader.h"

namespace cub::server {

// `reloader` must stay running while the server these credentials are added to serves (it
// is shared here, so it lives at least as long as the credentials).
std::shared_ptr<grpc::ServerCredentials> ReloadingTlsCredentials(
    std::shared_ptr<TlsReloader> reloader);

}  // namespace cub::server

#endif  // CUB_SERVER_GRPC_TLS_CREDENTIALS_H_
