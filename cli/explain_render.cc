#include "cli/explain_render.h"

#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "cli/flag_names.h"
#include "cli/output.h"

namespace cub::cli {
namespace {

// "prod", "prod (release)", "prod (final)".
std::string StageCell(const v1::StageExplanation& s) {
  if (s.phase() == "Release") return absl::StrCat(s.stage(), " (release)");
  if (s.phase() == "Final") return absl::StrCat(s.stage(), " (final)");
  return s.stage();
}

// The gate, and the Stage it belongs to when that is not the one explained.
std::string GateCell(const v1::StageExplanation& s, const v1::GateWait& w) {
  std::string out = w.gate().empty() ? w.kind() : w.gate();
  if (!w.gate_stage().empty() && w.gate_stage() != s.stage()) {
    absl::StrAppend(&out, " (of ", w.gate_stage(), ")");
  }
  return out;
}

std::string Summary(const v1::StageExplanation& s) {
  std::vector<std::string> what;
  if (s.phase() == "Entry") {
    if (s.next()) what.push_back("next stage");
    what.push_back(s.mode());
  } else if (s.phase() == "Release") {
    what.push_back("releasing in its spaces");
  } else {
    what.push_back("final prerequisites");
  }
  std::string line = absl::StrCat(s.stage(), " (", absl::StrJoin(what, ", "));
  if (s.queued()) {
    absl::StrAppend(&line, "; promotion queued by ", s.queued_by(), " at ", s.queued_at());
  }
  absl::StrAppend(&line, "): ");
  if (s.waits_size() == 0) {
    absl::StrAppend(
        &line, "every gate holds",
        s.mode() == "Automatic" || s.queued() ? "; cubd promotes it" : "; it may be promoted into");
    return line;
  }
  absl::StrAppend(&line, s.waits_size(), s.waits_size() == 1 ? " gate does" : " gates do",
                  " not hold; ",
                  s.earliest().empty() ? "it waits for more than time"
                                       : absl::StrCat("earliest ", s.earliest()));
  return line;
}

}  // namespace

std::string NeedsText(const v1::GateWait& w) {
  std::string out = w.needs().empty() ? WithFlagNames(w.message()) : w.needs();
  if (w.needs_from_size() > 0) {
    bool named = true;
    for (const auto& u : w.needs_from()) named = named && absl::StrContains(out, u);
    if (!named) absl::StrAppend(&out, "; could approve: ", absl::StrJoin(w.needs_from(), ", "));
  }
  return out;
}

std::string WaitLine(const v1::GateWait& w) {
  std::string out =
      absl::StrCat(w.gate().empty() ? w.kind() : w.gate(), " in ", w.space(), ": ", NeedsText(w));
  if (!w.earliest().empty()) absl::StrAppend(&out, " (earliest ", w.earliest(), ")");
  return out;
}

std::string ExplanationText(const v1::ExplainChangeOrderResponse& e) {
  if (!e.aborted_reason().empty()) {
    return absl::StrCat("Nothing to wait for: aborted (", e.aborted_reason(), ")\n");
  }
  if (e.completed()) return "Nothing to wait for: completed\n";
  if (e.stages_size() == 0) return "Nothing to wait for\n";
  std::string out;
  Table t{{"STAGE", "GATE", "KIND", "SPACE", "NEEDS", "EARLIEST"}, {}};
  for (const auto& s : e.stages()) {
    absl::StrAppend(&out, Summary(s), "\n");
    for (const auto& w : s.waits()) {
      t.rows.push_back(
          {StageCell(s), GateCell(s, w), w.kind(), w.space(), NeedsText(w), w.earliest()});
    }
  }
  if (!t.rows.empty()) absl::StrAppend(&out, "\n", t.Render());
  return out;
}

std::map<std::string, std::string> SpaceNamesOf(const v1::ExplainChangeOrderResponse& e) {
  std::map<std::string, std::string> out;
  for (const auto& s : e.spaces()) out[s.space_id()] = s.slug();
  return out;
}

}  // namespace cub::cli
