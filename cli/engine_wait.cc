#include "cli/engine_wait.h"

#include <chrono>
#include <thread>

#include "absl/strings/str_cat.h"
#include "cli/progress.h"
#include "cub/v1/changeorder.grpc.pb.h"
#include "cub/v1/event.grpc.pb.h"

namespace cub::cli {
namespace {

constexpr int kPage = 1000;  // the most ListEvents returns at once
constexpr auto kPoll = std::chrono::milliseconds(200);

// Every event of `ref` after `after_id`, page by page.
bool EventsAfter(Client& client, const std::string& ref, int64_t after_id, const std::string& since,
                 cub::v1::ListEventsResponse* out) {
  cub::v1::ListEventsRequest req;
  req.set_change_order(ref);
  req.set_after_id(after_id);
  if (!since.empty()) req.set_where(absl::StrCat("At >= '", since, "'"));
  req.set_limit(kPage);
  for (;;) {
    cub::v1::ListEventsResponse page;
    if (!client.Call(&cub::v1::EventService::Stub::ListEvents, req, &page)) return false;
    for (auto& e : *page.mutable_events()) *out->add_events() = std::move(e);
    if (page.events_size() < kPage) return true;
    req.set_after_id(out->events(out->events_size() - 1).id());
  }
}

}  // namespace

bool LatestEventId(const Env& env, const std::string& ref, int64_t* id) {
  std::unique_ptr<Client> client = Connect(env);
  cub::v1::ListEventsResponse all;
  if (client == nullptr || !EventsAfter(*client, ref, 0, "", &all)) return false;
  *id = all.events_size() > 0 ? all.events(all.events_size() - 1).id() : 0;
  return true;
}

int WaitForEngine(const Env& env, const std::string& ref, int64_t after_id,
                  const std::string& since) {
  std::unique_ptr<Client> client = Connect(env);
  if (client == nullptr) return kExitFailed;
  size_t slash = ref.find('/');
  cub::v1::GetChangeOrderRequest get;
  get.set_space(ref.substr(0, slash));
  get.set_change_order(slash == std::string::npos ? ref : ref.substr(slash + 1));
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::seconds(env.globals.timeout_seconds);
  cub::v1::ChangeOrder co;
  TerminalProgress progress(ProgressWanted(env),
                            absl::StrCat("Waiting for cubd's promotion engine to act on ", ref));
  for (;;) {
    if (!client->Call(&cub::v1::ChangeOrderService::Stub::GetChangeOrder, get, &co)) {
      return kExitFailed;
    }
    if (!co.engine().pending()) break;
    if (std::chrono::steady_clock::now() > deadline) {
      PrintFailure(absl::StrCat("cubd has not acted on change order ", ref, " within ",
                                env.globals.timeout_seconds,
                                "s (--timeout); is a cubd with the promotion engine running? "
                                "(cubd serve --no-engine runs none)"));
      return kExitFailed;
    }
    std::this_thread::sleep_for(kPoll);
  }
  progress.Stop();
  cub::v1::ListEventsResponse events;
  if (!EventsAfter(*client, ref, after_id, since, &events)) return kExitFailed;
  const Printer printer = env.printer();
  if (!printer.table()) return kExitOk;  // the response was the document
  std::string text = absl::StrCat("cubd acted on ", ref, ":\n");
  for (const auto& e : events.events()) {
    absl::StrAppend(&text, "  ", e.at(), " ", e.kind(), e.stage().empty() ? "" : " " + e.stage(),
                    " by ", e.user(), ": ", e.message(), "\n");
  }
  if (events.events_size() == 0) absl::StrAppend(&text, "  nothing more to do for now\n");
  const cub::v1::EngineState& s = co.engine();
  if (!s.due_at().empty()) {
    absl::StrAppend(&text, "  it looks again at ", s.due_at(),
                    s.last_error().empty() ? "" : " (after: " + s.last_error() + ")", "\n");
  }
  return printer.Text(text);
}

}  // namespace cub::cli
