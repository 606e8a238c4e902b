#include "server/delivery_worker.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <utility>

#include "absl/strings/str_cat.h"
#include "lib/store/deliveries.h"
#include "lib/store/transaction.h"
#include "server/request_log.h"

namespace cub::server {
namespace {

void Log(const std::string& line) { LogMessageF("cubd: delivery: %s", line.c_str()); }

}  // namespace

DeliveryWorkers::DeliveryWorkers(store::ConnectionPool& db, const ops::ReleaseEnv& env,
                                 DeliveryWorkerOptions opts)
    : db_(db), env_(env), opts_(opts) {}

DeliveryWorkers::~DeliveryWorkers() { Stop(); }

void DeliveryWorkers::Start() {
  for (int i = 0; i < opts_.workers; ++i) threads_.emplace_back([this, i] { Work(i); });
  if (!threads_.empty()) Log(absl::StrCat(threads_.size(), " workers started"));
}

void DeliveryWorkers::Stop() {
  if (threads_.empty()) return;
  stop_ = true;
  absl::Status s =
      store::WithTransaction(db_, [](store::Tx& tx) { return store::NotifyDelivery(tx); });
  if (!s.ok()) Log(absl::StrCat("could not wake the workers to stop: ", s.message()));
  for (auto& t : threads_) t.join();
  threads_.clear();
}

void DeliveryWorkers::Work(int worker) {
  std::unique_ptr<store::EngineConnection> conn;
  while (!stop_) {
    if (!conn) {
      auto opened = store::EngineConnection::Open(db_.url(), store::kDeliveryChannel);
      if (!opened.ok()) {
        Log(absl::StrCat("worker ", worker, ": cannot connect: ", opened.status().message()));
        std::this_thread::sleep_for(std::chrono::seconds(1));
        continue;
      }
      conn = *std::move(opened);
    }
    absl::Duration sleep = Sweep(worker);
    if (stop_) break;
    absl::StatusOr<bool> woken = conn->Wait(sleep);
    if (!woken.ok()) {
      Log(absl::StrCat("worker ", worker, ": connection lost: ", woken.status().message()));
      conn.reset();
    }
  }
}

absl::Duration DeliveryWorkers::Sweep(int worker) {
  auto due = ops::FindDueTargets(db_);
  if (!due.ok()) {
    Log(absl::StrCat("worker ", worker, ": ", due.status().message()));
    return std::min(opts_.sweep, absl::Seconds(1));
  }
  bool contended = false;
  for (const auto& target_id : due->target_ids) {
    if (stop_) break;
    auto pass = ops::DeliverTarget(db_, env_, opts_.delivery, target_id);
    if (!pass.ok()) {
      Log(absl::StrCat("worker ", worker, ": target ", target_id, ": ", pass.status().message()));
      contended = true;  // look again soon
      continue;
    }
    if (!pass->claimed) {
      contended = true;
      continue;
    }
    if (pass->delivered + pass->found + pass->failed > 0) {
      Log(absl::StrCat("target ", target_id, ": ", pass->delivered, " delivered, ", pass->found,
                       " found delivered earlier, ", pass->failed, " failed",
                       pass->error.empty() ? "" : ": ", pass->error));
    }
    // A pass takes at most batch_limit Releases: more may wait.
    contended =
        contended || pass->delivered + pass->found + pass->failed >= opts_.delivery.batch_limit;
  }
  // A Target held by someone else is due for as long as they deliver: look again in a
  // second (they may die) rather than at once.
  if (contended) return std::min(opts_.sweep, absl::Seconds(1));
  if (!due->next_due_in_seconds) return opts_.sweep;
  return std::min(opts_.sweep,
                  absl::Seconds(std::max(0.0, *due->next_due_in_seconds)) + absl::Milliseconds(5));
}

}  // namespace cub::server
