#include "lib/ops/soak_gate.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "lib/ops/release_status_rules.h"
#include "lib/util/json.h"
#include "lib/util/status_macros.h"
#include "lib/util/time_text.h"

namespace cub::ops {
namespace {

// A duration as a person reads it, to the second, rounded up so that a soak with time left
// never reads "0s left".
std::string Span(absl::Duration d) { return absl::FormatDuration(absl::Ceil(d, absl::Seconds(1))); }

// The health rule (release_status_rules.h) over the latest Release's stored status.
bool HealthyNow(const store::SoakState& s) {
  return IsHealthyReport(store::StatusReport{s.sync, s.health, s.operation, ""});
}

GateFinding Base(const SoakSubject& subject) {
  GateFinding f;
  f.stage = subject.stage;
  f.gate = std::string(workflow::kSoaked);
  f.kind = std::string(kGateBuiltin);
  f.space_id = subject.space->space_id();
  f.space = subject.space->slug();
  return f;
}

GateFinding Fails(GateFinding f, const SoakSubject& subject, const std::string& why,
                  std::string needs) {
  f.message = absl::StrCat(subject.prefix, ", ", subject.who, " is not Soaked: ", why);
  f.needs = std::move(needs);
  return f;
}

}  // namespace

GateFinding JudgeSoak(const SoakSubject& subject, const store::SoakState* state,
                      absl::Duration soak, const std::string& soak_text, absl::Time now,
                      bool evidence) {
  GateFinding f = Base(subject);
  const std::string healthy_for = absl::StrCat("Healthy for ", soak_text);
  if (state == nullptr || !state->has_target) {
    return Fails(std::move(f), subject,
                 absl::StrCat("it has no release Target, so it cannot report Healthy for the ",
                              soak_text, " SoakTime"),
                 absl::StrCat("a release Target, then a Release ", healthy_for));
  }
  if (state->release_num == 0 || !state->carries) {
    return Fails(std::move(f), subject,
                 absl::StrCat("it has taken change order '", subject.change_order,
                              "' but its latest Release does not carry it, so it has not begun ",
                              "the ", soak_text, " soak"),
                 absl::StrCat("a Release carrying the change, ", healthy_for));
  }
  const std::string release = absl::StrCat("Release ", state->release_num);
  if (!HealthyNow(*state)) {
    return Fails(
        std::move(f), subject,
        absl::StrCat(release, " is not Healthy (reported ", state->sync, ", ", state->health,
                     state->operation.empty() ? "" : absl::StrCat(", ", state->operation),
                     "): it must be reported Healthy, then stay so for ", soak_text,
                     " (a Degraded report restarts the clock)"),
        absl::StrCat(release, " reported Healthy, then ", healthy_for));
  }
  if (!state->healthy_since) {
    return Fails(std::move(f), subject,
                 absl::StrCat(release, " has no Healthy deployment on record to start the ",
                              soak_text, " soak from"),
                 absl::StrCat(release, " reported Healthy, then ", healthy_for));
  }
  const absl::Time start = *state->healthy_since;
  const absl::Time end = start + soak;
  if (now < end) {
    const std::string since = FormatRfc3339(start);
    const std::string left = absl::StrCat(Span(end - now), " left");
    f = Fails(std::move(f), subject,
              absl::StrCat(release, " has been Healthy since ", since, ", ",
                           Span(std::max(now - start, absl::ZeroDuration())), " of its ", soak_text,
                           " SoakTime (", left, ")"),
              absl::StrCat(healthy_for, " since ", since, " (", left, ")"));
    f.earliest = end;
    return f;
  }
  f.held = true;
  if (evidence) {
    Json e = Json::object();
    e["SoakStart"] = FormatRfc3339(start);
    e["SoakEnd"] = FormatRfc3339(end);
    e["SoakTime"] = soak_text;
    e["Release"] = state->release_num;
    e["BundleDigest"] = state->bundle_digest;
    f.evidence_json = JsonText(e);
  }
  return f;
}

absl::StatusOr<std::vector<GateFinding>> SoakedFindings(store::Tx& tx,
                                                        const ResolvedChangeOrder& rco,
                                                        const workflow::Stage* stage,
                                                        const std::vector<SoakSubject>& over,
                                                        absl::Time now, bool evidence) {
  std::vector<GateFinding> out;
  out.reserve(over.size());
  absl::StatusOr<absl::Duration> soak =
      workflow::ParseSoakTime(stage ? stage->soak_time : std::string());
  if (!soak.ok() || *soak <= absl::ZeroDuration()) {
    const std::string why =
        stage == nullptr
            ? std::string("only a Stage's Prerequisites may name Soaked, with the Stage's SoakTime")
            : absl::StrCat(
                  "stage '", stage->name, "' names Soaked but gives no usable SoakTime",
                  soak.ok() ? std::string() : absl::StrCat(" (", soak.status().message(), ")"),
                  "; set one with --stage-soak-time ", stage->name, "=24h");
    for (const auto& s : over) {
      out.push_back(Fails(Base(s), s, why, "a SoakTime on the Stage naming Soaked"));
    }
    return out;
  }
  std::vector<std::string> ids;
  ids.reserve(over.size());
  for (const auto& s : over) ids.push_back(s.space->space_id());
  CUB_ASSIGN_OR_RETURN(auto states,
                       store::SoakStates(tx, rco.co.start_tag_id, rco.co.publish_tag_id, ids));
  for (const auto& s : over) {
    auto it = states.find(s.space->space_id());
    out.push_back(JudgeSoak(s, it == states.end() ? nullptr : &it->second, *soak, stage->soak_time,
                            now, evidence));
  }
  return out;
}

}  // namespace cub::ops
