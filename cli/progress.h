// A live status line on a terminal while a long operation runs: a spinner, what is being done
// and the time elapsed, e.g. "| Promoting acme/release-v4 into stage prod ... 3.2s", redrawn in
// place on stderr and erased when the operation ends, so that the result printed after it is
// all that stays. Honest only: stage-wide promote and publish are one RPC each, so the line
// shows what the call is doing and for how long, never a made-up percentage; a watch shows
// what its last snapshot said.
//
// Drawn only when stderr is a terminal and the output is for people (table format, no --quiet,
// no --json/--jq); otherwise the object does nothing, so piped output and logs never get
// carriage returns or escape sequences.
#ifndef CUB_CLI_PROGRESS_H_
#define CUB_CLI_PROGRESS_H_

#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "cli/commands.h"

namespace cub::cli {

// Whether a command of `env` may draw progress: stderr a terminal, table format, not --quiet.
bool ProgressWanted(const Env& env);

// The line for spinner step `tick`: "<spinner> <what> ... <elapsed>", cut to `columns` - 1
// display columns (0: no limit) so that it never wraps, which would defeat erasing it.
std::string ProgressLine(int tick, absl::string_view what, absl::Duration elapsed, int columns);

// Elapsed time as people read it: "0.4s", "12.3s", "2m05s", "1h02m".
std::string ElapsedText(absl::Duration d);

class TerminalProgress {
 public:
  // Starts redrawing (about 8 times a second) when `enabled`; `what` is the first text.
  TerminalProgress(bool enabled, std::string what);
  ~TerminalProgress();
  TerminalProgress(const TerminalProgress&) = delete;
  TerminalProgress& operator=(const TerminalProgress&) = delete;

  // Replaces the text (thread-safe).
  void Set(std::string what);
  // Stops and erases the line; idempotent. Call it before printing the result.
  void Stop();

 private:
  void Run();

  const bool enabled_;
  const absl::Time start_ = absl::Now();
  std::mutex mu_;
  std::condition_variable wake_;
  std::string what_;   // guarded by mu_
  bool stop_ = false;  // guarded by mu_
  std::thread thread_;
};

}  // namespace cub::cli

#endif  // CUB_CLI_PROGRESS_H_
