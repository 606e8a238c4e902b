// Name rules and "did you mean" suggestions shared by the workflow parser, validator and flag
// handling, so that a file, a flag and the server refuse the same names with the same words.
//
// Pure functions; thread-safe.

#ifndef CUB_LIB_WORKFLOW_NAMES_H_
#define CUB_LIB_WORKFLOW_NAMES_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cub::workflow {

// Whether `name` is usable as a Stage, prerequisite, group or attestation type name: 1-128
// letters, digits, '-', '_' or '.', starting with a letter or digit (the rule for slugs). Such
// a name never holds the '=', ',', ';', quote or space that flag values and messages use as
// punctuation.
bool IsValidName(std::string_view name);

// Whether `name` is usable as a group name: as IsValidName, and also ':', '/', '@' and '+'
// anywhere, for groups an OpenID provider names ("dex:admins", "/platform/oncall",
// "org/team"), and up to 256 characters. Never '=', ',', ';', quotes or spaces.
bool IsValidGroupName(std::string_view name);

// "group name '<name>' is not valid: ..." for a name IsValidGroupName refuses.
std::string InvalidGroupNameMessage(std::string_view name);

// "<kind> name '<name>' is not valid: use 1-128 letters, digits, '-', '_' or '.', starting
// with a letter or digit", or "<kind> name is empty" for "".
std::string InvalidNameMessage(std::string_view kind, std::string_view name);

// Whether `id` is a UUID in its text form (8-4-4-4-12 hex digits, either case).
bool IsUuid(std::string_view id);

// The candidate closest to `word`, if one is close enough to be what was meant: equal but for
// case, or within an edit distance of 1 (words of up to 4 characters) or 2 (longer words),
// ignoring case. Ties go to the earlier candidate.
std::optional<std::string> ClosestMatch(std::string_view word,
                                        const std::vector<std::string>& candidates);

// "; did you mean X?" when ClosestMatch finds X, otherwise "".
std::string DidYouMean(std::string_view word, const std::vector<std::string>& candidates);

// Case-insensitive (ASCII) equality.
bool EqualsIgnoreCase(std::string_view a, std::string_view b);

}  // namespace cub::workflow

#endif  // CUB_LIB_WORKFLOW_NAMES_H_
