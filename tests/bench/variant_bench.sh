#!/usr/bin/env bash
# Variant creation benchmark: times real `cub variant create` processes against a real cubd on a
# throwaway PostgreSQL. Prints figures; asserts nothing (beyond aborting when a create fails).
#
#   setup: Space bench-base with 10 Kubernetes Deployments.
#   measured (whole cub process, start to exit):
#     a. cub variant create bench-one-I bench-base, one variant a call, CUB_BENCH_SINGLE times
#        (median and minimum)
#     a2. 1,000 variants one a call, by 4 parallel cub processes (how the benches made their
#        fleets before bulk create)
#     b. cub variant create bench-base --names-file F: 1,000 variants in one call
#     c. the same for CUB_BENCH_SPACES (10,000) more variants in one call, then cubd's peak RSS
#        (VmHWM) and the rows written
#   CUB_BENCH_EXPLAIN=N also prints EXPLAIN ANALYZE of the writes of a further N variants (the
#   statements of lib/store/variants.cc, in a transaction rolled back), with the fleet of b. and
#   c. in place.
#
# Usage: bash tests/bench/variant_bench.sh [BUILD_DIR]   (default: build)
#   CUB_BENCH_SPACES   variants of the big call (10000)  CUB_BENCH_SINGLE  single creates (20)
#   CUB_BENCH_PG_PORT  PostgreSQL port (55640)           CUB_BENCH_PORT    cubd gRPC port (7640)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
bin=$(cd "${1:-$root/build}" && pwd)/bin
spaces=${CUB_BENCH_SPACES:-10000}
single=${CUB_BENCH_SINGLE:-20}
port=${CUB_BENCH_PG_PORT:-55640}
grpc_port=${CUB_BENCH_PORT:-7640}
units=10
work=$(mktemp -d /tmp/cub-variant-bench.XXXXXX)
chmod 755 "$work"

source "$root/tests/bench/lib.sh"
trap bench_cleanup EXIT

cub() { "$bin/cub" --timeout 1800 "$@"; }
now_ms() { echo $(( $(date +%s%N) / 1000000 )); }
sql() { psql -X -q -A -t -v ON_ERROR_STOP=1 "$url" "$@"; }
note() { printf '%-58s %s\n' "$1" "$2"; }

# One timed bulk create of the names PREFIX-FIRST..PREFIX-LAST.
bulk() {
  local label=$1 prefix=$2 first=$3 last=$4 t0 ms
  seq "$first" "$last" | sed "s/^/$prefix-/" >"$work/names"
  t0=$(now_ms)
  if ! cub variant create bench-base --names-file "$work/names" --stage Production \
      >"$work/bulk.out" 2>"$work/bulk.err"; then
    echo "$label failed: $(head -c 400 "$work/bulk.err")" >&2
    exit 1
  fi
  ms=$(( $(now_ms) - t0 ))
  note "$label" "$(awk -v m="$ms" 'BEGIN { printf "%8.1f s", m / 1000 }')   ($(tail -1 "$work/bulk.out"))"
}

deployment() {
  cat <<YAML
apiVersion: apps/v1
kind: Deployment
metadata:
  name: svc$1
  labels:
    app.kubernetes.io/name: svc$1
spec:
  replicas: 2
  selector:
    matchLabels:
      app.kubernetes.io/name: svc$1
  template:
    metadata:
      labels:
        app.kubernetes.io/name: svc$1
    spec:
      containers:
        - name: svc$1
          image: ghcr.io/acme/svc$1:v1
          resources:
            requests:
              cpu: 100m
              memory: 128Mi
YAML
}

echo "variant_bench: $units units a variant; $single single creates, 1000 and $spaces in bulk"
bench_db_start
token=$(bench_user bench --admin)
export CUB_TOKEN="$token" CUB_CONFIG="$work/config.json"
bench_cubd_start

cub --quiet space create bench-base
for i in $(seq "$units"); do deployment "$i" | cub --quiet unit create --space bench-base "svc$i" -; done
note "cubd RSS after setup (VmHWM)" "$(bench_rss)"

times=()
for i in $(seq "$single"); do
  t0=$(date +%s%N)
  cub --quiet variant create "bench-one-$i" bench-base --stage Production
  times+=($(( ($(date +%s%N) - t0) / 1000 )))
done
note "a. one variant a call ($single calls)" "$(printf '%s\n' "${times[@]}" | sort -n | awk '
  { a[NR] = $1 } END { printf "median %6.1f ms   min %6.1f ms", a[int((NR + 1) / 2)] / 1000, a[1] / 1000 }')"

t0=$(now_ms)
if ! seq 1000 | xargs -P 4 -I{} "$bin/cub" --quiet variant create "bench-par-{}" bench-base \
    --stage Production 2>"$work/par.err"; then
  echo "parallel creates failed: $(head -c 400 "$work/par.err")" >&2
  exit 1
fi
note "a2. 1000 variants one a call, 4 parallel cub processes" \
  "$(awk -v m="$(( $(now_ms) - t0 ))" 'BEGIN { printf "%8.1f s", m / 1000 }')"
bulk "b. 1000 variants in one call" bench-k 1 1000
note "   cubd RSS (VmHWM)" "$(bench_rss)"
bulk "c. $spaces variants in one call" bench-big 1 "$spaces"
note "   cubd RSS (VmHWM)" "$(bench_rss)"
note "   rows: spaces / units / revisions / links" "$(sql -c "SELECT (SELECT count(*) FROM spaces)
  || ' / ' || (SELECT count(*) FROM units) || ' / ' || (SELECT count(*) FROM revisions)
  || ' / ' || (SELECT count(*) FROM links)")"

if [[ -n ${CUB_BENCH_EXPLAIN:-} ]]; then
  # The statements of lib/store/variants.cc for N new Spaces, rolled back.
  sql -v n="$CUB_BENCH_EXPLAIN" <<'SQL'
BEGIN;
CREATE TEMP TABLE up AS SELECT id FROM spaces WHERE slug = 'bench-base';
\timing on
EXPLAIN (ANALYZE, COSTS OFF) INSERT INTO spaces (slug, display_name, labels, annotations,
  component_id, upstream_space_id)
  SELECT 'explain-' || g, '', '{"Stage": "Production"}', '{}', NULL, (SELECT id FROM up)
  FROM generate_series(1, :n) g;
CREATE TEMP TABLE new_ids AS
  SELECT array_agg(id) AS ids FROM spaces WHERE slug LIKE 'explain-%';
EXPLAIN (ANALYZE, COSTS OFF) INSERT INTO space_permissions (space_id, role, user_id, group_name)
  SELECT v.id, p.role, p.user_id, p.group_name FROM unnest((SELECT ids FROM new_ids)) AS v(id)
  CROSS JOIN space_permissions p WHERE p.space_id = (SELECT id FROM up) ON CONFLICT DO NOTHING;
EXPLAIN (ANALYZE, COSTS OFF) INSERT INTO units (space_id, slug, toolchain_type, labels,
  annotations, head_revision_num, upstream_unit_id)
  SELECT v.id, u.slug, u.toolchain_type, u.labels, u.annotations, 1, u.id
  FROM unnest((SELECT ids FROM new_ids)) AS v(id) CROSS JOIN units u
  WHERE u.space_id = (SELECT id FROM up) AND u.head_revision_num > 0;
EXPLAIN (ANALYZE, COSTS OFF) INSERT INTO revisions (unit_id, space_id, revision_num, data,
  data_hash, author_id, description, upstream_unit_id, upstream_revision_num)
  SELECT nu.id, nu.space_id, 1, r.data, r.data_hash, NULL, 'x', uu.id, uu.head_revision_num
  FROM unnest((SELECT ids FROM new_ids)) AS v(id) JOIN units nu ON nu.space_id = v.id
  JOIN units uu ON uu.id = nu.upstream_unit_id
  JOIN revisions r ON r.unit_id = uu.id AND r.revision_num = uu.head_revision_num;
EXPLAIN (ANALYZE, COSTS OFF) INSERT INTO links (space_id, slug, from_unit_id, to_unit_id,
  update_type, upstream_revision_num)
  SELECT nu.space_id, nu.slug || '-upstream', nu.id, uu.id, 'UpgradeUnit', uu.head_revision_num
  FROM unnest((SELECT ids FROM new_ids)) AS v(id) JOIN units nu ON nu.space_id = v.id
  JOIN units uu ON uu.id = nu.upstream_unit_id;
ROLLBACK;
SQL
fi
