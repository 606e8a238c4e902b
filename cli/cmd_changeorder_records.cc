// `cub changeorder records`: the signed record of each promotion of a ChangeOrder into a Space.
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "cli/change_order_name.h"
#include "cli/commands.h"
#include "cli/paged_list.h"
#include "cub/v1/changeorder.grpc.pb.h"

namespace cub::cli {

void AddChangeOrderRecordsCommand(CLI::App* changeorder, Env& env) {
  struct Opts {
    std::string space, name, space_name;
    PageFlags page;
  };
  auto o = std::make_shared<Opts>();
  CLI::App* cmd = changeorder->add_subcommand(
      "records",
      "List the signed record of each promotion of a ChangeOrder into a Space (-o json: with "
      "the DSSE envelopes)");
  cmd->add_option("--space", o->space,
                  "Base Space (the one the change was made in): slug or ID, unless NAME is "
                  "BASE/NAME");
  cmd->add_option("NAME", o->name, "ChangeOrder: BASE/NAME, or its slug or ID with --space")
      ->required();
  cmd->add_option("--space-name", o->space_name,
                  "Only the records of this Space: its slug (as it was when promoted) or ID");
  AddPageFlags(cmd, &o->page, "records");
  OnRun(cmd, env, [&env, o] {
    if (int rc = ResolveChangeOrderName(&o->space, &o->name); rc != kExitOk) return rc;
    v1::ListPromotionRecordsRequest req;
    req.set_space(o->space);
    req.set_change_order(o->name);
    req.set_space_name(o->space_name);
    return PrintPaged(env, o->page, req, &v1::ChangeOrderService::Stub::ListPromotionRecords,
                      &v1::ListPromotionRecordsResponse::records,
                      {"SPACE", "STAGE", "PROMOTED-BY", "AT", "FORCED", "DIGEST"},
                      [](const v1::PromotionRecord& r) -> std::vector<std::string> {
                        std::string by = r.promoted_by();
                        if (!r.queued_by().empty())
                          absl::StrAppend(&by, " (queued by ", r.queued_by(), ")");
                        return {
                            r.space(), r.stage().empty() ? "-" : r.stage(), by,
                            r.at(),    r.forced() ? "yes" : "no",           r.statement_digest()};
                      });
  });
}

}  // namespace cub::cli
