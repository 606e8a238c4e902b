#!/usr/bin/env bash
# Foundation benchmark: times real `cub` commands against a real cubd on a throwaway
# PostgreSQL. Prints figures; asserts nothing.
#
#   1,000 Spaces x 10 Units (seeded in bulk through SQL: setup, not what is measured), then
#     cub unit list --space "*" --where "Labels.tier = 'frontend' AND HeadRevisionNum > 1"
#   a 100-Unit Space (created through the API), then
#     cub variant create
#
# Usage: bash tests/bench/bench.sh [BUILD_DIR]   (default: build)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
bin=${1:-$root/build}/bin
work=$(mktemp -d /tmp/cub-bench.XXXXXX)
chmod 755 "$work"
port=${CUB_BENCH_PG_PORT:-55610}
grpc_port=${CUB_BENCH_PORT:-7610}
runs=${CUB_BENCH_RUNS:-15}

cleanup() {
  [[ -n "${cubd_pid:-}" ]] && kill "$cubd_pid" 2>/dev/null && wait "$cubd_pid" 2>/dev/null
  bash "$root/tests/harness/pg.sh" stop "$work/pg" "$port" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT

bash "$root/tests/harness/pg.sh" start "$work/pg" "$port" >/dev/null
admin_url="postgresql://cub_test@127.0.0.1:$port/postgres"
psql -q "$admin_url" -c "CREATE DATABASE bench" >/dev/null
url="postgresql://cub_test@127.0.0.1:$port/bench"
"$bin/cubd" migrate --database-url "$url" >/dev/null
token=$("$bin/cubd" user create bench --admin --database-url "$url")
"$bin/cubd" serve --database-url "postgresql://cub_serve@127.0.0.1:$port/bench" --listen "127.0.0.1:$grpc_port" 2>"$work/cubd.log" &
cubd_pid=$!
export CUB_SERVER="127.0.0.1:$grpc_port" CUB_TOKEN="$token" CUB_CONFIG="$work/config.json"
for _ in $(seq 50); do "$bin/cub" whoami >/dev/null 2>&1 && break; sleep 0.1; done

# Median and minimum wall time of a command, in milliseconds.
time_cmd() {
  local label=$1; shift
  local times=()
  for _ in $(seq "$runs"); do
    local t0 t1
    t0=$(date +%s%N)
    "$@" >/dev/null
    t1=$(date +%s%N)
    times+=($(( (t1 - t0) / 1000 )))
  done
  printf '%s\n' "${times[@]}" | sort -n | awk -v label="$label" -v n="$runs" '
    { a[NR] = $1 } END { printf "%-58s median %7.1f ms   min %7.1f ms   (%d runs)\n",
      label, a[int((NR + 1) / 2)] / 1000, a[1] / 1000, n }'
}

echo "seeding 1,000 spaces x 10 units ..."
psql -q "$url" <<'SQL'
INSERT INTO spaces (slug, labels)
  SELECT 'space-' || i, jsonb_build_object('Stage', CASE WHEN i % 3 = 0 THEN 'Production' ELSE 'Development' END)
  FROM generate_series(1, 1000) i;
INSERT INTO units (space_id, slug, labels, head_revision_num)
  SELECT s.id, 'unit-' || j,
         jsonb_build_object('tier', CASE WHEN j % 2 = 0 THEN 'frontend' ELSE 'backend' END),
         1 + (j % 3)
  FROM spaces s, generate_series(1, 10) j;
INSERT INTO revisions (unit_id, space_id, revision_num, data, data_hash, description)
  SELECT u.id, u.space_id, n, 'kind: ConfigMap' || chr(10) || 'data:' || chr(10) || '  n: "' || n || '"' || chr(10),
         'sha256:' || md5(u.id::text || n), 'seed'
  FROM units u, LATERAL generate_series(1, u.head_revision_num) n;
ANALYZE;
SQL
matches=$("$bin/cub" unit list --space "*" --where "Labels.tier = 'frontend' AND HeadRevisionNum > 1" -o json | grep -c '"UnitID"')
echo "the list matches $matches units of 10,000"
time_cmd "cub unit list --space '*' --where (tier, head > 1)" \
  "$bin/cub" unit list --space "*" --where "Labels.tier = 'frontend' AND HeadRevisionNum > 1"
time_cmd "cub whoami (round-trip floor: process start + one RPC)" "$bin/cub" whoami

echo "creating a 100-unit space through the API ..."
"$bin/cub" space create bench-base >/dev/null
for i in $(seq 100); do
  printf 'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: app-%d\nspec:\n  replicas: 2\n  template:\n    spec:\n      containers:\n        - name: app\n          image: ghcr.io/acme/app:v1\n' "$i" |
    "$bin/cub" unit create --space bench-base "app-$i" - >/dev/null
done
n=0
variant() { n=$((n + 1)); "$bin/cub" variant create "bench-variant-$n" bench-base --stage Development; }
time_cmd "cub variant create (100 units)" variant
