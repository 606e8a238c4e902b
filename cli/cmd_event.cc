// `cub event list [--follow]`: the event log, oldest first: what promotions, publishes, the queue
// and cubd's promotion engine did. --follow polls ListEvents, from the last ID it has settled
// (see Follow), so it needs nothing else of the server.
#include <chrono>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "cli/commands.h"
#include "cli/paged_list.h"
#include "cub/v1/event.grpc.pb.h"

namespace cub::cli {
namespace {

using cub::v1::Event;
using cub::v1::EventService;

constexpr int kServerDefaultLimit = 100;  // what cubd gives for Limit 0
constexpr auto kFollowInterval = std::chrono::seconds(1);

const std::vector<std::string>& Header() {
  static const auto* h = new std::vector<std::string>{"ID",           "AT",    "KIND", "SPACE",
                                                      "CHANGE-ORDER", "STAGE", "USER", "MESSAGE"};
  return *h;
}

std::vector<std::string> Row(const Event& e) {
  return {absl::StrCat(e.id()), e.at(),    e.kind(), e.space(),
          e.change_order(),     e.stage(), e.user(), e.message()};
}

// While following: table rows (the header only before the first batch), or one compact JSON
// object per line in the json and yaml formats.
int PrintBatch(const Printer& printer, const cub::v1::ListEventsResponse& resp, bool first) {
  std::string text;
  if (printer.table()) {
    Table t{Header(), {}};
    for (const Event& e : resp.events()) t.rows.push_back(Row(e));
    text = t.Render();
    if (!first) text.erase(0, text.find('\n') + 1);
  } else {
    for (const Event& e : resp.events()) absl::StrAppend(&text, MessageToCompactJson(e), "\n");
  }
  return printer.Text(text);
}

// IDs are taken when an event is written, not when its transaction commits, so an event can
// become visible after one with a higher ID was already printed (a publish writes its event
// before delivering to its Target). A follower therefore asks again from the last ID it has
// held long enough to call settled, and prints only IDs it has not printed yet.
constexpr auto kSettle = std::chrono::seconds(30);

// Prints what there is, then every event appended after it, until interrupted (or a call
// fails: exit code 1).
int Follow(const Env& env, cub::v1::ListEventsRequest req) {
  std::unique_ptr<Client> client = Connect(env);
  if (client == nullptr) return kExitFailed;
  const Printer printer = env.printer();
  const int page = req.limit() > 0 ? req.limit() : kServerDefaultLimit;
  int64_t settled = req.after_id();  // every event up to here has been printed (or skipped)
  std::map<int64_t, std::chrono::steady_clock::time_point> recent;  // printed, after `settled`
  bool first = true;
  for (;;) {
    req.set_after_id(settled);
    bool full = true;
    while (full) {
      cub::v1::ListEventsResponse resp, fresh;
      if (!client->Call(&EventService::Stub::ListEvents, req, &resp)) return kExitFailed;
      full = resp.events_size() >= page;
      for (const Event& e : resp.events()) {
        if (recent.emplace(e.id(), std::chrono::steady_clock::now()).second) {
          *fresh.add_events() = e;
        }
      }
      if (first || fresh.events_size() > 0) {
        if (int rc = PrintBatch(printer, fresh, first); rc != 0) return rc;
        first = false;
      }
      if (resp.events_size() > 0) req.set_after_id(resp.events(resp.events_size() - 1).id());
    }
    const auto now = std::chrono::steady_clock::now();
    while (!recent.empty() && now - recent.begin()->second > kSettle) {
      settled = recent.begin()->first;
      recent.erase(recent.begin());
    }
    std::this_thread::sleep_for(kFollowInterval);
  }
}

void AddList(CLI::App* group, Env& env) {
  struct Opts {
    std::string space, change_order, where, page_token;
    int limit = 0;
    int64_t after_id = 0;
    bool follow = false;
  };
  auto o = std::make_shared<Opts>();
  CLI::App* cmd = group->add_subcommand("list", "List events, oldest first");
  cmd->add_option("--space", o->space, "Only events about this Space (slug or ID)");
  cmd->add_option("--change-order", o->change_order, "Only events about this ChangeOrder")
      ->type_name("BASE/NAME");
  cmd->add_option("--where", o->where,
                  "Where expression over events (ID, At, Kind, SpaceID, Space, ChangeOrder, "
                  "Stage, User, Message)")
      ->type_name("EXPR");
  cmd->add_option("--after-id", o->after_id, "Only events with a larger ID")->type_name("ID");
  cmd->add_option("--limit", o->limit,
                  "At most this many events (default: all of them, read page by page; when more "
                  "exist, stderr says how to continue); with --follow, per poll, 1 to 1000")
      ->type_name("N")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--page-token", o->page_token,
                  "Continue a list where an earlier --limit stopped (the other flags unchanged)")
      ->type_name("TOKEN");
  cmd->add_flag("--follow", o->follow,
                "Keep printing events as they are appended, until interrupted (-o json: one "
                "object per line)");
  OnRun(cmd, env, [&env, o] {
    cub::v1::ListEventsRequest req;
    req.set_space(o->space);
    req.set_change_order(o->change_order);
    req.set_where(o->where);
    req.set_after_id(o->after_id);
    if (o->follow) {
      req.set_limit(o->limit);
      return Follow(env, req);
    }
    return PrintPaged(env, PageFlags{o->limit, o->page_token}, req, &EventService::Stub::ListEvents,
                      &cub::v1::ListEventsResponse::events, Header(), Row);
  });
}

}  // namespace

void AddEventCommands(CLI::App& app, Env& env) {
  CLI::App* group = app.add_subcommand(
      "event", "Read the event log: promotions, publishes, queued promotions, engine decisions");
  AddList(group, env);
}

}  // namespace cub::cli
