// cubd's metrics and readiness parts against a real PostgreSQL: the pool counts its waits and
// the waits that gave up; the work-list gauges read the engine's rows and the undelivered
// Releases; the registry renders counters, histograms and gauges in Prometheus' text format;
// Health reports not ready when the database cannot be reached and while draining; request IDs
// are kept when usable and made up otherwise.
#include <catch2/catch.hpp>
#include <string>

#include "absl/strings/match.h"
#include "absl/time/time.h"
#include "harness/test_db.h"
#include "lib/store/migrations.h"
#include "lib/store/ops_gauges.h"
#include "lib/store/pool.h"
#include "lib/store/pool_stats.h"
#include "lib/store/pq.h"
#include "lib/store/transaction.h"
#include "server/health.h"
#include "server/metrics.h"
#include "server/request_log.h"

namespace cub {
namespace {

TEST_CASE("the pool counts acquires, waits and the waits that gave up") {
  const std::string url = testing::FreshDatabaseUrl("ops_pool");
  store::ConnectionPool pool(url, 1);
  {
    auto held = pool.Acquire();
    REQUIRE(held.ok());
    store::PoolStats s = store::ReadPoolStats(pool);
    CHECK(s.size == 1);
    CHECK(s.open == 1);
    CHECK(s.in_use == 1);
    CHECK(s.waits == 0);
    auto refused = pool.Acquire(absl::Milliseconds(50));
    CHECK(absl::IsResourceExhausted(refused.status()));
  }
  store::PoolStats s = store::ReadPoolStats(pool);
  CHECK(s.acquires == 2);
  CHECK(s.waits == 1);
  CHECK(s.wait_timeouts == 1);
  CHECK(s.wait_seconds >= 0.04);
  CHECK(s.in_use == 0);
  CHECK(s.open == 1);
}

TEST_CASE("the work-list gauges count engine rows and undelivered Releases") {
  const std::string url = testing::FreshDatabaseUrl("ops_gauges");
  REQUIRE(store::ApplyMigrations(url).ok());
  store::ConnectionPool pool(testing::RuntimeUrl(url), 1);
  auto empty =
      store::InReadTransaction(pool, [](store::Tx& tx) { return store::ReadOpsGauges(tx); });
  REQUIRE(empty.ok());
  CHECK(empty->engine_rows == 0);
  CHECK(empty->engine_lag_seconds == 0);
  CHECK(empty->delivery_pending == 0);
  CHECK(empty->delivery_failed == 0);
  // Two engine rows, one due for a minute and one due later.
  store::ConnectionPool owner(url, 1);
  REQUIRE(store::WithTransaction(owner, [&](store::Tx& tx) -> absl::Status {
            return store::Guard([&]() -> absl::Status {
              auto& t = store::Pq(tx);
              for (const std::string slug : {"a", "b"}) {
                std::string space =
                    t.exec_params1("INSERT INTO spaces (slug) VALUES ($1) RETURNING id::text",
                                   "base-" + slug)[0]
                        .as<std::string>();
                std::string tag = t.exec_params1(
                                       "INSERT INTO tags (space_id, slug) VALUES ($1::uuid, $2)"
                                       " RETURNING id::text",
                                       space, slug + "-co-start")[0]
                                      .as<std::string>();
                std::string co = t.exec_params1(
                                      "INSERT INTO change_orders (space_id, slug, start_tag_id,"
                                      " end_tag_id, publish_tag_id) VALUES ($1::uuid, $2,"
                                      " $3::uuid, $3::uuid, $3::uuid) RETURNING id::text",
                                      space, slug, tag)[0]
                                     .as<std::string>();
                t.exec_params(
                    "INSERT INTO engine_work (change_order_id, due_at) VALUES"
                    " ($1::uuid, now() + $2::interval)",
                    co, slug == "a" ? "-1 minute" : "1 hour");
              }
              return absl::OkStatus();
            });
          }).ok());
  auto g = store::InReadTransaction(pool, [](store::Tx& tx) { return store::ReadOpsGauges(tx); });
  REQUIRE(g.ok());
  CHECK(g->engine_rows == 2);
  CHECK(g->engine_due == 1);
  CHECK(g->engine_lag_seconds >= 59);
  CHECK(g->engine_lag_seconds < 3600);
}

TEST_CASE("metrics render counters, histograms and gauges") {
  server::Metrics m;
  m.RecordCall("SpaceService/GetSpace", 0, absl::Milliseconds(3));
  m.RecordCall("SpaceService/GetSpace", 0, absl::Milliseconds(30));
  m.RecordCall("SpaceService/GetSpace", 5, absl::Microseconds(200));
  m.RecordCall("ReleaseService/PublishRelease", 9, absl::Milliseconds(1));
  m.RecordEngineStep(2, 1, false);
  m.RecordEngineStep(0, 0, true);
  store::OpsGauges g;
  g.engine_rows = 4;
  g.delivery_failed = 3;
  m.SetDatabaseState(true, &g);
  const std::string url = testing::FreshDatabaseUrl("ops_render");
  store::ConnectionPool pool(url, 7);
  const std::string text = m.Render(&pool);
  CHECK_THAT(
      text,
      Catch::Contains("cubd_rpc_requests_total{method=\"SpaceService/GetSpace\",code=\"OK\"} 2\n"));
  CHECK_THAT(text, Catch::Contains("cubd_rpc_requests_total{method=\"SpaceService/GetSpace\","
                                   "code=\"NOT_FOUND\"} 1\n"));
  // Cumulative buckets: 3 ms is above 2.5 ms, 30 ms above 25 ms.
  CHECK_THAT(text, Catch::Contains("cubd_rpc_duration_seconds_bucket{method=\"SpaceService/"
                                   "GetSpace\",code=\"OK\",le=\"0.0025\"} 0\n"));
  CHECK_THAT(text, Catch::Contains("cubd_rpc_duration_seconds_bucket{method=\"SpaceService/"
                                   "GetSpace\",code=\"OK\",le=\"0.005\"} 1\n"));
  CHECK_THAT(text, Catch::Contains("cubd_rpc_duration_seconds_bucket{method=\"SpaceService/"
                                   "GetSpace\",code=\"OK\",le=\"0.05\"} 2\n"));
  CHECK_THAT(text, Catch::Contains("cubd_rpc_duration_seconds_sum{method=\"SpaceService/"
                                   "GetSpace\",code=\"OK\"} 0.033\n"));
  CHECK_THAT(text, Catch::Contains(
                       "cubd_publishes_total{source=\"api\",outcome=\"FAILED_PRECONDITION\"} 1\n"));
  CHECK_THAT(text, Catch::Contains("cubd_publishes_total{source=\"engine\",outcome=\"OK\"} 1\n"));
  CHECK_THAT(text, Catch::Contains("cubd_promotions_total{source=\"engine\",outcome=\"OK\"} 2\n"));
  CHECK_THAT(text,
             Catch::Contains("cubd_promotions_total{source=\"engine\",outcome=\"failed\"} 1\n"));
  CHECK_THAT(text, Catch::Contains("cubd_promotions_total{source=\"api\",outcome=\"OK\"} 0\n"));
  CHECK_THAT(text, Catch::Contains("cubd_engine_queue_depth 4\n"));
  CHECK_THAT(text, Catch::Contains("cubd_delivery_backlog{state=\"Failed\"} 3\n"));
  CHECK_THAT(text, Catch::Contains("cubd_db_pool_size 7\n"));
  CHECK_THAT(text, Catch::Contains("cubd_database_up 1\n"));
  CHECK_THAT(text, Catch::Contains("# TYPE cubd_rpc_duration_seconds histogram\n"));
}

TEST_CASE("metrics quote label values") {
  server::Metrics m;
  m.RecordCall("a\"b\\c\nd", 0, absl::Milliseconds(1));
  CHECK_THAT(m.Render(nullptr), Catch::Contains("method=\"a\\\"b\\\\c\\nd\""));
}

TEST_CASE("health is not ready while the database is unreachable, nor while draining") {
  const std::string url = testing::FreshDatabaseUrl("ops_health");
  REQUIRE(store::ApplyMigrations(url).ok());
  server::Metrics m;
  {
    server::Health up(testing::RuntimeUrl(url), &m);
    up.Start(nullptr, {});
    CHECK(up.NotReadyReason() == "");
    CHECK_THAT(m.Render(nullptr), Catch::Contains("cubd_database_up 1\n"));
    up.SetDraining();
    CHECK(up.NotReadyReason() == "draining after SIGTERM");
    CHECK_THAT(m.Render(nullptr), Catch::Contains("cubd_draining 1\n"));
  }
  server::Metrics m2;
  // Port 1 on loopback: nothing listens there.
  server::Health down("postgresql://cub_serve@127.0.0.1:1/nothing", &m2);
  down.Start(nullptr, {});
  CHECK_THAT(down.NotReadyReason(),
             Catch::Equals("database unreachable (the reason is in cubd's log)"));
  CHECK_THAT(m2.Render(nullptr), Catch::Contains("cubd_database_up 0\n"));
}

TEST_CASE("request IDs are kept when usable, made up otherwise") {
  const std::string good = "abc-123_x.y:z";
  CHECK(server::RequestIdOr(&good) == good);
  for (std::string bad : {std::string(""), std::string("a b"), std::string("x\"y"),
                          std::string(129, 'a'), std::string("caf\xc3\xa9")}) {
    std::string id = server::RequestIdOr(&bad);
    CHECK(id.size() == 16);
    CHECK(id != bad);
  }
  CHECK(server::RequestIdOr(nullptr).size() == 16);
  CHECK(server::RequestIdOr(nullptr) != server::RequestIdOr(nullptr));
}

}  // namespace
}  // namespace cub
