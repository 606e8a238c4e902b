#include "lib/ops/gate_report.h"

#include <algorithm>
#include <iterator>
#include <utility>

namespace cub::ops {

bool GateReport::ok() const {
  return std::all_of(findings.begin(), findings.end(), [](const GateFinding& f) { return f.held; });
}

std::vector<std::string> GateReport::FailureMessages() const {
  std::vector<std::string> out;
  for (const auto& f : findings) {
    if (!f.held) out.push_back(f.message);
  }
  return out;
}

std::vector<const GateFinding*> GateReport::Failures() const {
  std::vector<const GateFinding*> out;
  for (const auto& f : findings) {
    if (!f.held) out.push_back(&f);
  }
  return out;
}

std::optional<absl::Time> GateReport::Earliest() const {
  std::optional<absl::Time> latest;
  for (const auto& f : findings) {
    if (f.held) continue;
    if (!f.earliest) return std::nullopt;
    if (!latest || *f.earliest > *latest) latest = f.earliest;
  }
  return latest;
}

std::optional<absl::Time> GateReport::NextChange() const {
  std::optional<absl::Time> soonest;
  for (const auto& f : findings) {
    if (f.held || !f.earliest) continue;
    if (!soonest || *f.earliest < *soonest) soonest = f.earliest;
  }
  return soonest;
}

void GateReport::Append(GateReport other) {
  findings.insert(findings.end(), std::make_move_iterator(other.findings.begin()),
                  std::make_move_iterator(other.findings.end()));
}

}  // namespace cub::ops
