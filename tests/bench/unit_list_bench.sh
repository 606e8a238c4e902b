#!/usr/bin/env bash
# Listing Units across a fleet: times `cub unit list --space '*' --where EXPR --limit 100` (the
# first page) against a real cubd on a throwaway PostgreSQL holding N variants x 10 Units made
# with bulk `cub variant create`, as the server admin and as a viewer of every Space. Prints
# the median of CUB_BENCH_RUNS whole `cub` processes per figure; asserts nothing.
#
# Usage: bash tests/bench/unit_list_bench.sh [BUILD_DIR]   (default: build)
#   CUB_BENCH_SPACES   variants (default 10000)   CUB_BENCH_RUNS  runs per figure (5)
#   CUB_BENCH_PG_PORT  PostgreSQL port (55670)    CUB_BENCH_PORT  cubd gRPC port (7670)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
bin=$(cd "${1:-$root/build}" && pwd)/bin
spaces=${CUB_BENCH_SPACES:-10000}
runs=${CUB_BENCH_RUNS:-5}
port=${CUB_BENCH_PG_PORT:-55670}
grpc_port=${CUB_BENCH_PORT:-7670}
work=$(mktemp -d /tmp/cub-unit-list-bench.XXXXXX)
chmod 755 "$work"

source "$root/tests/bench/lib.sh"
trap bench_cleanup EXIT

cub() { "$bin/cub" --timeout 600 "$@"; }

echo "unit_list_bench: $spaces variants x 10 Units; median of $runs runs"
bench_db_start
admin=$(bench_user bench --admin)
viewer=$(bench_user bob)
export CUB_TOKEN="$admin" CUB_CONFIG="$work/config.json"
bench_cubd_start

cub --quiet space create bench-base
cub --quiet space grant bench-base viewer --user bob  # variants inherit it
for i in $(seq 10); do
  printf 'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: svc%s\nspec:\n  replicas: 2\n' \
    "$i" | cub --quiet unit create --space bench-base "svc$i" -
done
bench_prod_variants "$spaces"
psql -q "$url" -c ANALYZE
echo "Units: $(psql -At "$url" -c 'SELECT count(*) FROM units')"

# Median milliseconds of `runs` whole processes of the arguments.
median_ms() {
  local t0 i
  for ((i = 0; i < runs; i++)); do
    t0=$(date +%s%N)
    "$@" >/dev/null 2>&1
    echo $(( ($(date +%s%N) - t0) / 1000 ))
  done | sort -n | awk '{ a[NR] = $1 } END { printf "%7.1f ms", a[int((NR + 1) / 2)] / 1000 }'
}
printf '%-48s %12s %12s\n' "first page (--limit 100) where" admin viewer
for where in "Slug = 'svc3'" "HeadRevisionNum > 0" "Labels.none = 'x'"; do
  printf '%-48s %12s %12s\n' "$where" \
    "$(median_ms cub --token "$admin" unit list --space '*' --where "$where" --limit 100)" \
    "$(median_ms cub --token "$viewer" unit list --space '*' --where "$where" --limit 100)"
done
