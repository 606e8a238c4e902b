#include "lib/links/copy.h"

#include <map>
#include <optional>
#include <utility>

#include "lib/links/resource.h"

namespace cub::links {

CopyResult CopyResources(const std::vector<config::Node>& upstream,
                         std::vector<config::Node> downstream, CopyMode mode) {
  CopyResult out;
  out.docs = std::move(downstream);
  // An empty Unit parses as no documents or as null ones; copies replace the latter.
  size_t nulls = 0;
  for (const config::Node& d : out.docs) nulls += d.IsNull() ? 1 : 0;
  const bool empty_unit = nulls == out.docs.size();
  // Identity -> index in out.docs, for the downstream's documents (the first of duplicates).
  std::map<std::string, size_t> index;
  for (size_t i = 0; i < out.docs.size(); ++i) {
    if (std::optional<std::string> id = ResourceIdentity(out.docs[i])) index.emplace(*id, i);
  }
  for (const config::Node& doc : upstream) {
    if (doc.IsNull()) continue;
    std::optional<std::string> id = ResourceIdentity(doc);
    if (!id) {
      bool present = false;
      for (const config::Node& d : out.docs) present = present || d == doc;
      if (!present) {
        out.docs.push_back(doc);
        ++out.added;
      }
      continue;
    }
    auto it = index.find(*id);
    if (it == index.end()) {
      index.emplace(*id, out.docs.size());
      out.docs.push_back(doc);
      ++out.added;
    } else if (mode == CopyMode::kUpsert && !(out.docs[it->second] == doc)) {
      out.docs[it->second] = doc;
      ++out.replaced;
    }
  }
  if (empty_unit && out.added > 0) out.docs.erase(out.docs.begin(), out.docs.begin() + nulls);
  out.changed = out.added + out.replaced > 0;
  return out;
}

}  // namespace cub::links
