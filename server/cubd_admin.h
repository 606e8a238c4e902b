// cubd's administration commands: `cubd migrate`, `cubd user create|list|token`,
// `cubd serviceaccount create|list` and `cubd purge space`. They open the database as its owner
// (server/database.h), do one thing and exit; `cubd serve` is elsewhere (server/serve.h). Linked
// into cubd only.
#ifndef CUB_SERVER_CUBD_ADMIN_H_
#define CUB_SERVER_CUBD_ADMIN_H_

#include <string>

#include "CLI/CLI.hpp"
#include "lib/ops/service_accounts.h"
#include "lib/ops/tokens.h"
#include "lib/store/users.h"
#include "server/database.h"

namespace cub::server {

class AdminCommands {
 public:
  // Adds the commands to `app`, each with the database flags into `db` (which, like this
  // object, must outlive parsing).
  AdminCommands(CLI::App& app, DatabaseOptions& db);

  // Whether one of them was on the command line.
  bool parsed() const;

  // Runs the one parsed; returns the process exit code, having printed the outcome (or
  // "Failed: ..." on stderr).
  int Run() const;

 private:
  int RunUserCommand(const std::string& url) const;
  void AddServiceAccountCommands(CLI::App& app, DatabaseOptions& db);
  int RunServiceAccountCommand(const std::string& url) const;

  const DatabaseOptions& db_;
  CLI::App* migrate_ = nullptr;
  CLI::App* user_ = nullptr;
  CLI::App* user_create_ = nullptr;
  CLI::App* user_token_ = nullptr;
  CLI::App* purge_space_ = nullptr;
  store::NewUser new_user_;
  std::string token_user_;
  ops::TokenSpec token_spec_;  // --expires-in, --description of user create and user token
  std::string purge_space_id_, purge_reason_, purge_by_;
  CLI::App* serviceaccount_ = nullptr;
  CLI::App* serviceaccount_create_ = nullptr;
  ops::NewWorkloadMapping new_mapping_;
};

}  // namespace cub::server

#endif  // CUB_SERVER_CUBD_ADMIN_H_
