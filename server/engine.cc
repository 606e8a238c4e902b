#include "server/engine.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "lib/store/engine_work.h"
#include "lib/store/transaction.h"
#include "lib/util/status_macros.h"
#include "server/metrics.h"
#include "server/request_log.h"

namespace cub::server {
namespace {

void Log(const std::string& line) { LogMessageF("cubd: engine: %s", line.c_str()); }

}  // namespace

Engine::Engine(std::string db_url, ops::EngineEnv env, EngineOptions opts)
    : db_url_(std::move(db_url)), env_(std::move(env)), opts_(opts) {}

Engine::~Engine() { Stop(); }

absl::Status Engine::Start() {
  CUB_ASSIGN_OR_RETURN(env_.automatic, ops::AutomaticPrincipal(*env_.db));
  env_.stopping = [this] { return stop_.load(); };
  for (int i = 0; i < std::max(1, opts_.workers); ++i)
    threads_.emplace_back([this, i] { Work(i); });
  Log(absl::StrCat(threads_.size(), " workers started"));
  return absl::OkStatus();
}

void Engine::Stop() {
  if (threads_.empty()) return;
  stop_ = true;
  // Wakes the workers waiting for a notification (those of other replicas wake and sleep again).
  absl::Status s =
      store::WithTransaction(*env_.db, [](store::Tx& tx) { return store::NotifyEngine(tx); });
  if (!s.ok()) Log(absl::StrCat("could not wake the workers to stop: ", s.message()));
  for (auto& t : threads_) t.join();
  threads_.clear();
}

void Engine::Work(int worker) {
  std::unique_ptr<store::EngineConnection> conn;
  while (!stop_) {
    if (!conn) {
      auto opened = store::EngineConnection::Open(db_url_, store::kEngineChannel);
      if (!opened.ok()) {
        Log(absl::StrCat("worker ", worker, ": cannot connect: ", opened.status().message()));
        std::this_thread::sleep_for(std::chrono::seconds(1));
        continue;
      }
      conn = *std::move(opened);
    }
    bool contended = false;
    absl::Status s = TakeDue(*conn, &contended);
    if (!s.ok()) Log(absl::StrCat("worker ", worker, ": ", s.message()));
    if (stop_) break;
    // Rows due but held by another worker are due for as long as it works on them: look again
    // in a second (it may die) rather than at once; a finished step sends no notification.
    absl::Duration sleep = contended ? std::min(opts_.sweep, absl::Seconds(1)) : SleepFor();
    absl::StatusOr<bool> woken = conn->Wait(sleep);
    if (!woken.ok()) {
      Log(absl::StrCat("worker ", worker, ": connection lost: ", woken.status().message()));
      conn.reset();  // its advisory locks went with it
    }
  }
}

absl::Duration Engine::SleepFor() {
  auto due =
      store::InReadTransaction(*env_.db, [](store::Tx& tx) { return store::SecondsUntilDue(tx); });
  if (!due.ok() || !*due) return opts_.sweep;
  return std::min(opts_.sweep, absl::Seconds(**due) + absl::Milliseconds(5));
}

absl::Status Engine::TakeDue(store::EngineConnection& conn, bool* contended) {
  while (!stop_) {
    CUB_ASSIGN_OR_RETURN(auto due, store::InReadTransaction(*env_.db, [](store::Tx& tx) {
                           return store::DueWork(tx, 16);
                         }));
    int taken = 0;
    for (const auto& w : due) {
      if (stop_) break;
      CUB_ASSIGN_OR_RETURN(bool locked, conn.TryLock(w.change_order_id));
      if (!locked) {  // another worker or replica has it
        *contended = true;
        continue;
      }
      ++taken;
      absl::Status s = TakeOne(conn, w);
      absl::Status u = conn.Unlock(w.change_order_id);
      CUB_RETURN_IF_ERROR(s);
      CUB_RETURN_IF_ERROR(u);
    }
    if (taken == 0) return absl::OkStatus();
  }
  return absl::OkStatus();
}

absl::Status Engine::TakeOne(store::EngineConnection& conn, const store::EngineWork& due) {
  // Read again under the lock: the row may have been finished, or woken, since it was listed.
  CUB_ASSIGN_OR_RETURN(auto current, store::InReadTransaction(*env_.db, [&](store::Tx& tx) {
                         return store::ReadWork(tx, due.change_order_id);
                       }));
  if (!current) return absl::OkStatus();
  // Between actions the step checks that this worker still holds the ChangeOrder: the lock
  // lives in `conn`'s session, which a network failure or an idle timeout may end mid-step.
  ops::EngineEnv env = env_;
  bool lost = false;
  env.stopping = [&] {
    if (!lost && !conn.Alive()) lost = true;
    return stop_.load() || lost;
  };
  absl::StatusOr<ops::StepResult> r = ops::RunEngineStep(env, current->change_order_id);
  // A step cut short (the stop, or the lock lost) may have left work: the row stays due.
  if (stop_) return absl::OkStatus();
  if (lost) return absl::UnavailableError("lost the database session holding the lock mid-step");
  if (opts_.metrics != nullptr) {
    opts_.metrics->RecordEngineStep(r.ok() ? r->promotions : 0, r.ok() ? r->publishes : 0,
                                    !r.ok() || r->next == ops::StepResult::Next::kRetry);
  }
  if (!r.ok()) {
    ops::StepResult failed;
    failed.next = ops::StepResult::Next::kRetry;
    failed.error = std::string(r.status().message());
    return Finish(*current, failed);
  }
  if (r->promotions > 0 || r->publishes > 0 || r->next == ops::StepResult::Next::kRetry) {
    Log(absl::StrCat("change order ", current->change_order_id, ": ", r->promotions,
                     " promotions, ", r->publishes, " publishes",
                     r->error.empty() ? "" : "; failed: ", r->error,
                     r->waiting.empty() ? "" : "; waiting: ", r->waiting));
  }
  return Finish(*current, *r);
}

absl::Duration Engine::RecheckDelay(const ops::StepResult& r) const {
  // Due at the moment a gate can open by time alone (a soak's end, a freeze window's end), a
  // little after it so that the step then finds it open; a sweep later at most when a gate
  // reads `now` or no moment is known.
  if (!r.recheck_at) return opts_.sweep;
  absl::Duration until =
      std::max(absl::ZeroDuration(), *r.recheck_at - absl::Now()) + absl::Milliseconds(20);
  return r.sweep ? std::min(opts_.sweep, until) : until;
}

absl::Status Engine::Finish(const store::EngineWork& w, const ops::StepResult& r) {
  return store::WithTransaction(*env_.db, [&](store::Tx& tx) -> absl::Status {
    switch (r.next) {
      case ops::StepResult::Next::kIdle:
        return store::FinishWork(tx, w);
      case ops::StepResult::Next::kRecheck:
        return store::RetryWork(tx, w, RecheckDelay(r), "", /*count_attempt=*/false);
      case ops::StepResult::Next::kRetry: {
        double factor = std::pow(2.0, std::min(w.attempts, 20));
        absl::Duration delay = std::min(opts_.max_backoff, opts_.first_backoff * factor);
        return store::RetryWork(tx, w, delay, r.error, /*count_attempt=*/true);
      }
    }
    return absl::OkStatus();
  });
}

}  // namespace cub::server
