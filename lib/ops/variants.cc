#include "lib/ops/variants.h"

#include <optional>

#include "absl/strings/str_cat.h"
#include "lib/domain/vocabulary.h"
#include "lib/links/definition.h"
#include "lib/links/validate.h"
#include "lib/ops/access.h"
#include "lib/ops/input.h"
#include "lib/ops/resolve.h"
#include "lib/store/links.h"
#include "lib/store/schemas.h"
#include "lib/store/spaces.h"
#include "lib/store/units.h"
#include "lib/util/status_macros.h"

namespace cub::ops {
namespace {

bool IsYamlToolchain(const std::string& toolchain) {
  return toolchain == "Kubernetes/YAML" || toolchain == "ConfigHub/YAML";
}

// Settles a Link setting given both in the request and in the definition: on when either says so,
// but a definition saying false beside a request saying true is a contradiction.
absl::StatusOr<bool> Setting(const char* field, bool flag, std::optional<bool> in_definition) {
  if (flag && in_definition == false) {
    return absl::InvalidArgumentError(
        absl::StrCat(field, " contradicts the definition's ", field, ": false"));
  }
  return flag || in_definition.value_or(false);
}

}  // namespace

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
      return absl::InvalidArgumentError(absl::StrCat("UpdateType ", update_type,
                                                     " differs from the definition's UpdateType ",
                                                     *def.update_type));
    }
  }
  if (update_type.empty())
    update_type = std::string(domain::UpdateTypeName(domain::UpdateType::kUpgradeUnit));
  if (!links::IsKnownUpdateType(update_type)) {
    return links::ValidateDefinition(update_type, def, "");  // names the supported types
  }
  CUB_ASSIGN_OR_RETURN(auto protect, Setting("Protect", req.protect(), def.protect));
  CUB_ASSIGN_OR_RETURN(auto auto_update, Setting("AutoUpdate", req.auto_update(), def.auto_update));
  v1::Link out;
  absl::Status st = store::WithTransaction(db, [&](store::Tx& tx) -> absl::Status {
    CUB_ASSIGN_OR_RETURN(auto space, ResolveSpace(tx, p, req.space(), Access::kWrite));
    CUB_ASSIGN_OR_RETURN(auto from, ResolveUnit(tx, space, req.from_unit()));
    v1::Space to_space = space;
    if (!req.to_space().empty()) {
      CUB_ASSIGN_OR_RETURN(auto other, ResolveSpace(tx, p, req.to_space(), Access::kRead));
      to_space = other;
    }
    CUB_ASSIGN_OR_RETURN(auto to, ResolveUnit(tx, to_space, req.to_unit()));
    if (to.unit_id() == from.unit_id()) {
      return absl::InvalidArgumentError("a unit cannot link to itself");
    }
    if (auto s = links::ValidateDefinition(update_type, def, from.toolchain_type()); !s.ok()) {
      return absl::InvalidArgumentError(absl::StrCat("link definition: ", s.message()));
    }
    if (links::IsResolvedType(update_type)) {
      for (const v1::Unit* u : {&from, &to}) {
        if (!IsYamlToolchain(u->toolchain_type())) {
          return absl::InvalidArgumentError(absl::StrCat("unit '", u->slug(), "' holds ",
                                                         u->toolchain_type(), " data, which a ",
                                                         update_type, " link cannot read or edit"));
        }
      }
    }
    if (req.upstream_revision_num() < 0 || req.upstream_revision_num() > to.head_revision_num()) {
      return absl::InvalidArgumentError(
          absl::StrCat("upstream revision ", req.upstream_revision_num(), " of unit '", to.slug(),
                       "' does not exist (head is ", to.head_revision_num(), ")"));
    }
    CUB_ASSIGN_OR_RETURN(auto existing,
                         store::FindLinkBetween(tx, from.unit_id(), to.unit_id(), update_type));
    if (existing) {
      return absl::AlreadyExistsError(absl::StrCat(
          "unit '", from.slug(), "' already has ", update_type, " link '", existing->slug(),
          "' to unit '", to.slug(), "' of space '", to_space.slug(), "'"));
    }
    std::string slug = req.slug();
    if (slug.empty() || slug == "-") slug = absl::StrCat(from.slug(), "-to-", to.slug());
    CUB_RETURN_IF_ERROR(ValidateSlug("link", slug));
    CUB_ASSIGN_OR_RETURN(auto slug_taken, store::FindLink(tx, space.space_id(), slug));
    if (slug_taken) {
      return absl::AlreadyExistsError(
          absl::StrCat("link '", slug, "' already exists in space '", space.slug(), "'"));
    }
    store::NewLink nl{space.space_id(), slug,        from.unit_id(), to.unit_id(),
                      update_type,      auto_update, protect,        req.upstream_revision_num()};
    PutDefinition(def, &nl.definition);
    CUB_ASSIGN_OR_RETURN(auto link, store::InsertLink(tx, nl));
    out = link;
    return absl::OkStatus();
  });
  if (!st.ok())
    return AlreadyExistsAs(st,
                           absl::StrCat("a link '", req.slug(), "' or one between these units"));
  return out;
}

absl::StatusOr<v1::Link> GetLink(store::ConnectionPool& db, const Principal& p,
                                 const v1::GetLinkRequest& req) {
  return store::InReadTransaction(db, [&](store::Tx& tx) -> absl::StatusOr<v1::Link> {
    v1::Link out;
    CUB_ASSIGN_OR_RETURN(auto space, ResolveSpace(tx, p, req.space(), Access::kRead));
    CUB_ASSIGN_OR_RETURN(auto link, store::FindLink(tx, space.space_id(), req.link()));
    if (!link) {
      return absl::NotFoundError(
          absl::StrCat("link '", req.link(), "' not found in space '", space.slug(), "'"));
    }
    out = *link;
    return out;
  });
}

absl::StatusOr<v1::ListLinksResponse> ListLinks(store::ConnectionPool& db, const Principal& p,
                                                const v1::ListLinksRequest& req) {
  return store::InReadTransaction(db, [&](store::Tx& tx) -> absl::StatusOr<v1::ListLinksResponse> {
    v1::ListLinksResponse out;
    std::string space_id;
    if (req.space() != "*") {
      CUB_ASSIGN_OR_RETURN(auto space, ResolveSpace(tx, p, req.space(), Access::kRead));
      space_id = space.space_id();
    }
    CUB_ASSIGN_OR_RETURN(auto links,
                         store::ListLinks(tx, ToCaller(p), space_id, req.options().where()));
    for (auto& l : links) *out.add_links() = std::move(l);
    return out;
  });
}

absl::StatusOr<v1::Filter> CreateFilter(store::ConnectionPool& db, const Principal& p,
                                        const v1::CreateFilterRequest& req) {
  CUB_RETURN_IF_ERROR(ValidateSlug("filter", req.slug()));
  const where::Schema* schema = nullptr;
  if (req.from() == "Space") schema = &store::SpaceSchema();
  if (req.from() == "Unit") schema = &store::UnitSchema();
  if (schema == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("filter entity '", req.from(), "' is not supported: use Space or Unit"));
  }
  if (req.where_field().empty()) {
    return absl::InvalidArgumentError("a filter needs a where expression (WhereField)");
  }
  if (auto compiled = where::CompileToSql(req.where_field(), *schema); !compiled.ok()) {
    return compiled.status();
  }
  v1::Filter out;
  absl::Status st = store::WithTransaction(db, [&](store::Tx& tx) -> absl::Status {
    CUB_ASSIGN_OR_RETURN(auto space, ResolveSpace(tx, p, req.space(), Access::kWrite));
    CUB_ASSIGN_OR_RETURN(auto existing, store::FindFilter(tx, space.space_id(), req.slug()));
    if (existing) {
      return absl::AlreadyExistsError(
          absl::StrCat("filter '", req.slug(), "' already exists in space '", space.slug(), "'"));
    }
    CUB_ASSIGN_OR_RETURN(auto f, store::InsertFilter(tx, {space.space_id(), req.slug(), req.from(),
                                                          req.where_field()}));
    out = f;
    return absl::OkStatus();
  });
  if (!st.ok())
    return AlreadyExistsAs(st,
                           absl::StrCat("filter '", req.slug(), "' in space '", req.space(), "'"));
  return out;
}

absl::StatusOr<v1::Filter> GetFilter(store::ConnectionPool& db, const Principal& p,
                                     const v1::GetFilterRequest& req) {
  return store::InReadTransaction(db, [&](store::Tx& tx) -> absl::StatusOr<v1::Filter> {
    v1::Filter out;
    CUB_ASSIGN_OR_RETURN(auto space, ResolveSpace(tx, p, req.space(), Access::kRead));
    CUB_ASSIGN_OR_RETURN(auto f, store::FindFilter(tx, space.space_id(), req.filter()));
    if (!f) {
      return absl::NotFoundError(
          absl::StrCat("filter '", req.filter(), "' not found in space '", space.slug(), "'"));
    }
    out = *f;
    return out;
  });
}

absl::StatusOr<v1::ListFiltersResponse> ListFilters(store::ConnectionPool& db, const Principal& p,
                                                    const v1::ListFiltersRequest& req) {
  return store::InReadTransaction(
      db, [&](store::Tx& tx) -> absl::StatusOr<v1::ListFiltersResponse> {
        v1::ListFiltersResponse out;
        CUB_ASSIGN_OR_RETURN(auto space, ResolveSpace(tx, p, req.space(), Access::kRead));
        CUB_ASSIGN_OR_RETURN(auto filters,
                             store::ListFilters(tx, space.space_id(), req.options().where()));
        for (auto& f : filters) *out.add_filters() = std::move(f);
        return out;
      });
}

}  // namespace cub::ops
