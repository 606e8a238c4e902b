// How `cub changeorder watch` shows a ChangeOrder's progress: one line per Stage on a terminal
// (redrawn in place), or one line per snapshot when the output is not a terminal. Pure text;
// the command (cmd_changeorder.cc) does the writing.
#ifndef CUB_CLI_WATCH_RENDER_H_
#define CUB_CLI_WATCH_RENDER_H_

#include <string>
#include <vector>

#include "cub/v1/changeorder.pb.h"

namespace cub::cli {

// "dev      3/3 taken  3/3 released  2/3 healthy", one per Stage, the Stage names padded to one
// width (at least 8).
std::vector<std::string> StageLines(const v1::ChangeOrderProgress& p);

// The first line of the terminal view: "ChangeOrder BASE/NAME: InProgress, Stage dev".
std::string HeadLine(const v1::ChangeOrderProgress& p);

// One snapshot on one line: "InProgress: dev 3/3 taken 3/3 released 2/3 healthy; staging
// 0/2 taken 0/2 released 0/2 healthy" ("InProgress: no stages" without a workflow).
std::string SnapshotLine(const v1::ChangeOrderProgress& p);

// The live progress line of a watch whose snapshots go elsewhere (stdout piped): "Watching
// BASE/NAME: <SnapshotLine>", or "Watching NAME: waiting for the first snapshot" before one.
std::string WatchActivity(const std::string& name, const v1::ChangeOrderProgress* last);

// The terminal text that replaces `previous_lines` lines drawn before (0 the first time) with
// `lines`: cursor up, then each line cleared and written.
std::string Redraw(int previous_lines, const std::vector<std::string>& lines);

}  // namespace cub::cli

#endif  // CUB_CLI_WATCH_RENDER_H_
