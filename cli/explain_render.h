// How `cub changeorder get|explain` and `cub promotion list` show an ExplainChangeOrder answer:
// per Stage, each gate that does not hold, with its Space, what it needs and when it can hold
// at the earliest. Every finding is shown the same way whatever its kind, so a new kind of
// gate needs nothing here. Names only: Spaces by slug, users by name.
#ifndef CUB_CLI_EXPLAIN_RENDER_H_
#define CUB_CLI_EXPLAIN_RENDER_H_

#include <map>
#include <string>

#include "cub/v1/changeorder.pb.h"

namespace cub::cli {

// "prod (next, Manual; promotion queued by alice at T): 2 gates do not hold, earliest T" lines,
// one per Stage explained, then a STAGE GATE SPACE NEEDS EARLIEST table of every wait. Ends
// with a newline; "Nothing holds it.\n"-like text when nothing is explained.
std::string ExplanationText(const v1::ExplainChangeOrderResponse& e);

// What a wait needs, in words: Needs, else its Message, and who could make it hold when Needs
// does not name them already.
std::string NeedsText(const v1::GateWait& w);

// One wait on one line: "two-approvers in acme-staging: approvals 1 of 2 ... (earliest T)".
std::string WaitLine(const v1::GateWait& w);

// The explanation's Spaces, by ID.
std::map<std::string, std::string> SpaceNamesOf(const v1::ExplainChangeOrderResponse& e);

}  // namespace cub::cli

#endif  // CUB_CLI_EXPLAIN_RENDER_H_
