#include "server/health.h"

#include <grpcpp/impl/server_builder_option.h>
#include <grpcpp/impl/server_builder_plugin.h>
#include <grpcpp/impl/server_initializer.h>
#include <libpq-fe.h>

#include <chrono>
#include <cstring>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "lib/store/ops_gauges.h"
#include "lib/store/transaction.h"
#include "server/request_log.h"

namespace cub::server {
namespace {

int64_t SteadyNanos() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

class ServiceNamesPlugin : public grpc::ServerBuilderPlugin {
 public:
  explicit ServiceNamesPlugin(std::vector<std::string>* out) : out_(out) {}
  std::string name() override { return "cub_service_names"; }
  void InitServer(grpc::ServerInitializer* si) override {
    if (const auto* names = si->GetServiceList()) *out_ = *names;
  }
  void Finish(grpc::ServerInitializer*) override {}
  void ChangeArguments(const std::string&, void*) override {}

 private:
  std::vector<std::string>* out_;
};

class NamesOption : public grpc::ServerBuilderOption {
 public:
  explicit NamesOption(std::vector<std::string>* out) : out_(out) {}
  void UpdateArguments(grpc::ChannelArguments*) override {}
  void UpdatePlugins(std::vector<std::unique_ptr<grpc::ServerBuilderPlugin>>* plugins) override {
    plugins->push_back(std::make_unique<ServiceNamesPlugin>(out_));
  }

 private:
  std::vector<std::string>* out_;
};

HttpResponse Text(int status, std::string body) {
  HttpResponse r;
  r.status = status;
  r.body = std::move(body);
  r.headers.emplace_back("Cache-Control", "no-store");
  return r;
}

// `url` with libpq's connect_timeout, so that a probe of an unreachable host (no answer at all,
// not a refusal) gives up within seconds; a URL that already sets one is kept as it is. libpq
// itself reads the URL (either form): a password file makes it key=value text whose quoted
// password may hold anything, "://" and "connect_timeout" included.
std::string WithConnectTimeout(const std::string& url) {
  char* err = nullptr;
  PQconninfoOption* opts = PQconninfoParse(url.c_str(), &err);
  if (opts == nullptr) {
    PQfreemem(err);
    return url;  // the pool's own connect reports what is wrong with it
  }
  bool has_timeout = false;
  for (PQconninfoOption* o = opts; o->keyword != nullptr; ++o) {
    if (std::strcmp(o->keyword, "connect_timeout") == 0) has_timeout = o->val != nullptr;
  }
  PQconninfoFree(opts);
  if (has_timeout) return url;
  if (absl::StartsWith(url, "postgresql://") || absl::StartsWith(url, "postgres://")) {
    return absl::StrCat(url, absl::StrContains(url, "?") ? "&" : "?", "connect_timeout=3");
  }
  return absl::StrCat(url, " connect_timeout=3");  // key=value form
}

}  // namespace

std::unique_ptr<grpc::ServerBuilderOption> ServiceNamesOption(std::vector<std::string>* out) {
  return std::make_unique<NamesOption>(out);
}

Health::Health(std::string db_url, Metrics* metrics, HealthOptions options)
    : probe_pool_(WithConnectTimeout(db_url), 1), metrics_(metrics), options_(options) {}

Health::~Health() { Stop(); }

void Health::Start(grpc::HealthCheckServiceInterface* grpc_health,
                   std::vector<std::string> services) {
  grpc_health_ = grpc_health;
  services_ = std::move(services);
  Probe();
  thread_ = std::thread([this] {
    std::unique_lock<std::mutex> lock(mu_);
    while (!stop_) {
      cv_.wait_for(lock, absl::ToChronoNanoseconds(options_.interval));
      if (stop_) break;
      lock.unlock();
      Probe();
      lock.lock();
    }
  });
}

void Health::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void Health::SetDraining() {
  draining_ = true;
  if (metrics_ != nullptr) metrics_->SetDraining();
  Publish();
}

void Health::Probe() {
  auto gauges =
      store::InReadTransaction(probe_pool_, [](store::Tx& tx) { return store::ReadOpsGauges(tx); });
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (gauges.ok()) {
      last_ok_nanos_ = SteadyNanos();
      if (!last_error_.empty()) LogMessage("cubd: health: the database answers again");
      last_error_.clear();
    } else {
      std::string error(gauges.status().message());
      if (error != last_error_) {
        LogMessage(absl::StrCat("cubd: health: database unreachable, not ready: ", error));
      }
      last_error_ = std::move(error);
    }
  }
  if (metrics_ != nullptr)
    metrics_->SetDatabaseState(gauges.ok(), gauges.ok() ? &*gauges : nullptr);
  Publish();
}

std::string Health::NotReadyReason() const {
  if (draining_) return "draining after SIGTERM";
  const int64_t last = last_ok_nanos_;
  std::lock_guard<std::mutex> lock(mu_);
  // The driver's text names hosts, ports and roles; /readyz answers anyone, so it stays in the
  // log (written when the probe failed).
  if (!last_error_.empty()) return "database unreachable (the reason is in cubd's log)";
  if (last == 0) return "database not probed yet";
  const absl::Duration since = absl::Nanoseconds(SteadyNanos() - last);
  if (since > options_.stale) {
    return absl::StrCat("database probe unanswered for ", absl::FormatDuration(since));
  }
  return "";
}

void Health::Publish() {
  const bool serving = NotReadyReason().empty();
  std::lock_guard<std::mutex> lock(mu_);
  if (published_ == serving || grpc_health_ == nullptr) return;
  published_ = serving;
  grpc_health_->SetServingStatus(serving);  // "" and every name set before
  for (const auto& s : services_) grpc_health_->SetServingStatus(s, serving);
}

std::optional<HttpResponse> ServeOpsEndpoint(const HttpRequest& req, const Health& health,
                                             const Metrics& metrics,
                                             const store::ConnectionPool* pool) {
  if (req.path != "/readyz" && req.path != "/metrics") return std::nullopt;
  if (req.method != "GET" && req.method != "HEAD") {
    HttpResponse r =
        Text(405, absl::StrCat("method ", req.method, " is not allowed here; use GET"));
    r.headers.emplace_back("Allow", "GET, HEAD");
    return r;
  }
  if (req.path == "/metrics") {
    HttpResponse r = Text(200, metrics.Render(pool));
    r.content_type = "text/plain; version=0.0.4; charset=utf-8";
    return r;
  }
  std::string why = health.NotReadyReason();
  if (why.empty()) return Text(200, "ready");
  return Text(503, absl::StrCat("not ready: ", why));
}

}  // namespace cub::server
