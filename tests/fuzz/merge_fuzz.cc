// libFuzzer target for the 3-way merge (lib/config/diff.h, merge.h) and for comments in
// ParseYaml/EmitYaml. The input is three YAML streams separated by NUL bytes (which YAML
// itself never contains): base, end, downstream. For every input that parses:
//   - ComputeChange, Mutations and Apply must not crash;
//   - Apply is idempotent: applied again to its own output it changes nothing, overrides
//     nothing and reports the same conflicts;
//   - applied to the base itself, with nothing protected and no conflict, the result has no
//     difference from the end (Diff is empty);
//   - EmitYaml of the merge reads back equal, and writing that again gives the same text
//     (comments included).
// The first byte picks a set of protected paths.
//
// Build and run with tests/fuzz/run.sh (see docs/operations.md, "Fuzzing"), which passes
// tests/fuzz/merge.dict. Seeds (and inputs that once failed) are in tests/fuzz/corpus/merge.

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "lib/config/diff.h"
#include "lib/config/merge.h"
#include "lib/config/yaml.h"
#include "tests/fuzz/check_property.h"

namespace {

using cub::config::Node;

// Aborts, saying which property failed, so that libFuzzer keeps the input.
const cub::config::Protection& Protections(uint8_t which) {
  static const auto* sets = new std::vector<cub::config::Protection>{
      cub::config::Protection(),
      *cub::config::Protection::Parse({"spec.replicas", "a.b"}),
      *cub::config::Protection::Parse({"**.image", "*.name=a", "x[0]"}),
      *cub::config::Protection::Parse({"*/*/*/*:metadata", "[0]:a", "[1]:"}),
  };
  return (*sets)[which % sets->size()];
}

bool SameConflicts(const cub::config::MergeResult& a, const cub::config::MergeResult& b) {
  if (a.conflicts.size() != b.conflicts.size()) return false;
  for (size_t i = 0; i < a.conflicts.size(); ++i) {
    if (a.conflicts[i].path != b.conflicts[i].path ||
        a.conflicts[i].reason != b.conflicts[i].reason) {
      return false;
    }
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const cub::config::Protection& protection = Protections(data[0]);
  std::string_view rest(reinterpret_cast<const char*>(data + 1), size - 1);
  std::vector<std::string_view> parts;
  while (parts.size() < 2) {
    const size_t nul = rest.find('\0');
    if (nul == std::string_view::npos) return 0;
    parts.push_back(rest.substr(0, nul));
    rest.remove_prefix(nul + 1);
  }
  parts.push_back(rest);
  std::vector<std::vector<Node>> docs;
  for (std::string_view part : parts) {
    absl::StatusOr<std::vector<Node>> parsed = cub::config::ParseYaml(part);
    if (!parsed.ok()) return 0;
    docs.push_back(*std::move(parsed));
  }
  const std::vector<Node>& base = docs[0];
  const std::vector<Node>& end = docs[1];
  const std::vector<Node>& downstream = docs[2];

  const cub::config::Change change = cub::config::ComputeChange(base, end);
  const std::vector<cub::config::Mutation> mutations = cub::config::Mutations(change);
  CHECK_PROPERTY(change.empty() == mutations.empty());

  const cub::config::MergeResult first = cub::config::Apply(change, downstream, protection);
  const cub::config::MergeResult second = cub::config::Apply(change, first.documents, protection);
  CHECK_PROPERTY(second.documents == first.documents);
  CHECK_PROPERTY(!second.changed);
  CHECK_PROPERTY(second.overrides.empty());
  CHECK_PROPERTY(SameConflicts(first, second));
  for (const cub::config::Conflict& c : first.conflicts) (void)c.UpstreamJson();

  const cub::config::MergeResult onto_base = cub::config::Apply(change, base);
  if (onto_base.conflicts.empty()) {
    CHECK_PROPERTY(cub::config::Diff(end, onto_base.documents).empty());
  }

  const std::string emitted = cub::config::EmitYaml(first.documents);
  absl::StatusOr<std::vector<Node>> reread = cub::config::ParseYaml(emitted);
  CHECK_PROPERTY(reread.ok() && *reread == first.documents);
  CHECK_PROPERTY(cub::config::EmitYaml(*reread) == emitted);
  return 0;
}
