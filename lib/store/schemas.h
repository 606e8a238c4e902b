// The fields each entity exposes to the where language, and the SQL column behind each.
// This whitelist is the only way user-named fields reach SQL text. The table aliases used
// here (s = spaces, c = components, u = units, r = revisions, t = tags, l = links,
// f = filters, cs = change_sets) are what the repositories' queries must use.
#ifndef CUB_LIB_STORE_SCHEMAS_H_
#define CUB_LIB_STORE_SCHEMAS_H_

#include "lib/where/where.h"

namespace cub::store {

const where::Schema& SpaceSchema();
const where::Schema& UnitSchema();
const where::Schema& RevisionSchema();
const where::Schema& TagSchema();
const where::Schema& LinkSchema();
const where::Schema& FilterSchema();
const where::Schema& ChangeSetSchema();
// Alias at = attestations.
const where::Schema& AttestationSchema();
// Alias e = events.
const where::Schema& EventSchema();
// Alias q = queued_promotions, s = its base Space, co = its ChangeOrder, u = who queued it.
const where::Schema& QueuedPromotionSchema();

}  // namespace cub::store

#endif  // CUB_LIB_STORE_SCHEMAS_H_
