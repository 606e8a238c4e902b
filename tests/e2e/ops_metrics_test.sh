#!/usr/bin/env bash
# cubd's /metrics, read by the real Prometheus server (Debian's `prometheus`): started on
# loopback with a scrape config naming cubd's HTTP listener, it must answer queries over its
# HTTP API (/api/v1/query) with cubd's series: RPC counts by method and code, latency
# histograms, publishes by outcome, the engine's and the delivery's backlog, the pool. The
# exposition text also passes `promtool check metrics`.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
command -v prometheus >/dev/null || _e2e_die_setup "prometheus is required (deploy/local/install-deps.sh)"
e2e_init ops_metrics
e2e_start_cubd main --threads 6
export CUB_SERVER=$E2E_SERVER CUB_TOKEN=$ADMIN_TOKEN
H=http://$E2E_HTTP

PROM_PID=""
_ops_exit() {
  local rc=$?
  [[ -z $PROM_PID ]] || { kill "$PROM_PID" 2>/dev/null; wait "$PROM_PID" 2>/dev/null; }
  (exit "$rc")
  _e2e_exit
}
trap _ops_exit EXIT

section "some calls: successes, a refusal, a publish"
expect_ok cub space create platform
expect_ok cub target create --space platform local --provider Directory \
  --param "path=$E2E_TMP/deploy"
expect_ok cub space create app
cat >"$E2E_TMP/cm.yaml" <<'YAML'
apiVersion: v1
kind: ConfigMap
metadata:
  name: app
data:
  color: blue
YAML
expect_ok cub unit create --space app config "$E2E_TMP/cm.yaml"
expect_ok cub space update app --release-target platform/local
expect_ok cub release publish app
expect_fail 1 "" cub space get no-such-space
expect_ok cub space list

section "/metrics as text"
expect_ok curl -sS -D "$E2E_TMP/metrics.h" -o "$E2E_TMP/metrics.txt" "$H/metrics"
expect_contains "$(cat "$E2E_TMP/metrics.h")" "text/plain; version=0.0.4"
m=$(cat "$E2E_TMP/metrics.txt")
expect_contains "$m" 'cubd_rpc_requests_total{method="SpaceService/GetSpace",code="NOT_FOUND"} 1'
expect_contains "$m" 'cubd_rpc_duration_seconds_bucket{method="SpaceService/ListSpaces",code="OK",le="+Inf"} 1'
expect_contains "$m" 'cubd_db_pool_size 6'
expect_match "$m" 'cubd_publishes_total\{source="api",outcome="OK"\} [1-9]'
expect_contains "$m" 'cubd_engine_queue_depth '
expect_contains "$m" 'cubd_delivery_backlog{state="Pending"} '
expect_contains "$m" 'cubd_database_up 1'
run promtool check metrics <"$E2E_TMP/metrics.txt"
expect_eq 0 "$RC" "promtool check metrics exit code (output: $OUT $ERR)"
expect_ok curl -sS -o /dev/null -w '%{http_code}' -X POST "$H/metrics"
expect_eq 405 "$OUT" "POST /metrics"

section "Prometheus scrapes cubd and answers queries about it"
prom_port=$(free_port)
mkdir -p "$E2E_TMP/prom"
cat >"$E2E_TMP/prom/prometheus.yml" <<YAML
global:
  scrape_interval: 1s
  evaluation_interval: 1s
scrape_configs:
  - job_name: cubd
    static_configs:
      - targets: ['$E2E_HTTP']
YAML
prometheus --config.file="$E2E_TMP/prom/prometheus.yml" --storage.tsdb.path="$E2E_TMP/prom/data" \
  --web.listen-address="127.0.0.1:$prom_port" >"$E2E_TMP/prom/log" 2>&1 &
PROM_PID=$!
P=http://127.0.0.1:$prom_port

# query EXPR: the result vector of an instant query (JSON), once Prometheus has it.
query() {
  local i out
  for i in $(seq 150); do
    out=$(curl -sS -G "$P/api/v1/query" --data-urlencode "query=$1" 2>/dev/null)
    if [[ $(jget data.result.len "$out" 2>/dev/null) =~ ^[1-9] ]]; then
      printf '%s' "$out"
      return 0
    fi
    sleep 0.2
  done
  printf '%s' "$out"
  return 1
}

out=$(query 'up{job="cubd"} == 1') || e2e_fail "Prometheus never scraped cubd: $out $(tail -5 "$E2E_TMP/prom/log")"
_e2e_pass "Prometheus scraped cubd"
out=$(query 'cubd_rpc_requests_total{method="SpaceService/GetSpace",code="NOT_FOUND"}') ||
  e2e_fail "no cubd_rpc_requests_total for GetSpace NOT_FOUND: $out"
expect_eq 1 "$(jget data.result.0.value.1 "$out")" "GetSpace NOT_FOUND count in Prometheus"
expect_eq "$E2E_HTTP" "$(jget data.result.0.metric.instance "$out")" "instance label"
out=$(query 'sum(cubd_publishes_total{source="api",outcome="OK"})') || e2e_fail "no publishes: $out"
expect_match "$(jget data.result.0.value.1 "$out")" '^[1-9]' "publishes in Prometheus"
out=$(query 'histogram_quantile(0.5, sum by (le) (cubd_rpc_duration_seconds_bucket{method="SpaceService/ListSpaces"}))') ||
  e2e_fail "no latency quantile: $out"
expect_match "$(jget data.result.0.value.1 "$out")" '^[0-9.e+-]+$' "median ListSpaces latency"
out=$(query 'cubd_db_pool_size') || e2e_fail "no pool size: $out"
expect_eq 6 "$(jget data.result.0.value.1 "$out")" "pool size in Prometheus"
out=$(query 'cubd_delivery_backlog{state="Pending"}') || e2e_fail "no delivery backlog: $out"
out=$(query 'cubd_engine_lag_seconds') || e2e_fail "no engine lag: $out"
_e2e_pass "engine and delivery gauges in Prometheus"

e2e_finish
