// Use cases on variants, Links and Filters.
#ifndef CUB_LIB_OPS_VARIANTS_H_
#define CUB_LIB_OPS_VARIANTS_H_

#include "absl/status/statusor.h"
#include "cub/v1/variant.pb.h"
#include "lib/ops/principal.h"
#include "lib/store/pool.h"

namespace cub::ops {

// Creates Space `slug` as a variant of `upstream_space`: labelled with Stage/Environment/Region
// (and any other labels), in the upstream's component, holding a clone of every Unit of the
// upstream at its head, each linked to its upstream Unit by an UpgradeUnit Link whose merge
// cursor is the cloned revision. The upstream's grants carry over and the caller becomes an
// admin. Needs read access to the upstream. One transaction, a fixed number of statements
// whatever the number of Units. (lib/ops/variant_create.cc, a batch of one CreateVariants.)
absl::StatusOr<v1::CreateVariantResponse> CreateVariant(store::ConnectionPool& db,
                                                        const Principal& p,
                                                        const v1::CreateVariantRequest& req);

// The most variants one CreateVariants call creates.
inline constexpr int kMaxVariantsPerCall = 10000;

// Creates a variant of `upstream_space` for each of req.slugs, every one as CreateVariant
// would, in one transaction of a fixed number of statements whatever the number of variants
// and Units. All or nothing: INVALID_ARGUMENT for no slug, more than kMaxVariantsPerCall, and
// invalid or repeated slugs; ALREADY_EXISTS for slugs naming an existing Space; NOT_FOUND or
// PERMISSION_DENIED for the upstream, as CreateVariant; each naming the slugs at fault, and
// nothing created. Returns the new Spaces by slug.
absl::StatusOr<v1::CreateVariantsResponse> CreateVariants(store::ConnectionPool& db,
                                                          const Principal& p,
                                                          const v1::CreateVariantsRequest& req);

// Link between existing Units: FromUnit in `space` takes changes from ToUnit in ToSpace.
// The update type comes from the request or the definition (default UpgradeUnit); the
// definition (YAML or JSON, lib/links/definition.h) is parsed strictly and validated against
// the type and the downstream Unit's toolchain (lib/links/validate.h), so a Link that could not
// resolve is refused here. TransformPaths, Insert and Upsert Links need YAML data at both ends.
absl::StatusOr<v1::Link> CreateLink(store::ConnectionPool& db, const Principal& p,
                                    const v1::CreateLinkRequest& req);
absl::StatusOr<v1::Link> GetLink(store::ConnectionPool& db, const Principal& p,
                                 const v1::GetLinkRequest& req);
absl::StatusOr<v1::ListLinksResponse> ListLinks(store::ConnectionPool& db, const Principal& p,
                                                const v1::ListLinksRequest& req);

// The where expression is compiled at creation, so a broken filter is refused then.
absl::StatusOr<v1::Filter> CreateFilter(store::ConnectionPool& db, const Principal& p,
                                        const v1::CreateFilterRequest& req);
absl::StatusOr<v1::Filter> GetFilter(store::ConnectionPool& db, const Principal& p,
                                     const v1::GetFilterRequest& req);
absl::StatusOr<v1::ListFiltersResponse> ListFilters(store::ConnectionPool& db, const Principal& p,
                                                    const v1::ListFiltersRequest& req);

}  // namespace cub::ops

#endif  // CUB_LIB_OPS_VARIANTS_H_
