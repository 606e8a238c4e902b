#include "lib/ops/resolve.h"

#include <map>
#include <optional>
#include <set>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"
#include "lib/config/json.h"
#include "lib/config/yaml.h"
#include "lib/domain/vocabulary.h"
#include "lib/links/copy.h"
#include "lib/links/transform.h"
#include "lib/links/validate.h"
#include "lib/ops/access.h"
#include "lib/ops/upgrade.h"
#include "lib/ops/validation.h"
#include "lib/store/links.h"
#include "lib/store/spaces.h"
#include "lib/store/units.h"
#include "lib/util/sha256.h"
#include "lib/util/status_macros.h"

namespace cub::ops {
namespace {

using config::Node;

constexpr absl::string_view kLinkSelector = "Link:";

bool IsYamlToolchain(const std::string& toolchain) {
  return toolchain == "Kubernetes/YAML" || toolchain == "ConfigHub/YAML";
}

std::string UnitName(const v1::Unit& unit) {
  return absl::StrCat(unit.space_slug(), "/", unit.slug());
}

absl::Status WithContext(const absl::Status& s, absl::string_view context) {
  return absl::Status(s.code(), absl::StrCat(context, s.message()));
}

// Parsed revisions of upstream Units, so that many downstream Units following one upstream
// revision parse it once.
class UpstreamDocs {
 public:
  absl::StatusOr<const std::vector<Node>*> Get(store::Tx& tx, const v1::Unit& unit, int64_t num) {
    auto key = std::make_pair(unit.unit_id(), num);
    if (auto it = docs_.find(key); it != docs_.end()) return &it->second;
    CUB_ASSIGN_OR_RETURN(auto rev, store::FindRevision(tx, unit.unit_id(), num));
    if (!rev) {
      return absl::NotFoundError(
          absl::StrCat("revision ", num, " of unit '", UnitName(unit), "' not found"));
    }
    if (!IsYamlToolchain(unit.toolchain_type())) {
      return absl::FailedPreconditionError(absl::StrCat(
          "upstream unit '", UnitName(unit), "' holds ", unit.toolchain_type(), " data"));
    }
    auto parsed = config::ParseYaml(rev->data());
    if (!parsed.ok()) {
      return absl::FailedPreconditionError(
          absl::StrCat("upstream unit '", UnitName(unit), "' revision ", num,
                       " does not parse: ", parsed.status().message()));
    }
    return &docs_.emplace(key, *std::move(parsed)).first->second;
  }

 private:
  std::map<std::pair<std::string, int64_t>, std::vector<Node>> docs_;
};

struct ResolveOptions {
  int64_t merge_end = 0;              // 0: each upstream's head
  const Principal* reader = nullptr;  // checks read access to the upstreams when set
  std::string change_set_id;
  std::string change_desc;  // "" for a generated description
  bool automatic = false;   // an AutoUpdate, for the description
};

// Applies one Link, resolved against `upstream`, to `docs`. Sets *changed when it edited them.
absl::Status ApplyLink(const v1::Link& link, const std::vector<Node>& upstream,
                       std::vector<Node>* docs, bool* changed) {
  const auto type = domain::ParseUpdateType(link.update_type());
  if (type == domain::UpdateType::kTransformPaths) {
    links::Definition def = DefinitionOf(link);
    CUB_ASSIGN_OR_RETURN(auto values, links::ReadValues(def, upstream));
    CUB_ASSIGN_OR_RETURN(auto result, links::ApplySetters(def, values, std::move(*docs)));
    *docs = std::move(result.docs);
    *changed = result.changed;
    return absl::OkStatus();
  }
  links::CopyMode mode =
      type == domain::UpdateType::kUpsert ? links::CopyMode::kUpsert : links::CopyMode::kInsert;
  links::CopyResult copied = links::CopyResources(upstream, std::move(*docs), mode);
  *docs = std::move(copied.docs);
  *changed = copied.changed;
  return absl::OkStatus();
}

// Resolves `selected` (Links of `unit`, all of resolved types) and writes at most one revision.
// Returns the revision written, if any.
absl::StatusOr<std::optional<v1::Revision>> ResolveInto(store::Tx& tx, const v1::Space& space,
                                                        const v1::Unit& unit,
                                                        const std::vector<v1::Link>& selected,
                                                        const ResolveOptions& opts,
                                                        const std::string& author_id,
                                                        UpstreamDocs* cache) {
  if (!IsYamlToolchain(unit.toolchain_type())) {
    return absl::FailedPreconditionError(
        absl::StrCat("unit '", unit.slug(), "' holds ", unit.toolchain_type(),
                     " data, which links cannot edit; write it directly instead"));
  }
  std::vector<Node> docs;
  if (unit.head_revision_num() > 0) {
    CUB_ASSIGN_OR_RETURN(auto head,
                         store::FindRevision(tx, unit.unit_id(), unit.head_revision_num()));
    if (!head) return absl::InternalError("head revision missing");
    auto parsed = config::ParseYaml(head->data());
    if (!parsed.ok()) {
      return absl::FailedPreconditionError(
          absl::StrCat("unit '", unit.slug(), "' revision ", unit.head_revision_num(),
                       " does not parse: ", parsed.status().message()));
    }
    docs = *std::move(parsed);
  }
  std::vector<std::pair<std::string, int64_t>> cursors;
  std::vector<std::string> resolved;  // "L from S/U revision N", for the description
  std::optional<std::pair<std::string, int64_t>> source;  // first upstream that changed data
  for (const v1::Link& link : selected) {
    const std::string context = absl::StrCat("link '", link.slug(), "': ");
    CUB_ASSIGN_OR_RETURN(auto upstream, store::FindUnit(tx, link.to_space_id(), link.to_unit_id()));
    if (!upstream) return absl::InternalError(absl::StrCat(context, "upstream unit vanished"));
    if (opts.reader != nullptr) {
      auto readable = ResolveSpace(tx, *opts.reader, link.to_space_id(), Access::kRead);
      if (!readable.ok()) return WithContext(readable.status(), context);
    }
    const int64_t head = upstream->head_revision_num();
    const int64_t end = opts.merge_end > 0 ? opts.merge_end : head;
    if (head == 0) {
      return absl::FailedPreconditionError(
          absl::StrCat(context, "upstream unit '", UnitName(*upstream), "' has no revisions yet"));
    }
    if (end > head) {
      return absl::InvalidArgumentError(absl::StrCat(context, "revision ", end, " of unit '",
                                                     UnitName(*upstream),
                                                     "' does not exist (its head is ", head, ")"));
    }
    if (end < link.upstream_revision_num()) {
      return absl::FailedPreconditionError(absl::StrCat(
          "resolving link '", link.slug(), "' to revision ", end, " of unit '", UnitName(*upstream),
          "' would take it back: it has already resolved revision ", link.upstream_revision_num()));
    }
    auto upstream_docs = cache->Get(tx, *upstream, end);
    if (!upstream_docs.ok()) return WithContext(upstream_docs.status(), context);
    bool changed = false;
    if (auto s = ApplyLink(link, **upstream_docs, &docs, &changed); !s.ok()) {
      return WithContext(s, absl::StrCat(context, "resolving revision ", end, " of unit '",
                                         UnitName(*upstream), "': "));
    }
    if (changed && !source) source = std::make_pair(upstream->unit_id(), end);
    if (end != link.upstream_revision_num()) cursors.emplace_back(link.link_id(), end);
    resolved.push_back(absl::StrCat(link.slug(), " from ", UnitName(*upstream), " revision ", end));
  }
  CUB_RETURN_IF_ERROR(store::SetLinkCursors(tx, cursors));

  std::string hash = absl::StrCat("sha256:", Sha256Hex(config::CanonicalJson(docs)));
  if (hash == unit.data_hash() && unit.head_revision_num() > 0) return std::nullopt;
  store::NewRevision rev;
  rev.data = config::EmitYaml(docs);
  rev.data_hash = hash;
  rev.author_id = author_id;
  rev.change_set_id = opts.change_set_id;
  rev.description = opts.change_desc;
  if (rev.description.empty()) {
    rev.description =
        absl::StrCat(opts.automatic ? "Auto-updated through link" : "Resolved link",
                     resolved.size() == 1 ? " " : "s ", absl::StrJoin(resolved, ", "));
  }
  if (source) {
    rev.upstream_unit_id = source->first;
    rev.upstream_revision_num = source->second;
  }
  CUB_RETURN_IF_ERROR(RunValidators(tx, space, unit.toolchain_type(), &rev));
  CUB_ASSIGN_OR_RETURN(auto written, store::AppendRevision(tx, unit.unit_id(), rev));
  return std::optional<v1::Revision>(std::move(written));
}

// Brings one downstream Unit up to date with its AutoUpdate Links `group` (all from it).
// Returns whether it wrote a revision.
absl::StatusOr<bool> AutoUpdateUnit(store::Tx& tx, const Principal& p,
                                    const std::vector<v1::Link>& group, UpstreamDocs* cache,
                                    std::map<std::string, v1::Space>* spaces) {
  const v1::Link& first = group.front();
  auto space_it = spaces->find(first.space_id());
  if (space_it == spaces->end()) {
    CUB_ASSIGN_OR_RETURN(auto space, store::FindSpace(tx, first.space_id()));
    if (!space) return absl::InternalError("space of an AutoUpdate link vanished");
    space_it = spaces->emplace(first.space_id(), *space).first;
  }
  const v1::Space& space = space_it->second;
  // The Unit's own writers queue here too, as UpdateUnit's do.
  CUB_RETURN_IF_ERROR(store::LockUnit(tx, first.from_unit_id()));
  CUB_ASSIGN_OR_RETURN(auto unit, store::FindUnit(tx, space.space_id(), first.from_unit_id()));
  if (!unit) return absl::InternalError("unit of an AutoUpdate link vanished");
  if (!unit->change_set_id().empty()) return false;  // held by its ChangeSet: see resolve.h

  bool wrote = false;
  std::vector<v1::Link> resolved;
  for (const v1::Link& link : group) {
    if (links::IsResolvedType(link.update_type())) resolved.push_back(link);
  }
  if (!resolved.empty()) {
    ResolveOptions opts;
    opts.automatic = true;
    CUB_ASSIGN_OR_RETURN(auto rev, ResolveInto(tx, space, *unit, resolved, opts, p.user_id, cache));
    if (rev.has_value()) {
      wrote = true;
      CUB_ASSIGN_OR_RETURN(unit, store::FindUnit(tx, space.space_id(), unit->unit_id()));
    }
  }
  for (const v1::Link& link : group) {
    if (links::IsResolvedType(link.update_type())) continue;
    v1::UpdateUnitRequest req;
    req.set_merge_source(absl::StrCat(link.to_space_id(), "/", link.to_unit_id()));
    req.set_merge_base(static_cast<int32_t>(link.upstream_revision_num()));
    v1::UpdateUnitResponse out;
    // The Link grants the read of its upstream (see resolve.h), which the writer may not hold
    // beyond the first level of a chain; the revisions are still authored by the writer.
    Principal link_reader = p;
    link_reader.admin = true;
    if (auto s = Upgrade(tx, link_reader, space, *unit, req, "", &out); !s.ok()) {
      return WithContext(s, absl::StrCat("link '", link.slug(), "': "));
    }
    // Upgrade moves the cursor of the Link it found; this is the Link that asked, whatever
    // other Links the Unit merges through.
    CUB_ASSIGN_OR_RETURN(auto upstream, store::FindUnit(tx, link.to_space_id(), link.to_unit_id()));
    if (upstream && upstream->head_revision_num() > link.upstream_revision_num()) {
      CUB_RETURN_IF_ERROR(store::SetLinkCursor(tx, link.link_id(), upstream->head_revision_num()));
    }
    if (out.revisions_size() > 0) {
      wrote = true;
      CUB_ASSIGN_OR_RETURN(unit, store::FindUnit(tx, space.space_id(), unit->unit_id()));
    }
  }
  return wrote;
}

}  // namespace

absl::Status Resolve(store::Tx& tx, const Principal& p, const v1::Space& space,
                     const v1::Unit& unit, const v1::UpdateUnitRequest& req,
                     const std::string& change_set_id, v1::UpdateUnitResponse* out) {
  if (req.merge_end() < 0) {
    return absl::InvalidArgumentError("MergeEnd must be a revision number");
  }
  absl::string_view selector = req.resolve();
  if (!absl::ConsumePrefix(&selector, kLinkSelector)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "resolve '", req.resolve(), "': say which Links, \"Link:*\" or \"Link:<where>\""));
  }
  selector = absl::StripAsciiWhitespace(selector);
  std::string where(selector == "*" ? "" : selector);
  if (where.empty() && selector != "*") {
    return absl::InvalidArgumentError("resolve 'Link:': give a where expression, or * for all");
  }
  auto selected = store::ResolvedLinksFrom(tx, unit.unit_id(), where);
  if (!selected.ok()) {
    return WithContext(selected.status(), absl::StrCat("resolve '", req.resolve(), "': "));
  }
  if (selected->empty()) {
    return absl::FailedPreconditionError(
        absl::StrCat("unit '", unit.slug(), "' has no TransformPaths, Insert or Upsert link",
                     where.empty() ? "" : absl::StrCat(" matching ", where), " to resolve"));
  }
  ResolveOptions opts;
  opts.merge_end = req.merge_end();
  opts.reader = &p;
  opts.change_set_id = change_set_id;
  opts.change_desc = req.change_desc();
  UpstreamDocs cache;
  CUB_ASSIGN_OR_RETURN(auto rev, ResolveInto(tx, space, unit, *selected, opts, p.user_id, &cache));
  if (!rev.has_value()) {
    out->set_unchanged(true);
    return absl::OkStatus();
  }
  *out->mutable_revision() = *rev;
  *out->add_revisions() = *rev;
  return absl::OkStatus();
}

absl::Status FollowAutoUpdates(store::Tx& tx, const Principal& p,
                               std::vector<std::string> written_unit_ids,
                               std::vector<std::string>* followed) {
  UpstreamDocs cache;
  std::map<std::string, v1::Space> spaces;
  // How each Unit written here was reached ("a -> b -> c"), for the message about a cycle.
  std::map<std::string, std::string> trail;
  for (int depth = 0; !written_unit_ids.empty(); ++depth) {
    CUB_ASSIGN_OR_RETURN(std::vector<v1::Link> found,
                         store::AutoUpdateLinksTo(tx, written_unit_ids));
    if (found.empty()) return absl::OkStatus();
    if (depth >= kMaxAutoUpdateDepth) {
      const v1::Link& l = found.front();
      return absl::FailedPreconditionError(absl::StrCat(
          "AutoUpdate links lead more than ", kMaxAutoUpdateDepth,
          " steps on from the unit written (", trail[l.to_unit_id()], " -> ", l.from_unit_slug(),
          " ...); a chain of AutoUpdate links probably leads back to where it started: turn "
          "AutoUpdate off on one of them"));
    }
    std::vector<std::string> next;
    for (size_t i = 0; i < found.size();) {
      size_t j = i;
      while (j < found.size() && found[j].from_unit_id() == found[i].from_unit_id()) ++j;
      std::vector<v1::Link> group(found.begin() + i, found.begin() + j);
      const v1::Link& first = group.front();
      auto wrote = AutoUpdateUnit(tx, p, group, &cache, &spaces);
      if (!wrote.ok()) {
        return WithContext(
            wrote.status(),
            absl::StrCat("AutoUpdate of unit '", first.from_unit_slug(), "' (",
                         first.to_space_slug(), "/", first.to_unit_slug(), " changed): "));
      }
      if (*wrote) {
        std::string& from = trail[first.to_unit_id()];
        if (from.empty()) from = first.to_unit_slug();
        trail[first.from_unit_id()] = absl::StrCat(from, " -> ", first.from_unit_slug());
        next.push_back(first.from_unit_id());
        if (followed != nullptr) followed->push_back(first.from_unit_id());
      }
      i = j;
    }
    written_unit_ids = std::move(next);
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<std::string>> LinkHeldPaths(
    store::Tx& tx, const v1::Unit& unit, const std::vector<const std::vector<Node>*>& states) {
  std::set<std::string> held;
  UpstreamDocs cache;
  CUB_ASSIGN_OR_RETURN(
      auto transforms,
      store::LinksFrom(tx, unit.unit_id(),
                       std::string(domain::UpdateTypeName(domain::UpdateType::kTransformPaths))));
  for (const v1::Link& link : transforms) {
    if (!link.protect() || link.upstream_revision_num() == 0) continue;
    const std::string context = absl::StrCat("protect link '", link.slug(), "': ");
    CUB_ASSIGN_OR_RETURN(auto upstream, store::FindUnit(tx, link.to_space_id(), link.to_unit_id()));
    if (!upstream) return absl::InternalError(absl::StrCat(context, "upstream unit vanished"));
    auto docs = cache.Get(tx, *upstream, link.upstream_revision_num());
    if (!docs.ok()) return WithContext(docs.status(), context);
    links::Definition def = DefinitionOf(link);
    auto values = links::ReadValues(def, **docs);
    if (!values.ok()) return WithContext(values.status(), context);
    for (const std::vector<Node>* state : states) {
      auto paths = links::SetterPaths(def, *values, *state);
      if (!paths.ok()) return WithContext(paths.status(), context);
      held.insert(paths->begin(), paths->end());
    }
  }
  return std::vector<std::string>(held.begin(), held.end());
}

absl::StatusOr<links::Definition> ParseLinkDefinition(std::string_view text) {
  static const links::ParseOptions* const options = [] {
    auto* o = new links::ParseOptions;
    const std::set<std::string> definition = {"Protect", "AutoUpdate", "UpdateType",
                                              "UpstreamPaths", "DownstreamSetters"};
    const google::protobuf::Descriptor* d = v1::Link::descriptor();
    for (int i = 0; i < d->field_count(); ++i) {
      if (definition.count(d->field(i)->json_name()) == 0) {
        o->skip_fields.push_back(d->field(i)->json_name());
      }
    }
    return o;
  }();
  return links::ParseDefinition(text, *options);
}

links::Definition DefinitionOf(const v1::Link& link) {
  links::Definition def;
  for (const auto& up : link.upstream_paths()) {
    def.upstream_paths.push_back(
        {up.name(), up.path(), {up.resource().resource_type(), up.resource().resource_name()}});
  }
  for (const auto& s : link.downstream_setters()) {
    links::DownstreamSetter setter;
    setter.parameters.assign(s.parameters().begin(), s.parameters().end());
    setter.function_name = s.function_invocation().function_name();
    for (const auto& a : s.function_invocation().arguments()) {
      setter.arguments.push_back({a.parameter_name(), a.value(), a.evaluator()});
    }
    def.setters.push_back(std::move(setter));
  }
  return def;
}

void PutDefinition(const links::Definition& def, v1::Link* link) {
  link->clear_upstream_paths();
  link->clear_downstream_setters();
  for (const auto& up : def.upstream_paths) {
    v1::LinkUpstreamPath* p = link->add_upstream_paths();
    p->set_name(up.name);
    p->set_path(up.path);
    p->mutable_resource()->set_resource_type(up.resource.type);
    p->mutable_resource()->set_resource_name(up.resource.name);
  }
  for (const auto& s : def.setters) {
    v1::LinkDownstreamSetter* ps = link->add_downstream_setters();
    for (const auto& param : s.parameters) ps->add_parameters(param);
    v1::LinkFunctionInvocation* fi = ps->mutable_function_invocation();
    fi->set_function_name(s.function_name);
    for (const auto& a : s.arguments) {
      v1::LinkFunctionArgument* pa = fi->add_arguments();
      pa->set_parameter_name(a.parameter_name);
      pa->set_value(a.value);
      pa->set_evaluator(a.evaluator);
    }
  }
}

}  // namespace cub::ops
