#include "server/serve.h"

#include <grpcpp/ext/proto_server_reflection_plugin.h>
#include <grpcpp/grpcpp.h>
#include <grpcpp/health_check_service_interface.h>
#include <pthread.h>
#include <signal.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <climits>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "google/protobuf/descriptor.h"
#include "lib/oci/verify.h"
#include "lib/ops/key_ring_db.h"
#include "lib/ops/releases.h"
#include "lib/ops/target_env.h"
#include "lib/store/embedded_pg.h"
#include "lib/store/pool.h"
#include "lib/util/status_macros.h"
#include "server/delivery_worker.h"
#include "server/engine.h"
#include "server/grpc_tls_credentials.h"
#include "server/health.h"
#include "server/listen_guard.h"
#include "server/metrics.h"
#include "server/request_log.h"
#include "server/rest_gateway.h"
#include "server/services.h"
#include "server/tls_reloader.h"
#include "server/ui_routes.h"

namespace cub::server {
namespace {

// How long a shutdown waits for in-flight calls before cancelling them.
constexpr int kDrainSeconds = 20;

absl::StatusOr<std::string> ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot read ", path));
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

int Fail(const std::string& what, const absl::Status& s) {
  LogMessageF("cubd: %s: %s", what.c_str(), std::string(s.message()).c_str());
  return 1;
}

std::chrono::milliseconds Millis(double seconds) {
  return std::chrono::milliseconds(static_cast<int64_t>(seconds * 1000));
}

HttpServerOptions HttpOptions(const ServeOptions& opts) {
  HttpServerOptions o;
  o.threads = opts.threads;
  o.max_connections = opts.http_max_connections;
  o.max_connections_per_client = opts.http_max_connections_per_client;
  o.max_header_bytes = opts.http_max_header_bytes;
  o.max_body_bytes = opts.http_max_body_bytes;
  o.header_timeout = Millis(opts.http_header_timeout_s);
  o.transfer_timeout = Millis(opts.http_body_timeout_s);
  o.keepalive_timeout = Millis(opts.http_idle_timeout_s);
  // A read inside a request may stall no longer than the header timeout either.
  o.io_timeout = std::min(o.io_timeout, o.header_timeout);
  return o;
}

// The gRPC listener's credentials: TLS from the two files, reloaded when they change
// (`reloader`), or plaintext; `tls` names the files for the REST mirror.
absl::StatusOr<std::shared_ptr<grpc::ServerCredentials>> Credentials(
    const ServeOptions& opts, TlsFiles* tls, std::shared_ptr<TlsReloader>* reloader) {
  if (opts.tls_cert.empty()) return grpc::InsecureServerCredentials();
  *tls = TlsFiles{opts.tls_cert, opts.tls_key};
  CUB_ASSIGN_OR_RETURN(*reloader, TlsReloader::Start(*tls, Millis(opts.tls_reload_interval_s)));
  return ReloadingTlsCredentials(*reloader);
}

// New connections to the REST mirror get each pair `reloader` takes.
void ReloadRestTls(TlsReloader* reloader, HttpServer* http) {
  if (reloader == nullptr || http == nullptr) return;
  reloader->Subscribe([http](const TlsPem& pem) {
    if (absl::Status s = http->ReplaceTls(pem); !s.ok()) {
      LogMessageF("cubd: REST/JSON TLS certificate not reloaded: %s",
                  std::string(s.message()).c_str());
    }
  });
}

// The keys Releases and records are signed and verified with: the signing key --signing-key,
// or signing-key.pem in the data directory, created there on first use (unless
// --no-create-signing-key), and the trusted keys of the database (lib/ops/key_ring_db.h).
absl::StatusOr<std::shared_ptr<ops::DbKeyRing>> OpenKeyRing(const ServeOptions& opts,
                                                            const std::string& data_dir,
                                                            const std::string& db_url) {
  ops::DbKeyRingOptions ko;
  ko.key_path = opts.signing_key.empty() ? data_dir + "/signing-key.pem" : opts.signing_key;
  ko.create_key = opts.create_signing_key;
  ko.log = [](const std::string& line) { LogMessageF("cubd: %s", line); };
  if (ko.create_key) {
    // The default lives in the data directory, which an external database leaves uncreated.
    std::error_code ignored;
    std::filesystem::create_directories(std::filesystem::path(ko.key_path).parent_path(), ignored);
  }
  return ops::DbKeyRing::Open(db_url, std::move(ko));
}

// What Targets' providers get (lib/ops/target_env.h), from the --work-dir and --git-* flags;
// logs the commit signer's public key, for allowed-signers files.
absl::StatusOr<targets::ProviderEnv> TargetEnvOf(const ServeOptions& opts,
                                                 const std::string& data_dir) {
  auto env =
      ops::MakeTargetEnv({opts.work_dir.empty() ? data_dir + "/targets" : opts.work_dir,
                          opts.git_credentials_dir, opts.git_signing_key, opts.git_committer});
  if (env.ok()) {
    if (std::string pub = ops::SignerPublicKey(*env); !pub.empty()) {
      LogMessageF("cubd: signing Git commits with %s", pub.c_str());
    }
  }
  return env;
}

// The gRPC server on --listen with `services`; null when it cannot listen there.
// `service_names` gets the names of the services it serves (for the health service).
std::unique_ptr<grpc::Server> StartGrpc(const ServeOptions& opts,
                                        std::shared_ptr<grpc::ServerCredentials> creds,
                                        const std::vector<std::unique_ptr<grpc::Service>>& services,
                                        std::vector<std::string>* service_names) {
  grpc::EnableDefaultHealthCheckService(true);
  grpc::reflection::InitProtoReflectionServerBuilderPlugin();
  grpc::ServerBuilder builder;
  int bound_port = 0;
  builder.AddListeningPort(opts.listen, std::move(creds), &bound_port);
  grpc::ResourceQuota quota("cubd");
  // Each sync-server thread may hold one pooled connection; a couple more poll for work. An
  // open watch stream holds a thread too (and a connection of its own, a pooled one only while
  // it reads a snapshot), so they have threads of their own and cannot starve other calls.
  quota.SetMaxThreads(opts.threads + 2 + opts.edge.max_watch_streams);
  builder.SetResourceQuota(quota);
  // A second cubd must not bind a port in use and take half of its calls (gRPC sets
  // SO_REUSEPORT by default).
  builder.AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, 0);
  const int max_request = static_cast<int>(std::min<int64_t>(MaxRequestBytes(opts.edge), INT_MAX));
  builder.SetMaxReceiveMessageSize(max_request);
  for (auto& s : services) builder.RegisterService(s.get());
  builder.SetOption(ServiceNamesOption(service_names));
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  if (bound_port == 0) server.reset();
  return server;
}

// The REST/JSON mirror on --http-listen, calling `server` in-process through `gateway`.
// /readyz and /metrics are answered from `health` and `metrics` before the gateway is asked;
// the dashboard (/, /ui/) and its session cookie are served in front of it (server/ui_routes.h).
absl::StatusOr<std::unique_ptr<HttpServer>> StartRest(const ServeOptions& opts, const TlsFiles& tls,
                                                      grpc::Server& server,
                                                      std::unique_ptr<RestGateway>* gateway,
                                                      const Health& health, const Metrics& metrics,
                                                      const store::ConnectionPool& pool) {
  grpc::ChannelArguments args;
  args.SetMaxReceiveMessageSize(64 << 20);  // as large as the server accepts
  *gateway = std::make_unique<RestGateway>(server.InProcessChannel(args),
                                           google::protobuf::DescriptorPool::generated_pool());
  HttpHandler api = (*gateway)->AsHandler();
  UiOptions ui;
  ui.tls = !tls.cert_file.empty();
  ui.public_url = opts.ui_url;
  ui.oidc_ca_file = opts.identity.oidc_ca_file;
  return HttpServer::Start(opts.http_listen, tls, HttpOptions(opts),
                           [api, ui, &health, &metrics, &pool](const HttpRequest& r) {
                             if (auto ops = ServeOpsEndpoint(r, health, metrics, &pool)) {
                               return *std::move(ops);
                             }
                             return ServeWithDashboard(r, api, ui);
                           });
}

// The identities bearer tokens may name: `opts.identity` with the issuers of the --oidc-*
// flags and of the --oidc-config file. Only checked here, never fetched: a provider that is
// down at startup costs its logins until it is back, not cubd's start.
absl::StatusOr<ops::IdentityOptions> IdentityOf(const ServeOptions& opts) {
  std::string config_text;
  if (!opts.oidc.config_file.empty()) {
    auto text = ReadFile(opts.oidc.config_file);
    if (!text.ok())
      return absl::InvalidArgumentError("--oidc-config: " + std::string(text.status().message()));
    config_text = *std::move(text);
  }
  if (!opts.identity.oidc_ca_file.empty()) {
    auto ca = ReadFile(opts.identity.oidc_ca_file);
    if (!ca.ok())
      return absl::InvalidArgumentError("--oidc-ca-file: " + std::string(ca.status().message()));
  }
  return ops::ResolveIdentity(opts.identity, opts.oidc, config_text);
}

// The delivery workers of --delivery-workers, started (they run with or without the engine).
std::unique_ptr<DeliveryWorkers> StartDelivery(const ServeOptions& opts,
                                               store::ConnectionPool& pool,
                                               const ops::ReleaseEnv& env) {
  DeliveryWorkerOptions dwo;
  dwo.workers = opts.delivery_workers;
  auto workers = std::make_unique<DeliveryWorkers>(pool, env, dwo);
  workers->Start();
  return workers;
}

// The promotion engine, started, unless --no-engine (then `*engine` stays null).
absl::Status StartEngine(const ServeOptions& opts, const std::string& db_url,
                         store::ConnectionPool& pool, const ops::ReleaseEnv& release_env,
                         Metrics& metrics, std::unique_ptr<Engine>* engine) {
  if (!opts.engine) {
    LogMessageF("cubd: engine off (--no-engine): serving the API only");
    return absl::OkStatus();
  }
  EngineOptions eo;
  eo.workers = opts.engine_workers;
  eo.metrics = &metrics;
  *engine = std::make_unique<Engine>(db_url, ops::EngineEnv{&pool, release_env, {}}, eo);
  return (*engine)->Start();
}

// The flags that need looking at before anything starts (logged here), and the identities
// bearer tokens may name; an error is the process's exit code 2.
absl::StatusOr<ops::IdentityOptions> CheckOptions(const DatabaseOptions& db_opts,
                                                  const ServeOptions& opts) {
  if (LogFormat f; ParseLogFormat(opts.log_format, &f)) {
    SetLogFormat(f);
  } else {
    return absl::InvalidArgumentError(
        absl::StrCat("--log-format ", opts.log_format, ": not text or json"));
  }
  if (opts.tls_cert.empty() != opts.tls_key.empty()) {
    return absl::InvalidArgumentError("--tls-cert and --tls-key go together");
  }
  CUB_RETURN_IF_ERROR(CheckEmbeddedDatabaseListen(db_opts.url.empty(), opts.allow_embedded_database,
                                                  {opts.listen, opts.http_listen}));
  CUB_ASSIGN_OR_RETURN(ops::IdentityOptions identity, IdentityOf(opts));
  for (const auto& i : identity.issuers) {
    LogMessageF("cubd: people may log in with OpenID issuer %s (client %s)", i.issuer.c_str(),
                i.client_id.c_str());
  }
  return identity;
}

// Waits for SIGTERM or SIGINT; then cubd is not ready, and keeps serving for --drain-delay
// (cut short by a second signal) so that load balancers stop sending it calls first.
void WaitForStop(const sigset_t& stop_signals, const ServeOptions& opts, Health& health) {
  int sig = 0;
  sigwait(&stop_signals, &sig);
  const char* sig_name = sig == SIGTERM ? "SIGTERM" : "SIGINT";
  health.SetDraining();
  if (opts.drain_delay_s > 0) {
    LogMessageF(
        "cubd: %s received, not ready; serving %.3g s more before draining (a second "
        "signal drains now)",
        sig_name, opts.drain_delay_s);
    const auto ns = static_cast<int64_t>(opts.drain_delay_s * 1e9);
    timespec delay{static_cast<time_t>(ns / 1000000000), static_cast<long>(ns % 1000000000)};
    while (sigtimedwait(&stop_signals, nullptr, &delay) < 0 && errno == EINTR) {
    }
  }
  LogMessageF("cubd: %s received, draining in-flight calls", sig_name);
}

}  // namespace

int Serve(const DatabaseOptions& db_opts, const ServeOptions& opts) {
  auto identity = CheckOptions(db_opts, opts);
  if (!identity.ok()) {
    LogMessageF("cubd: %s", std::string(identity.status().message()).c_str());
    return 2;
  }
  // Block the stop signals in every thread gRPC and the pool start; main waits for them.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

  DatabaseOptions own = db_opts;
  own.share_running = false;
  auto db = OpenServingDatabase(own);  // as the runtime role (docs/operations.md)
  if (!db.ok()) return Fail("database", db.status());
  for (const auto& m : db->applied) LogMessageF("cubd: applied migration %s", m.c_str());
  store::ConnectionPool pool(db->url, opts.threads);
  CallGate gate(pool, opts.edge, *std::move(identity));
  Metrics metrics;
  gate.set_metrics(&metrics);
  Health health(db->url, &metrics);

  TlsFiles tls;
  std::shared_ptr<TlsReloader> tls_reloader;
  auto creds = Credentials(opts, &tls, &tls_reloader);
  if (!creds.ok()) {
    LogMessageF("cubd: %s", std::string(creds.status().message()).c_str());
    return 1;
  }
  const std::string data_dir =
      db_opts.data_dir.empty() ? store::DefaultDataDir() : db_opts.data_dir;
  auto keys = OpenKeyRing(opts, data_dir, db->url);
  if (!keys.ok()) return Fail("--signing-key", keys.status());
  // Absolute, since Git Targets keep clones there whatever directory cubd runs in.
  ops::ReleaseEnv release_env;
  auto target_env = TargetEnvOf(opts, data_dir);
  if (!target_env.ok()) return Fail("Git targets", target_env.status());
  release_env.targets = *std::move(target_env);
  // Releases, records and OCI evidence are signed and verified with this ring.
  release_env.targets.keys = *keys;
  release_env.targets.verifications = std::make_shared<oci::VerificationCache>();
  auto services = MakeServices(gate, release_env);
  std::unique_ptr<Engine> engine;
  if (absl::Status s = StartEngine(opts, db->url, pool, release_env, metrics, &engine); !s.ok()) {
    return Fail("engine", s);
  }
  auto delivery = StartDelivery(opts, pool, release_env);
  std::vector<std::string> service_names;
  std::unique_ptr<grpc::Server> server = StartGrpc(opts, *creds, services, &service_names);
  if (!server) {
    LogMessageF("cubd: cannot listen on --listen %s: the address is in use or not valid",
                opts.listen.c_str());
    return 1;
  }
  health.Start(server->GetHealthCheckService(), service_names);
  LogMessageF("cubd: serving gRPC on %s%s", opts.listen.c_str(),
              opts.tls_cert.empty() ? " (plaintext)" : " (TLS)");

  std::unique_ptr<HttpServer> http;
  std::unique_ptr<RestGateway> gateway;
  if (!opts.http_listen.empty()) {
    auto started = StartRest(opts, tls, *server, &gateway, health, metrics, pool);
    if (!started.ok()) {
      health.Stop();  // before the server its gRPC health service belongs to
      server->Shutdown();
      return Fail(absl::StrCat("--http-listen ", opts.http_listen), started.status());
    }
    http = std::move(*started);
    LogMessageF("cubd: serving REST/JSON on %s", opts.http_listen.c_str());
  }
  ReloadRestTls(tls_reloader.get(), http.get());

  WaitForStop(stop_signals, opts, health);
  if (tls_reloader) tls_reloader->Stop();  // before the REST mirror it may reload goes
  // Watch streams run until their ChangeOrder completes: told to end first, they do within a
  // fraction of a second, and neither drain below waits for them.
  gate.streams().Stop();
  if (http) http->Shutdown();
  server->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(kDrainSeconds));
  server->Wait();
  health.Stop();
  if (engine) engine->Stop();  // lets a step in progress finish
  delivery->Stop();            // lets a pass in progress finish
  LogMessageF("cubd: stopped");
  return 0;
}

}  // namespace cub::server
