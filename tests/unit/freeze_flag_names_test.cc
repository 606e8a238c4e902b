// Unit tests for cli/flag_names on the messages of freezes (lib/ops/freezes.cc,
// lib/ops/freeze_schedule.cc, lib/ops/freeze_gate.cc): `cub freeze create` and a forced
// promote or publish print the CLI's flags where cubd names request fields.
#include <catch2/catch.hpp>
#include <string>
#include <utility>
#include <vector>

#include "cli/flag_names.h"

namespace cub::cli {
namespace {

TEST_CASE("WithFlagNames gives the freeze messages their CLI wording", "[cli][flag_names]") {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"Until '2026-01-01T00:00:00Z' is not after From '2026-02-01T00:00:00Z'",
       "--until '2026-01-01T00:00:00Z' is not after --from '2026-02-01T00:00:00Z'"},
      {"From 'tomorrow' is not an RFC 3339 time (like 2026-12-24T00:00:00Z): x",
       "--from 'tomorrow' is not an RFC 3339 time (like 2026-12-24T00:00:00Z): x"},
      {"Until '2020-01-02T00:00:00Z' has passed: the window would never be in force",
       "--until '2020-01-02T00:00:00Z' has passed: the window would never be in force"},
      {"a freeze window needs both From and Until; Until is missing",
       "a freeze window needs both --from and --until; --until is missing"},
      {"Cron: cron expression '0 0 30 2 *' never fires: no month it names has the days it names",
       "--cron: cron expression '0 0 30 2 *' never fires: no month it names has the days it "
       "names"},
      {"Cron needs Duration: how long each window lasts",
       "--cron needs --duration: how long each window lasts"},
      {"Duration '0s' is not above zero", "--duration '0s' is not above zero"},
      {"TimeZone 'Mars/X' is not a known time zone (an IANA name like Europe/Berlin)",
       "--time-zone 'Mars/X' is not a known time zone (an IANA name like Europe/Berlin)"},
      {"Reason is required: say why the line is frozen",
       "--reason is required: say why the line is frozen"},
      {"Stages: changeworkflow 'p/flow' has no stage 'qa'; its stages are dev, prod",
       "--stage: changeworkflow 'p/flow' has no stage 'qa'; its stages are dev, prod"},
      {"ChangeWorkflow: changeworkflow 'nope' not found in space 'p'",
       "--change-workflow: changeworkflow 'nope' not found in space 'p'"},
      {"Force needs the admin role on space 'prod' to pass freeze 'xmas' there: no",
       "--force needs the admin role on space 'prod' to pass freeze 'xmas' there: no"},
  };
  for (const auto& [api, cli] : cases) CHECK(WithFlagNames(api) == cli);
}

}  // namespace
}  // namespace cub::cli
