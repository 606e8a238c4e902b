#include "lib/store/ops_gauges.h"

#include "lib/store/pq.h"

namespace cub::store {

absl::StatusOr<OpsGauges> ReadOpsGauges(Tx& tx) {
  return Guard([&]() -> absl::StatusOr<OpsGauges> {
    // The undelivered Releases are what the partial index releases_undelivered covers.
    pqxx::row r = Pq(tx).exec1(
        "SELECT e.n AS engine_rows, e.due AS engine_due, e.lag AS engine_lag,"
        " d.pending AS pending, d.failed AS failed, d.oldest AS oldest FROM"
        " (SELECT count(*) AS n, count(*) FILTER (WHERE due_at <= now()) AS due,"
        "   coalesce(extract(epoch FROM now() - min(due_at) FILTER (WHERE due_at <= now())), 0)"
        "   ::float8 AS lag FROM engine_work) e,"
        " (SELECT count(*) FILTER (WHERE delivery_state = 'Pending') AS pending,"
        "   count(*) FILTER (WHERE delivery_state = 'Failed') AS failed,"
        "   coalesce(extract(epoch FROM now() - min(published_at)), 0)::float8 AS oldest"
        "   FROM releases WHERE delivery_state <> 'Delivered') d");
    OpsGauges g;
    g.engine_rows = r["engine_rows"].as<int64_t>();
    g.engine_due = r["engine_due"].as<int64_t>();
    g.engine_lag_seconds = r["engine_lag"].as<double>();
    g.delivery_pending = r["pending"].as<int64_t>();
    g.delivery_failed = r["failed"].as<int64_t>();
    g.delivery_oldest_seconds = r["oldest"].as<double>();
    return g;
  });
}

}  // namespace cub::store
