// cubd's messages name what a request got wrong by the API's own names (the JSON field names,
// "ForceReason", and method names, "UpdateUnit"), so that gRPC and REST callers read advice
// about what they sent. The CLI's user sent flags, so before printing a message from cubd the
// CLI puts its flags in place of those names: "Force needs ForceReason, which is recorded"
// prints as "--force needs --force-reason, which is recorded".
//
// The table (flag_names.cc) is the one place that knows which field each flag fills. Many of
// its entries are phrases rather than single names: a bare "Stage", "ChangeOrder" or
// "UpdateType" also appears in messages about a workflow's or a Link definition's own fields,
// or as a selector ("ChangeOrder:BASE/NAME"), and those must print unchanged.
#ifndef CUB_CLI_FLAG_NAMES_H_
#define CUB_CLI_FLAG_NAMES_H_

#include <string>
#include <string_view>

namespace cub::cli {

// `message` with every API name of the table replaced by the CLI's wording. A name is replaced
// only as a whole: where it begins with a letter or digit, the character before it must be a
// space or '(' (or it starts the message); where it ends with one, the character after it must
// end the message or be a space, ',' or ')', or a ':' followed by a space. So "ChangeOrder's",
// "Labels.Stage" and "'Force'" are never touched. Entries marked in the table as leading match
// only at the start of the message.
std::string WithFlagNames(std::string_view message);

}  // namespace cub::cli

#endif  // CUB_CLI_FLAG_NAMES_H_
