#include "server/cubd_admin.h"

#include <cstdio>
#include <cstdlib>
#include <iostream>

#include "absl/strings/str_join.h"
#include "lib/ops/users.h"
#include "lib/store/migrations.h"
#include "lib/store/pool.h"
#include "lib/store/roles.h"
#include "server/cubd_flags.h"

namespace cub::server {
namespace {

int Fail(const absl::Status& s) {
  std::cerr << "Failed: " << s.message() << "\n";
  return 1;
}

void AddTokenSpecFlags(CLI::App* cmd, ops::TokenSpec& spec) {
  cmd->add_option("--expires-in", spec.expires_in,
                  "How long the token lives: 30d, 12h, 90m (default 90d, at most 366d)");
  cmd->add_option("--description", spec.description, "What the token is for (one line)");
}

// The token itself alone on stdout (scripts capture it); what it is, on stderr.
int PrintToken(const std::string& secret, const v1::Token& t) {
  std::cout << secret << "\n";
  std::cerr << "token " << t.token_id() << " for user '" << t.username() << "' expires at "
            << t.expires_at() << "\n";
  return 0;
}

}  // namespace

AdminCommands::AdminCommands(CLI::App& app, DatabaseOptions& db) : db_(db) {
  migrate_ = app.add_subcommand("migrate", "Apply pending schema migrations");
  AddDatabaseFlags(migrate_, db);

  user_ = app.add_subcommand("user", "Manage users");
  user_->require_subcommand(1);
  user_create_ = user_->add_subcommand(
      "create", "Create a user and print its API token (shown only this once)");
  AddDatabaseFlags(user_create_, db);
  user_create_->add_option("name", new_user_.username, "User name")->required();
  user_create_->add_option("--group", new_user_.groups, "Group the user belongs to (repeatable)");
  user_create_->add_flag("--admin", new_user_.admin, "Server administrator: every role everywhere");
  user_create_->add_flag("--service-account", new_user_.service_account,
                         "An identity for CI or a reporter; it can never vote on approvals");
  AddTokenSpecFlags(user_create_, token_spec_);
  CLI::App* user_list = user_->add_subcommand("list", "List users");
  AddDatabaseFlags(user_list, db);
  user_token_ = user_->add_subcommand("token", "Issue another token for a user");
  AddDatabaseFlags(user_token_, db);
  user_token_->add_option("name", token_user_, "User name")->required();
  AddTokenSpecFlags(user_token_, token_spec_);

  AddServiceAccountCommands(app, db);

  CLI::App* purge = app.add_subcommand(
      "purge", "Remove the records of deleted Spaces (as the owner role; itself recorded)");
  purge->require_subcommand(1);
  purge_space_ = purge->add_subcommand(
      "space", "Remove every revision, release and attestation of a deleted Space");
  AddDatabaseFlags(purge_space_, db);
  purge_space_->add_option("space", purge_space_id_, "The deleted Space's ID, or its slug")
      ->required();
  purge_space_->add_option("--reason", purge_reason_, "Why (kept in the purge record)")->required();
  purge_space_->add_option("--by", purge_by_,
                           "Who asked for it (kept in the purge record; default: $USER)");
}

void AdminCommands::AddServiceAccountCommands(CLI::App& app, DatabaseOptions& db) {
  serviceaccount_ = app.add_subcommand("serviceaccount",
                                       "Service accounts that CI workloads' OpenID tokens act as");
  serviceaccount_->require_subcommand(1);
  serviceaccount_create_ = serviceaccount_->add_subcommand(
      "create",
      "Map tokens of an OpenID issuer to a service account (created if absent); it never votes");
  AddDatabaseFlags(serviceaccount_create_, db);
  ops::NewWorkloadMapping& m = new_mapping_;
  serviceaccount_create_->add_option("name", m.name, "The service account's name")->required();
  serviceaccount_create_
      ->add_option("--oidc-issuer", m.issuer,
                   "The issuer of the workload's tokens, exactly as their iss")
      ->required();
  serviceaccount_create_
      ->add_option("--subject", m.subject_pattern,
                   "Pattern the token's sub must match; '*' matches any run of characters "
                   "(e.g. 'repo:acme/app:ref:refs/heads/*')")
      ->required();
  serviceaccount_create_->add_option(
      "--claim", m.claims, "KEY=VALUE the token's claim KEY must equal (repeatable, all must)");
  serviceaccount_create_->add_option("--audience", m.audience, "The audience the tokens carry")
      ->capture_default_str();
  CLI::App* list = serviceaccount_->add_subcommand("list", "List the workload mappings");
  AddDatabaseFlags(list, db);
}

int AdminCommands::RunServiceAccountCommand(const std::string& url) const {
  store::ConnectionPool pool(url, 2);
  if (serviceaccount_create_->parsed()) {
    auto created = ops::CreateWorkloadMapping(pool, new_mapping_);
    if (!created.ok()) return Fail(created.status());
    const auto& w = created->mapping;
    std::cout << (created->created_user ? "created service account " : "service account ")
              << w.username << (created->created_user ? "; " : " gained a mapping; ")
              << "tokens of " << w.issuer << " for audience " << w.audience
              << " with subject matching " << w.subject_pattern
              << (w.claims.empty() ? "" : " and claims ")
              << absl::StrJoin(w.claims, ",", absl::PairFormatter("=")) << " act as it\n";
    return 0;
  }
  auto mappings = ops::ListWorkloadMappings(pool);
  if (!mappings.ok()) return Fail(mappings.status());
  std::printf("%-24s %-36s %-12s %-40s %s\n", "NAME", "ISSUER", "AUDIENCE", "SUBJECT", "CLAIMS");
  for (const auto& w : *mappings) {
    std::printf(
        "%-24s %-36s %-12s %-40s %s\n", w.username.c_str(), w.issuer.c_str(), w.audience.c_str(),
        w.subject_pattern.c_str(),
        w.claims.empty() ? "-" : absl::StrJoin(w.claims, ",", absl::PairFormatter("=")).c_str());
  }
  return 0;
}

bool AdminCommands::parsed() const {
  return migrate_->parsed() || user_->parsed() || purge_space_->parsed() ||
         serviceaccount_->parsed();
}

int AdminCommands::Run() const {
  auto db = OpenDatabase(db_);
  if (!db.ok()) return Fail(db.status());
  if (migrate_->parsed()) {
    // OpenDatabase applied them; say what it did.
    std::cout << (db->applied.empty() ? "schema is up to date"
                                      : "applied " + absl::StrJoin(db->applied, ", "))
              << "\n";
    return 0;
  }
  if (purge_space_->parsed()) {
    std::string by = purge_by_;
    if (by.empty() && std::getenv("USER") != nullptr) by = std::getenv("USER");
    auto purged = store::PurgeSpace(db->url, purge_space_id_, purge_reason_, by);
    if (!purged.ok()) return Fail(purged.status());
    std::cout << "purged the records of space " << purged->space_id
              << (purged->space_slug.empty() ? "" : " (" + purged->space_slug + ")") << ": "
              << purged->removed << "; purge record " << purged->purge_id << "\n";
    return 0;
  }
  if (serviceaccount_->parsed()) return RunServiceAccountCommand(db->url);
  return RunUserCommand(db->url);
}

int AdminCommands::RunUserCommand(const std::string& url) const {
  store::ConnectionPool pool(url, 2);
  if (user_create_->parsed()) {
    auto created = ops::CreateUser(pool, new_user_, token_spec_);
    if (!created.ok()) return Fail(created.status());
    return PrintToken(created->token, created->token_info);
  }
  if (user_token_->parsed()) {
    auto issued = ops::IssueTokenForUser(pool, ops::IdentityOptions(), token_user_, token_spec_);
    if (!issued.ok()) return Fail(issued.status());
    return PrintToken(issued->secret, issued->token);
  }
  auto users = ops::ListUsers(pool);
  if (!users.ok()) return Fail(users.status());
  std::printf("%-24s %-8s %-8s %-30s %s\n", "NAME", "ADMIN", "SERVICE", "GROUPS", "ID");
  for (const auto& u : *users) {
    std::printf("%-24s %-8s %-8s %-30s %s\n", u.username().c_str(), u.admin() ? "yes" : "no",
                u.service_account() ? "yes" : "no", absl::StrJoin(u.groups(), ",").c_str(),
                u.user_id().c_str());
  }
  return 0;
}

}  // namespace cub::server
