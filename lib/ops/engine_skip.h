// The engine's "not any more": an action the engine decided on from what it read, which the
// use case, reading again under its locks, finds no longer wanted (a queued promotion withdrawn
// or replaced, a Stage switched to Manual, a newer ChangeOrder there first, a Space already
// published). The engine drops such an action quietly; it is neither a gate to wait for nor a
// failure to retry.
#ifndef CUB_LIB_OPS_ENGINE_SKIP_H_
#define CUB_LIB_OPS_ENGINE_SKIP_H_

#include <string>

#include "absl/status/status.h"
#include "absl/strings/cord.h"

namespace cub::ops {

inline constexpr char kEngineSkipPayload[] = "cub/engine-skip";

inline absl::Status EngineSkip(const std::string& why) {
  absl::Status s = absl::AbortedError(why);
  s.SetPayload(kEngineSkipPayload, absl::Cord("1"));
  return s;
}

inline bool IsEngineSkip(const absl::Status& s) {
  return s.code() == absl::StatusCode::kAborted && s.GetPayload(kEngineSkipPayload).has_value();
}

}  // namespace cub::ops

#endif  // CUB_LIB_OPS_ENGINE_SKIP_H_
