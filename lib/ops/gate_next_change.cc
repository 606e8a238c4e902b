#include "lib/ops/gate_next_change.h"

#include <algorithm>

#include <cstdint>
#include <string>

#include "absl/strings/cord.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace cub::ops {
namespace {

constexpr char kNextChangePayload[] = "cub/gate-next-change";

}  // namespace

void SetNextChange(absl::Status& refusal, std::optional<absl::Time> at) {
  if (refusal.ok() || !at) return;
  refusal.SetPayload(kNextChangePayload, absl::Cord(absl::StrCat(absl::ToUnixMicros(*at))));
}

std::optional<absl::Time> NextChangeOf(const absl::Status& refusal) {
  auto payload = refusal.GetPayload(kNextChangePayload);
  int64_t micros = 0;
  if (!payload || !absl::SimpleAtoi(std::string(*payload), &micros)) return std::nullopt;
  return absl::FromUnixMicros(micros);
}

std::optional<absl::Time> SoonestOf(std::optional<absl::Time> a, std::optional<absl::Time> b) {
  if (!a) return b;
  if (!b) return a;
  return std::min(*a, *b);
}

}  // namespace cub::ops
