// What one evaluation of a ChangeOrder's gates found, as data rather than text: the refusal of a
// promotion or publish, the explanation `changeorder get` and ExplainChangeOrder give, the
// queued promotions' reasons and the signed promotion record all read the same findings.
//
// A finding is one (gate, Space) pair. One that does not hold carries the refusal's text, what
// it needs and, when time alone can make it hold (a soak, a freeze window), the earliest time
// it can. One that holds carries, when evidence was asked for, what it was judged on.
//
// Plain value types; thread-compatible.
#ifndef CUB_LIB_OPS_GATE_REPORT_H_
#define CUB_LIB_OPS_GATE_REPORT_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/time/time.h"

namespace cub::ops {

// What kind of gate a finding is about.
inline constexpr std::string_view kGateTaken = "Taken";      // the Space has not taken the change
inline constexpr std::string_view kGateBuiltin = "Builtin";  // Validated, Released, Healthy...
inline constexpr std::string_view kGateCustom = "Custom";    // a CEL CustomPrerequisite
inline constexpr std::string_view kGateAttestation = "Attestation";
inline constexpr std::string_view kGateFreeze = "Freeze";  // a freeze in force
inline constexpr std::string_view kGateBlock = "Block";    // content a blocked ChangeOrder brought
inline constexpr std::string_view kGateUndeclared = "Undeclared";  // a name the workflow lacks

struct GateFinding {
  std::string stage;  // the Stage being entered, or released in; empty for Final
  std::string gate;   // the prerequisite's name ("Healthy", "two-approvers"), a freeze's name
  std::string kind;   // one of the kGate* values above
  std::string space_id;
  std::string space;  // the Space's slug
  bool held = false;
  // When it does not hold: the refusal, whole ("unable to promote to stage 'prod', Variant
  // 'eu': requires two-approvers: ..."), as a promotion's error shows it.
  std::string message;
  // When it does not hold, what would make it hold, briefly, in names a person knows:
  // "approvals 1 of 2, from alice or bob", "Release 4 reported Healthy", "freeze 'xmas' lifted".
  std::string needs;
  // For an attestation that does not hold: the users (IDs) who could still make it hold.
  std::vector<std::string> needs_from;
  // When time alone can make it hold: the earliest moment it can (the soak's end, the freeze
  // window's end). Unset when it waits for something else, or for nobody knows what.
  std::optional<absl::Time> earliest;
  // When it holds and evidence was asked for: a JSON object of what it was judged on (the
  // Release digest and live status with when they were reported, the attestation IDs and
  // voters, a CEL gate's expression and a digest of its inputs, a soak's start and end).
  std::string evidence_json;
};

struct GateReport {
  std::vector<GateFinding> findings;

  // Whether every finding holds.
  bool ok() const;
  // The messages of the findings that do not hold, in order.
  std::vector<std::string> FailureMessages() const;
  // The findings that do not hold, in order.
  std::vector<const GateFinding*> Failures() const;
  // When every failing finding can hold by time alone, the earliest moment all of them do (the
  // latest of their `earliest`); unset when one waits for something other than time.
  std::optional<absl::Time> Earliest() const;
  // The first moment a failing finding can change by time alone (the soonest `earliest`): when
  // the promotion engine looks again. Unset when none can.
  std::optional<absl::Time> NextChange() const;

  void Append(GateReport other);
};

}  // namespace cub::ops

#endif  // CUB_LIB_OPS_GATE_REPORT_H_
