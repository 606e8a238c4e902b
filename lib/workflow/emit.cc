#include "lib/workflow/emit.h"

#include <utility>
#include <vector>

#include "lib/config/json.h"

namespace cub::workflow {
namespace {

using config::Node;

Node Strings(const std::vector<std::string>& v) {
  Node::Sequence items;
  items.reserve(v.size());
  for (const std::string& s : v) items.push_back(Node::String(s));
  return Node::Seq(std::move(items));
}

Node StageNode(const Stage& s) {
  return Node::Map({
      {"Name", Node::String(s.name)},
      {"WhereSpace", Node::String(s.where_space)},
      {"Prerequisites", Strings(s.prerequisites)},
      {"ReleasePrerequisites", Strings(s.release_prerequisites)},
      {"Mode", Node::String(std::string(StageModeName(s.mode)))},
      {"AutoRelease", Node::Bool(s.auto_release)},
      {"SoakTime", Node::String(s.soak_time)},
  });
}

Node CustomNode(const CustomPrerequisite& c) {
  return Node::Map({
      {"Name", Node::String(c.name)},
      {"Expression", Node::String(c.expression)},
      {"Description", Node::String(c.description)},
  });
}

Node AttestationNode(const AttestationPrerequisite& a) {
  return Node::Map({
      {"Name", Node::String(a.name)},
      {"Type", Node::String(a.type)},
      {"Count", Node::Int(a.count)},
      {"FromUserIDs", Strings(a.from_user_ids)},
      {"FromGroups", Strings(a.from_groups)},
      {"DistinctGroups", Node::Bool(a.distinct_groups)},
      {"MaxAge", Node::String(a.max_age)},
      {"AllowAuthors", Node::Bool(a.allow_authors)},
      {"IgnoreFail", Node::Bool(a.ignore_fail)},
      {"Description", Node::String(a.description)},
  });
}

}  // namespace

Node ToNode(const Workflow& w) {
  Node::Sequence stages, customs, attestations;
  for (const Stage& s : w.stages) stages.push_back(StageNode(s));
  for (const CustomPrerequisite& c : w.custom_prerequisites) customs.push_back(CustomNode(c));
  for (const AttestationPrerequisite& a : w.attestation_prerequisites) {
    attestations.push_back(AttestationNode(a));
  }
  return Node::Map({
      {"Stages", Node::Seq(std::move(stages))},
      {"Final", Node::Map({{"Prerequisites", Strings(w.final.prerequisites)}})},
      {"CustomPrerequisites", Node::Seq(std::move(customs))},
      {"AttestationPrerequisites", Node::Seq(std::move(attestations))},
  });
}

std::string ToJson(const Workflow& w, bool pretty) { return config::EmitJson(ToNode(w), pretty); }

}  // namespace cub::workflow
