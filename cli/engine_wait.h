// `--wait` of `cub variant promote` and `cub release publish`: after the call, wait until
// cubd's promotion engine has acted on the ChangeOrder (its work is no longer pending), then
// print, in the table format, the events that followed the call and when cubd looks again.
#ifndef CUB_CLI_ENGINE_WAIT_H_
#define CUB_CLI_ENGINE_WAIT_H_

#include <cstdint>
#include <string>

#include "cli/commands.h"

namespace cub::cli {

// The ID of the latest event of ChangeOrder `ref` ("BASE/NAME"), 0 when it has none; false
// (with "Failed: ..." printed) when the server cannot be asked.
bool LatestEventId(const Env& env, const std::string& ref, int64_t* id);

// Waits (up to the --timeout) until the engine has no pending work for `ref`, then prints the
// ChangeOrder's events after `after_id` and, if `since` (RFC 3339, the server's clock) is
// given, at or after it. Returns the exit code: 1 when a call fails or the engine has not got
// to it in time.
int WaitForEngine(const Env& env, const std::string& ref, int64_t after_id,
                  const std::string& since = "");

}  // namespace cub::cli

#endif  // CUB_CLI_ENGINE_WAIT_H_
