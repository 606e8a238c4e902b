#include "lib/store/engine_connection.h"

#include <pqxx/pqxx>

#include "lib/store/pq.h"

namespace cub::store {
namespace {

// Advisory locks of the engine live in their own key space (the first key); the second is a
// hash of the ChangeOrder's ID. Two ChangeOrders sharing a hash are only ever worked on one
// after the other, which is harmless.
constexpr int kEngineLockSpace = 0x63756265;  // "cube"

class Receiver : public pqxx::notification_receiver {
 public:
  Receiver(pqxx::connection_base& c, const std::string& channel)
      : pqxx::notification_receiver(c, channel) {}
  void operator()(const std::string&, int) override { ++received; }
  int received = 0;
};

}  // namespace

struct EngineConnection::Impl {
  explicit Impl(const std::string& url) : conn(url) {}
  pqxx::connection conn;
  std::unique_ptr<Receiver> receiver;
};

EngineConnection::EngineConnection(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
EngineConnection::~EngineConnection() = default;

absl::StatusOr<std::unique_ptr<EngineConnection>> EngineConnection::Open(
    const std::string& url, const std::string& channel) {
  return Guard([&]() -> absl::StatusOr<std::unique_ptr<EngineConnection>> {
    auto impl = std::make_unique<Impl>(url);
    if (!channel.empty()) impl->receiver = std::make_unique<Receiver>(impl->conn, channel);
    return std::unique_ptr<EngineConnection>(new EngineConnection(std::move(impl)));
  });
}

absl::StatusOr<bool> EngineConnection::Wait(absl::Duration timeout) {
  return Guard([&]() -> absl::StatusOr<bool> {
    // Notifications that arrived during other statements are delivered by get_notifs first.
    if (impl_->conn.get_notifs() > 0) return true;
    int64_t us = std::max<int64_t>(0, absl::ToInt64Microseconds(timeout));
    return impl_->conn.await_notification(us / 1000000, us % 1000000) > 0;
  });
}

absl::StatusOr<bool> EngineConnection::TryLock(const std::string& change_order_id) {
  return Guard([&]() -> absl::StatusOr<bool> {
    pqxx::nontransaction n(impl_->conn);
    pqxx::row r = n.exec_params1("SELECT pg_try_advisory_lock($1, hashtext($2)) AS locked",
                                 kEngineLockSpace, change_order_id);
    return r["locked"].as<bool>();
  });
}

bool EngineConnection::Alive() {
  absl::Status s = Guard([&]() -> absl::Status {
    pqxx::nontransaction n(impl_->conn);
    n.exec("SELECT 1");
    return absl::OkStatus();
  });
  return s.ok();
}

absl::Status EngineConnection::Unlock(const std::string& change_order_id) {
  return Guard([&]() -> absl::Status {
    pqxx::nontransaction n(impl_->conn);
    n.exec_params("SELECT pg_advisory_unlock($1, hashtext($2))", kEngineLockSpace, change_order_id);
    return absl::OkStatus();
  });
}

}  // namespace cub::store
