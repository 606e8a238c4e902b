#!/usr/bin/env bash
# Dashboard benchmark: how long the pages take to first render in Debian's headless Chromium
# (tests/ui/bench.mjs) against a real cubd holding a fleet: N Spaces (variants of one base, in
# two Stages) and M ChangeOrders on the base, each with every variant in scope. Prints the
# median and worst of CUB_BENCH_RUNS full page loads per page (log-in cookie set, cold page:
# modules, session, the API calls) against the target of 300 ms; asserts nothing beyond its
# own setup (benchmarks print figures, tests/bench/CMakeLists.txt).
#
#   first render of Rollouts     the first page of ChangeOrders listed (25 rows)
#   Rollouts live                every row of it shows its Stages (WatchChangeOrder snapshots)
#   ChangeOrder page             summary, and the first page of Spaces of each Stage
#   Review page                  the Unit's diff in the base
#   Space page                   its Releases and Units
#
# Usage: bash tests/bench/ui_bench.sh [BUILD_DIR]   (default: build; `npm ci` in tests/ui first)
#   CUB_BENCH_SPACES  variants (default 1000)      CUB_BENCH_COS   ChangeOrders (default 200)
#   CUB_BENCH_RUNS    page loads per figure (7)    CUB_BENCH_WORKERS  parallel seeders (4)
#   CUB_BENCH_PG_PORT PostgreSQL port (31640)
#   CUB_BENCH_BASELINE  another build dir (its bin/cubd) to compare with: a second cubd of that
#                     build serves the same fleet, and the figures of both are taken in turn,
#                     baseline first, CUB_BENCH_ROUNDS times (default 2), each line labelled,
#                     so the two see the same data and the same load. The baseline must use
#                     the same database schema.
#   CUB_BENCH_TRACE   also the requests of one load of each figure (tests/ui/bench.mjs)
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)

if [[ ${1:-} != --inner ]]; then
  build=$(cd "${1:-$root/build}" && pwd)
  if [[ -n ${CUB_BENCH_BASELINE:-} ]]; then
    CUB_BENCH_BASELINE=$(cd "$CUB_BENCH_BASELINE" && pwd) || exit 1
    export CUB_BENCH_BASELINE
  fi
  port=${CUB_BENCH_PG_PORT:-31640}
  pgdir=$(mktemp -d /tmp/cub-ui-bench-pg.XXXXXX)
  # The cluster goes however the run ends (a timeout's SIGTERM included).
  trap 'bash "$root/tests/harness/pg.sh" stop "$pgdir" "$port" >/dev/null 2>&1; rm -rf "$pgdir"' EXIT
  trap 'exit 143' TERM INT
  bash "$root/tests/harness/pg.sh" start "$pgdir" "$port" >"$pgdir/start.log" 2>&1 ||
    { cat "$pgdir/start.log" >&2; exit 1; }
  CUB_TEST_PG_URL="postgresql://cub_test@127.0.0.1:$port/postgres" CUB_BIN_DIR=$build/bin \
    CUB_SOURCE_DIR=$root E2E_NAME=ui_bench bash "${BASH_SOURCE[0]}" --inner
  exit $?
fi

source "$root/tests/e2e/lib.sh"
spaces=${CUB_BENCH_SPACES:-1000}
cos=${CUB_BENCH_COS:-200}
workers=${CUB_BENCH_WORKERS:-4}
[[ -d $root/tests/ui/node_modules/playwright-core ]] ||
  _e2e_die_setup "run (cd tests/ui && npm ci) first"
e2e_init ui_bench
e2e_start_cubd main
export CUB_SERVER=$E2E_SERVER CUB_TOKEN=$ADMIN_TOKEN
now_ms() { echo $(($(date +%s%N) / 1000000)); }

section "setup: $spaces variants, $cos ChangeOrders (not measured)"
t0=$(now_ms)
VIEWER=$(create_user viewer) || e2e_fail "user"
expect_ok cub space create platform
cat >"$E2E_TMP/flow.yaml" <<YAML
Stages:
  - Name: dev
    WhereSpace: "Labels.Stage = 'Development'"
  - Name: prod
    WhereSpace: "Labels.Stage = 'Production'"
YAML
expect_ok cub changeworkflow create --space platform flow --filename "$E2E_TMP/flow.yaml"
expect_ok cub space create web-base
deployment v0 >"$E2E_TMP/v0.yaml"
expect_ok cub unit create --space web-base deployment "$E2E_TMP/v0.yaml"
# One variant in ten is in dev, the rest in prod.
seq 1 "$spaces" | xargs -P "$workers" -I{} bash -c '
  stage=Production; (( {} % 10 == 0 )) && stage=Development
  "$0/cub" variant create "web-$(printf %04d {})" web-base --stage $stage >/dev/null' \
  "$CUB_BIN_DIR" || e2e_fail "variant create"
# The viewer sees everything: a role on each Space.
expect_ok cub space grant web-base viewer --user viewer
expect_ok cub space grant platform viewer --user viewer
seq 1 "$spaces" | xargs -P "$workers" -I{} bash -c '
  "$0/cub" space grant "web-$(printf %04d {})" viewer --user viewer >/dev/null' \
  "$CUB_BIN_DIR" || e2e_fail "grant"
for i in $(seq 1 "$cos"); do
  cub function set --space web-base --unit deployment -- \
    set-image-reference-by-uri ghcr.io/acme/acme ":v$i" >/dev/null || e2e_fail "set v$i"
  cub changeorder create --space web-base "v$i" --change-workflow platform/flow \
    --description "v$i" >/dev/null || e2e_fail "changeorder v$i"
done
echo "setup took $(($(now_ms) - t0)) ms"

# bench_at LABEL HTTP: the figures of the cubd at HTTP, each line after LABEL.
bench_at() {
  CUB_UI_URL="http://$2" CUB_UI_TOKEN=$VIEWER CUB_BENCH_RUNS=${CUB_BENCH_RUNS:-7} \
    CUB_BENCH_COS=$cos E2E_CMD_TIMEOUT=600 expect_ok node "$root/tests/ui/bench.mjs"
  printf '%s\n' "$OUT" | sed "s/^/$1/"
  [[ -z $ERR ]] || printf '%s\n' "$ERR" >&2
}

if [[ -z ${CUB_BENCH_BASELINE:-} ]]; then
  section "page loads in Chromium"
  bench_at "" "$E2E_HTTP"
  e2e_finish
fi
# The baseline's cubd, on the same database (its binaries first on PATH while it starts).
PATH="$CUB_BENCH_BASELINE/bin:$PATH" e2e_start_cubd baseline
for round in $(seq 1 "${CUB_BENCH_ROUNDS:-2}"); do
  section "page loads in Chromium, round $round: baseline ($CUB_BENCH_BASELINE), then this build"
  echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
  bench_at "[baseline] " "${CUBD_HTTP[baseline]}"
  echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
  bench_at "[this]     " "$E2E_HTTP"
done
e2e_finish
