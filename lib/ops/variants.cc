#include "lib/ops/variants.h"

#include <optional>

#include "absl/strings/str_cat.h"
#include "lib/links/definition.h"
#include "lib/links/validate.h"
#include "lib/ops/access.h"
#include "lib/ops/input.h"
#include "lib/ops/resolve.h"
#include "lib/store/links.h"
#include "lib/store/schemas.h"
#include "lib/store/spaces.h"
#include "lib/store/units.h"

namespace cub::ops {
namespace {

bool IsYamlToolchain(const std::string& toolchain) {
  return toolchain == "Kubernetes/YAML" || toolchain == "ConfigHub/YAML";
}

// Settles a Link setting given both as a flag and in the definition: on when either says so,
// but a definition saying false beside a flag saying true is a contradiction.
absl::StatusOr<bool> Setting(const char* flag_name, const char* field, bool flag,
                             std::optional<bool> in_definition) {
  if (flag && in_definition == false) {
    return absl::InvalidArgumentError(
        absl::StrCat("--", flag_name, " contradicts the definition's ", field, ": false"));
  }
  return flag || in_definition.value_or(false);
}

}  // namespace

absl::StatusOr<v1::CreateVariantResponse> CreateVariant(store::ConnectionPool& db,
                                                        const Principal& p,
                                                        const v1::CreateVariantRequest& req) {
  if (auto s = ValidateSlug("space", req.slug()); !s.ok()) return s;
  if (auto s = ValidateKeys("label", req.labels()); !s.ok()) return s;
  v1::CreateVariantResponse out;
  absl::Status st = store::WithTransaction(db, [&](store::Tx& tx) -> absl::Status {
    auto upstream = ResolveSpace(tx, p, req.upstream_space(), Access::kRead);
    if (!upstream.ok()) return upstream.status();
    if (store::FindSpace(tx, req.slug())) {
      return absl::AlreadyExistsError(absl::StrCat("space '", req.slug(), "' already exists"));
    }
    store::NewSpace ns;
    ns.slug = req.slug();
    ns.labels = ToMap(req.labels());
    if (!req.stage().empty()) ns.labels["Stage"] = req.stage();
    if (!req.environment().empty()) ns.labels["Environment"] = req.environment();
    if (!req.region().empty()) ns.labels["Region"] = req.region();
    ns.component_id = upstream->component_id();
    ns.upstream_space_id = upstream->space_id();
    auto space = store::InsertSpace(tx, ns);
    if (!space.ok()) return space.status();
    store::CopyPermissions(tx, upstream->space_id(), space->space_id());
    if (auto s = store::GrantRole(tx, space->space_id(), "admin", p.user_id, ""); !s.ok()) {
      return s;
    }
    int64_t links = store::CloneUnits(tx, upstream->space_id(), space->space_id(), p.user_id,
                                      absl::StrCat("Cloned from ", upstream->slug()));
    store::UnitQuery q;
    q.space_id = space->space_id();
    auto units = store::ListUnits(tx, store::Caller{true, "", {}}, q);
    if (!units.ok()) return units.status();
    *out.mutable_space() = *space;
    for (auto& u : *units) *out.add_units() = std::move(u);
    out.set_link_count(links);
    return absl::OkStatus();
  });
  if (!st.ok()) return AlreadyExistsAs(st, absl::StrCat("space '", req.slug(), "'"));
  return out;
}

absl::StatusOr<v1::Link> CreateLink(store::ConnectionPool& db, const Principal& p,
                                    const v1::CreateLinkRequest& req) {
  links::Definition def;
  if (!req.definition().empty()) {
    auto parsed = ParseLinkDefinition(req.definition());
    if (!parsed.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("link definition: ", parsed.status().message()));
    }
    def = *std::move(parsed);
  }
  std::string update_type = req.update_type();
  if (def.update_type) {
    if (update_type.empty()) {
      update_type = *def.update_type;
    } else if (update_type != *def.update_type) {
      return absl::InvalidArgumentError(absl::StrCat("--update-type ", update_type,
                                                     " differs from the definition's UpdateType ",
                                                     *def.update_type));
    }
  }
  if (update_type.empty()) update_type = "UpgradeUnit";
  if (!links::IsKnownUpdateType(update_type)) {
    return links::ValidateDefinition(update_type, def, "");  // names the supported types
  }
  auto protect = Setting("protect", "Protect", req.protect(), def.protect);
  if (!protect.ok()) return protect.status();
  auto auto_update = Setting("auto-update", "AutoUpdate", req.auto_update(), def.auto_update);
  if (!auto_update.ok()) return auto_update.status();
  v1::Link out;
  absl::Status st = store::WithTransaction(db, [&](store::Tx& tx) -> absl::Status {
    auto space = ResolveSpace(tx, p, req.space(), Access::kWrite);
    if (!space.ok()) return space.status();
    auto from = ResolveUnit(tx, *space, req.from_unit());
    if (!from.ok()) return from.status();
    v1::Space to_space = *space;
    if (!req.to_space().empty()) {
      auto other = ResolveSpace(tx, p, req.to_space(), Access::kRead);
      if (!other.ok()) return other.status();
      to_space = *other;
    }
    auto to = ResolveUnit(tx, to_space, req.to_unit());
    if (!to.ok()) return to.status();
    if (to->unit_id() == from->unit_id()) {
      return absl::InvalidArgumentError("a unit cannot link to itself");
    }
    if (auto s = links::ValidateDefinition(update_type, def, from->toolchain_type()); !s.ok()) {
      return absl::InvalidArgumentError(absl::StrCat("link definition: ", s.message()));
    }
    if (links::IsResolvedType(update_type)) {
      for (const v1::Unit* u : {&*from, &*to}) {
        if (!IsYamlToolchain(u->toolchain_type())) {
          return absl::InvalidArgumentError(absl::StrCat("unit '", u->slug(), "' holds ",
                                                         u->toolchain_type(), " data, which a ",
                                                         update_type, " link cannot read or edit"));
        }
      }
    }
    if (req.upstream_revision_num() < 0 || req.upstream_revision_num() > to->head_revision_num()) {
      return absl::InvalidArgumentError(
          absl::StrCat("upstream revision ", req.upstream_revision_num(), " of unit '", to->slug(),
                       "' does not exist (head is ", to->head_revision_num(), ")"));
    }
    if (auto existing = store::FindLinkBetween(tx, from->unit_id(), to->unit_id(), update_type)) {
      return absl::AlreadyExistsError(absl::StrCat(
          "unit '", from->slug(), "' already has ", update_type, " link '", existing->slug(),
          "' to unit '", to->slug(), "' of space '", to_space.slug(), "'"));
    }
    std::string slug = req.slug();
    if (slug.empty() || slug == "-") slug = absl::StrCat(from->slug(), "-to-", to->slug());
    if (auto s = ValidateSlug("link", slug); !s.ok()) return s;
    if (store::FindLink(tx, space->space_id(), slug)) {
      return absl::AlreadyExistsError(
          absl::StrCat("link '", slug, "' already exists in space '", space->slug(), "'"));
    }
    store::NewLink nl{
        space->space_id(), slug,         from->unit_id(), to->unit_id(),
        update_type,       *auto_update, *protect,        req.upstream_revision_num()};
    PutDefinition(def, &nl.definition);
    auto link = store::InsertLink(tx, nl);
    if (!link.ok()) return link.status();
    out = *link;
    return absl::OkStatus();
  });
  if (!st.ok())
    return AlreadyExistsAs(st,
                           absl::StrCat("a link '", req.slug(), "' or one between these units"));
  return out;
}

absl::StatusOr<v1::Link> GetLink(store::ConnectionPool& db, const Principal& p,
                                 const v1::GetLinkRequest& req) {
  v1::Link out;
  absl::Status st = store::WithReadTransaction(db, [&](store::Tx& tx) -> absl::Status {
    auto space = ResolveSpace(tx, p, req.space(), Access::kRead);
    if (!space.ok()) return space.status();
    auto link = store::FindLink(tx, space->space_id(), req.link());
    if (!link) {
      return absl::NotFoundError(
          absl::StrCat("link '", req.link(), "' not found in space '", space->slug(), "'"));
    }
    out = *link;
    return absl::OkStatus();
  });
  if (!st.ok()) return st;
  return out;
}

absl::StatusOr<v1::ListLinksResponse> ListLinks(store::ConnectionPool& db, const Principal& p,
                                                const v1::ListLinksRequest& req) {
  v1::ListLinksResponse out;
  absl::Status st = store::WithReadTransaction(db, [&](store::Tx& tx) -> absl::Status {
    std::string space_id;
    if (req.space() != "*") {
      auto space = ResolveSpace(tx, p, req.space(), Access::kRead);
      if (!space.ok()) return space.status();
      space_id = space->space_id();
    }
    auto links = store::ListLinks(tx, ToCaller(p), space_id, req.options().where());
    if (!links.ok()) return links.status();
    for (auto& l : *links) *out.add_links() = std::move(l);
    return absl::OkStatus();
  });
  if (!st.ok()) return st;
  return out;
}

absl::StatusOr<v1::Filter> CreateFilter(store::ConnectionPool& db, const Principal& p,
                                        const v1::CreateFilterRequest& req) {
  if (auto s = ValidateSlug("filter", req.slug()); !s.ok()) return s;
  const where::Schema* schema = nullptr;
  if (req.from() == "Space") schema = &store::SpaceSchema();
  if (req.from() == "Unit") schema = &store::UnitSchema();
  if (schema == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("filter entity '", req.from(), "' is not supported: use Space or Unit"));
  }
  if (req.where_field().empty()) {
    return absl::InvalidArgumentError("a filter needs a where expression (--where-field)");
  }
  if (auto compiled = where::CompileToSql(req.where_field(), *schema); !compiled.ok()) {
    return compiled.status();
  }
  v1::Filter out;
  absl::Status st = store::WithTransaction(db, [&](store::Tx& tx) -> absl::Status {
    auto space = ResolveSpace(tx, p, req.space(), Access::kWrite);
    if (!space.ok()) return space.status();
    if (store::FindFilter(tx, space->space_id(), req.slug())) {
      return absl::AlreadyExistsError(
          absl::StrCat("filter '", req.slug(), "' already exists in space '", space->slug(), "'"));
    }
    auto f =
        store::InsertFilter(tx, {space->space_id(), req.slug(), req.from(), req.where_field()});
    if (!f.ok()) return f.status();
    out = *f;
    return absl::OkStatus();
  });
  if (!st.ok())
    return AlreadyExistsAs(st,
                           absl::StrCat("filter '", req.slug(), "' in space '", req.space(), "'"));
  return out;
}

absl::StatusOr<v1::Filter> GetFilter(store::ConnectionPool& db, const Principal& p,
                                     const v1::GetFilterRequest& req) {
  v1::Filter out;
  absl::Status st = store::WithReadTransaction(db, [&](store::Tx& tx) -> absl::Status {
    auto space = ResolveSpace(tx, p, req.space(), Access::kRead);
    if (!space.ok()) return space.status();
    auto f = store::FindFilter(tx, space->space_id(), req.filter());
    if (!f) {
      return absl::NotFoundError(
          absl::StrCat("filter '", req.filter(), "' not found in space '", space->slug(), "'"));
    }
    out = *f;
    return absl::OkStatus();
  });
  if (!st.ok()) return st;
  return out;
}

absl::StatusOr<v1::ListFiltersResponse> ListFilters(store::ConnectionPool& db, const Principal& p,
                                                    const v1::ListFiltersRequest& req) {
  v1::ListFiltersResponse out;
  absl::Status st = store::WithReadTransaction(db, [&](store::Tx& tx) -> absl::Status {
    auto space = ResolveSpace(tx, p, req.space(), Access::kRead);
    if (!space.ok()) return space.status();
    auto filters = store::ListFilters(tx, space->space_id(), req.options().where());
    if (!filters.ok()) return filters.status();
    for (auto& f : *filters) *out.add_filters() = std::move(f);
    return absl::OkStatus();
  });
  if (!st.ok()) return st;
  return out;
}

}  // namespace cub::ops
