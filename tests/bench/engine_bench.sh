#!/usr/bin/env bash
# Promotion engine benchmark (issue 12): real cub and cubd (engine on, 2 workers) on a throwaway
# PostgreSQL with pg_stat_statements loaded. Prints figures; asserts nothing (beyond aborting
# when the setup itself fails).
#
# 1. Latency, gate opened -> next Stage promoted. Workflow bench-workflows/flow: dev (Space
#    bench-dev, Automatic, AutoRelease, a Directory release Target) then prod (N Spaces
#    bench-prod-I, Automatic, Prerequisites [Released, Healthy]); base bench-base with 10
#    Deployments. Per run: a new image tag in every Unit of the base, a new ChangeOrder (the
#    engine promotes it into dev and publishes it there by itself), then, once the engine is
#    idle, the reporter's `cub release set-status --health Healthy --sync Synced` for that dev
#    Release; a DO loop in PostgreSQL polls every 10 ms for the 'Promoted' event of stage prod.
#    Times (PostgreSQL is local, so clock_timestamp() and `date` read one clock):
#      t0    just before set-status is started          t1   when set-status has returned
#      at    events.at of the Promoted event (now() of the promoting transaction: its start)
#      seen  clock_timestamp() of the first poll that sees the event (its commit, <= 10 ms late)
#    latency = seen - t0 (what the goal, under 1 s, is about); also at - t0, at - t1 (the
#    engine's reaction after the write-back committed) and seen - at (the promotion itself).
# 2. Idle cost: M ChangeOrders in one base Space (idle-base, 1 Unit, 1 variant in Stage Gate),
#    workflow bench-workflows/idle with one Automatic Stage `gate` whose prerequisite is an
#    attestation nobody gives (`nobody`, over the base). Each phase reports cubd's CPU time
#    (utime+stime from /proc/PID/stat), the statements cubd sent (pg_stat_statements, calls by
#    the role cub_serve, which only cubd uses; the bench's own probes run as cub_test) and
#    transactions committed in the database (pg_stat_database.xact_commit, probes included):
#      baseline   idle for CUB_BENCH_IDLE s before any of the M ChangeOrders exists
#      idle A     idle with the M open ChangeOrders (gate not time-based: no work row is left)
#      wake-all A `cub changeworkflow update` (a description) wakes all M: until engine_work is
#                 empty again
#      wake-all B an update adding a CEL prerequisite on `now` that is false (`frozen`), which
#                 makes the workflow time-gated: until no work row is due
#      idle B     idle with the M ChangeOrders rechecked every sweep (30 s) as time-gated ones
# 3. Latency under load: more runs of 1. right after idle B, while those rechecks go on.
#
# Usage: bash tests/bench/engine_bench.sh [BUILD_DIR]   (default: build)
#   CUB_BENCH_SPACES   prod Spaces (100)          CUB_BENCH_RUNS     latency runs (20)
#   CUB_BENCH_ORDERS   idle ChangeOrders (1000)   CUB_BENCH_IDLE     idle seconds per phase (60)
#   CUB_BENCH_WORKERS  parallel cub clients (2)   CUB_BENCH_PG_PORT  PostgreSQL port (55630)
#   CUB_BENCH_PORT     cubd gRPC port (7630)      CUB_BENCH_HTTP_PORT cubd REST port (7631)
#   CUB_BENCH_LOADED_RUNS latency runs during idle B's rechecks (5)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
bin=${1:-$root/build}/bin
spaces=${CUB_BENCH_SPACES:-100}
runs=${CUB_BENCH_RUNS:-20}
orders=${CUB_BENCH_ORDERS:-1000}
loaded_runs=${CUB_BENCH_LOADED_RUNS:-5}
idle=${CUB_BENCH_IDLE:-60}
workers=${CUB_BENCH_WORKERS:-2}
port=${CUB_BENCH_PG_PORT:-55630}
grpc_port=${CUB_BENCH_PORT:-7630}
http_port=${CUB_BENCH_HTTP_PORT:-7631}
timeout=600
units=10
work=$(mktemp -d /tmp/cub-engine-bench.XXXXXX)
chmod 755 "$work"

cleanup() {
  [[ -n "${cubd_pid:-}" ]] && kill "$cubd_pid" 2>/dev/null && wait "$cubd_pid" 2>/dev/null
  bash "$root/tests/harness/pg.sh" stop "$work/pg" "$port" >/dev/null 2>&1 || true
  [[ -n "${CUB_BENCH_KEEP:-}" ]] || rm -rf "$work"
}
trap cleanup EXIT

cub() { "$bin/cub" --timeout "$timeout" "$@"; }
now_ns() { date +%s%N; }
since() { awk -v a="$1" -v b="$(now_ns)" 'BEGIN { printf "%.1f", (b - a) / 1e9 }'; }

summary=()
note() { summary+=("$(printf '%-58s %s' "$1" "$2")"); printf '%-58s %s\n' "$1" "$2"; }
problems=()
problem() { problems+=("$1"); echo "PROBLEM: $1" >&2; }

deployment() {
  local n=$1
  cat <<EOF
apiVersion: apps/v1
kind: Deployment
metadata:
  name: svc$n
  labels:
    app.kubernetes.io/name: svc$n
spec:
  replicas: 2
  selector:
    matchLabels:
      app.kubernetes.io/name: svc$n
  template:
    metadata:
      labels:
        app.kubernetes.io/name: svc$n
    spec:
      containers:
        - name: svc$n
          image: ghcr.io/acme/svc$n:v1
          ports:
            - name: http
              containerPort: 8080
          resources:
            requests:
              cpu: 100m
              memory: 128Mi
EOF
}

# ---- PostgreSQL with pg_stat_statements, cubd -------------------------------------------------
echo "engine_bench: prod $spaces Spaces x $units Units, $runs runs; $orders idle ChangeOrders, ${idle} s idle phases"
t_all=$(now_ns)
bash "$root/tests/harness/pg.sh" start "$work/pg" "$port" >/dev/null
admin_url="postgresql://cub_test@127.0.0.1:$port/postgres"
psql -X -q "$admin_url" -c "ALTER SYSTEM SET shared_preload_libraries = 'pg_stat_statements'"
pg_root=$(cat "$work/pg/location" 2>/dev/null || echo "$work/pg")
if (($(id -u) == 0)); then
  (cd / && runuser -u postgres -- /usr/lib/postgresql/15/bin/pg_ctl restart -D "$pg_root/data" -w -m fast -l "$pg_root/postgres.log" >/dev/null)
else
  /usr/lib/postgresql/15/bin/pg_ctl restart -D "$pg_root/data" -w -m fast -l "$pg_root/postgres.log" >/dev/null
fi
psql -X -q "$admin_url" -c "CREATE DATABASE bench"
url="postgresql://cub_test@127.0.0.1:$port/bench"
db() { psql -X -q -A -t -v ON_ERROR_STOP=1 "$url" "$@"; }
db -c "CREATE EXTENSION pg_stat_statements"
"$bin/cubd" migrate --database-url "$url" >/dev/null
token=$("$bin/cubd" user create bench --admin --database-url "$url")
reporter=$("$bin/cubd" user create argocd --service-account --database-url "$url")
"$bin/cubd" serve --database-url "postgresql://cub_serve@127.0.0.1:$port/bench" \
  --listen "127.0.0.1:$grpc_port" --http-listen "127.0.0.1:$http_port" \
  --signing-key "$work/signing-key.pem" --work-dir "$work/cubd-work" 2>"$work/cubd.log" &
cubd_pid=$!
export CUB_SERVER="127.0.0.1:$grpc_port" CUB_TOKEN="$token" CUB_CONFIG="$work/config.json"
for _ in $(seq 100); do "$bin/cub" whoami >/dev/null 2>&1 && break; sleep 0.1; done
cub whoami >/dev/null
serve_oid=$(db -c "SELECT oid FROM pg_roles WHERE rolname = 'cub_serve'")
clk_tck=$(getconf CLK_TCK)

# cubd's CPU time so far, in ms (user + system, all threads).
cpu_ms() { awk -v t="$clk_tck" '{ print int(($14 + $15) * 1000 / t) }' "/proc/$cubd_pid/stat"; }
# The engine has nothing due (backoffs and rechecks may wait).
engine_quiet() { [[ $(db -c "SELECT NOT EXISTS (SELECT 1 FROM engine_work WHERE due_at <= now())") == t ]]; }
wait_sql() {  # wait_sql WHAT SQL [SECONDS]: until SQL prints t
  local deadline=$((SECONDS + ${3:-120}))
  while ((SECONDS < deadline)); do
    [[ $(db -c "$2") == t ]] && return 0
    sleep 0.05
  done
  problem "timed out waiting for: $1"
  return 1
}

# Phase counters: start_phase resets pg_stat_statements and records CPU and xact_commit;
# end_phase LABEL SECONDS prints the deltas, per minute, and the top statements.
start_phase() {
  db -c "SELECT pg_stat_statements_reset()" >/dev/null
  p_xact=$(db -c "SELECT xact_commit FROM pg_stat_database WHERE datname = 'bench'")
  p_cpu=$(cpu_ms)
  p_t=$(now_ns)
}
end_phase() {
  local label=$1 cpu xact secs calls exec_ms
  cpu=$(( $(cpu_ms) - p_cpu ))
  secs=$(awk -v a="$p_t" -v b="$(now_ns)" 'BEGIN { printf "%.2f", (b - a) / 1e9 }')
  # pg_stat_database counters are sent by backends at the end of a transaction, with a delay.
  sleep 0.6
  xact=$(( $(db -c "SELECT xact_commit FROM pg_stat_database WHERE datname = 'bench'") - p_xact ))
  read -r calls exec_ms <<<"$(db -F ' ' -c "SELECT coalesce(sum(calls), 0), round(coalesce(sum(total_exec_time), 0)::numeric, 1)
    FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid
    WHERE d.datname = 'bench' AND s.userid = $serve_oid")"
  note "$label: wall" "$secs s"
  note "$label: cubd CPU (utime+stime)" "$(awk -v c="$cpu" -v s="$secs" 'BEGIN { printf "%d ms (%.1f ms per minute)", c, c * 60 / s }')"
  note "$label: statements from cubd (pg_stat_statements)" "$(awk -v c="$calls" -v s="$secs" -v e="$exec_ms" 'BEGIN { printf "%d (%.1f per minute), %.1f ms executing", c, c * 60 / s, e }')"
  note "$label: transactions committed (xact_commit)" "$xact (the bench's own probes included)"
  db -F ' | ' -c "SELECT s.calls, round(s.total_exec_time::numeric, 1) || ' ms', left(regexp_replace(s.query, '\s+', ' ', 'g'), 110)
    FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid
    WHERE d.datname = 'bench' AND s.userid = $serve_oid ORDER BY s.calls DESC LIMIT 8" |
    sed 's/^/    /' | tee -a "$work/statements.txt"
}

# ---- 1. latency ------------------------------------------------------------------------------
t0=$(now_ns)
cub --quiet space create bench-workflows
cub --quiet target create --space bench-workflows local --provider Directory \
  --param "path=$work/deploy/{space}"
cat >"$work/flow.yaml" <<'YAML'
Stages:
  - Name: dev
    WhereSpace: "Labels.Stage = 'Development'"
    Mode: Automatic
    AutoRelease: true
  - Name: prod
    WhereSpace: "Labels.Stage = 'Production'"
    Mode: Automatic
    Prerequisites: [Released, Healthy]
YAML
cub --quiet changeworkflow create --space bench-workflows flow --filename "$work/flow.yaml"
cub --quiet space create bench-base
for i in $(seq "$units"); do deployment "$i" | cub --quiet unit create --space bench-base "svc$i" -; done
cub --quiet variant create bench-dev bench-base --stage Development
cub --quiet space update bench-dev --release-target bench-workflows/local
cub --quiet space grant bench-dev reporter --user argocd
if ! seq "$spaces" | xargs -P "$workers" -I{} \
    "$bin/cub" --timeout "$timeout" --quiet variant create "bench-prod-{}" bench-base --stage Production \
    2>"$work/variants.err"; then
  echo "cub variant create failed:" >&2; head -20 "$work/variants.err" >&2; exit 1
fi
note "setup: workflow, base, dev, $spaces prod variants" "$(since "$t0") s"

# latency_run N FILE: one run (ChangeOrder bench-base/rN), its figures appended to FILE as
# "N latency at-t0 at-t1 seen-at set-status" in ms.
latency_run() {
  local run=$1 out=$2 tag=v$(($1 + 1)) co=bench-base/r$1 i rel t_0 t_1 seen at landed
  for i in $(seq "$units"); do
    cub --quiet function set --space bench-base --unit "svc$i" --change-desc "$tag" \
      -- set-image-reference-by-uri "ghcr.io/acme/svc$i" ":$tag"
  done
  cub --quiet changeorder create --space bench-base "r$run" --description "$tag" \
    --change-workflow bench-workflows/flow
  wait_sql "$co published in dev" "SELECT count(*) = 1 FROM releases WHERE change_order = '$co'" 600 || return 1
  # Unloaded runs start with nothing due; loaded ones (idle B) with whatever the rechecks left.
  if [[ $out == */latency.txt ]]; then
    wait_sql "engine idle before run $run" "SELECT NOT EXISTS (SELECT 1 FROM engine_work WHERE due_at <= now())" || return 1
  fi
  rel=$(db -c "SELECT r.release_num FROM releases r WHERE r.change_order = '$co'")
  [[ $(db -c "SELECT count(*) FROM events WHERE kind = 'Promoted' AND change_order = '$co' AND stage = 'prod'") == 0 ]] ||
    problem "$co was promoted into prod before its dev Release was reported Healthy"
  t_0=$(now_ns)
  CUB_TOKEN=$reporter cub --quiet release set-status --space bench-dev --release "$rel" \
    --sync Synced --health Healthy
  t_1=$(now_ns)
  seen=$(db -c "DO \$\$
    DECLARE deadline timestamptz := clock_timestamp() + interval '120 s';
    BEGIN
      LOOP
        EXIT WHEN EXISTS (SELECT 1 FROM events WHERE kind = 'Promoted' AND change_order = '$co' AND stage = 'prod')
          OR clock_timestamp() > deadline;
        PERFORM pg_sleep(0.01);
      END LOOP;
      RAISE NOTICE 'seen %', extract(epoch FROM clock_timestamp());
    END \$\$" 2>&1 | sed -n 's/.*NOTICE: *seen //p')
  at=$(db -c "SELECT extract(epoch FROM at) FROM events WHERE kind = 'Promoted' AND change_order = '$co' AND stage = 'prod'")
  if [[ -z $at ]]; then
    problem "run $run: $co not promoted into prod within 120 s of the Healthy write-back"
    return 0
  fi
  landed=$(db -c "SELECT count(DISTINCT r.unit_id) FROM revisions r WHERE r.change_order_id = (SELECT change_order_id FROM events WHERE kind = 'Promoted' AND change_order = '$co' AND stage = 'prod') AND r.unit_id IN (SELECT u.id FROM units u JOIN spaces s ON s.id = u.space_id WHERE s.labels->>'Stage' = 'Production')")
  ((landed == spaces * units)) || problem "run $run: $landed prod Units carry $co, expected $((spaces * units))"
  awk -v t0="$t_0" -v t1="$t_1" -v at="$at" -v seen="$seen" -v run="$run" 'BEGIN {
    t0 /= 1e9; t1 /= 1e9
    printf "%d %.1f %.1f %.1f %.1f %.1f\n", run, (seen - t0) * 1000, (at - t0) * 1000, (at - t1) * 1000, (seen - at) * 1000, (t1 - t0) * 1000 }' \
    >>"$out"
  echo "run $run: $(tail -1 "$out" | awk '{ printf "latency %s ms (at - t0 %s, at - t1 %s, seen - at %s, set-status %s)", $2, $3, $4, $5, $6 }')"
}
: >"$work/latency.txt"
for run in $(seq "$runs"); do latency_run "$run" "$work/latency.txt" || exit 1; done
stat_col() {  # stat_col COLUMN [FILE]: median and max over the runs
  sort -n -k"$1" "${2:-$work/latency.txt}" | awk -v c="$1" '{ a[NR] = $c } END { if (NR == 0) { print "no data"; exit }
    printf "median %7.1f ms   min %7.1f ms   max %7.1f ms   (%d runs)", a[int((NR + 1) / 2)], a[1], a[NR], NR }'
}
note "1. latency: Healthy write-back -> prod promotion committed" "$(stat_col 2)"
note "   Promoted event's at - t0 (promotion started)" "$(stat_col 3)"
note "   at - t1 (engine reaction after set-status returned)" "$(stat_col 4)"
note "   seen - at (the $spaces-Space promotion, <= 10 ms poll)" "$(stat_col 5)"
note "   cub release set-status itself (t1 - t0)" "$(stat_col 6)"

# ---- 2. idle cost ----------------------------------------------------------------------------
cub --quiet space create idle-base
deployment 1 | cub --quiet unit create --space idle-base svc1 -
cub --quiet variant create idle-gate idle-base --stage Gate
cat >"$work/idle.yaml" <<'YAML'
Stages:
  - Name: gate
    WhereSpace: "Labels.Stage = 'Gate'"
    Mode: Automatic
    Prerequisites: [nobody]
AttestationPrerequisites:
  - Name: nobody
    Count: 1
    Description: an approval nobody gives
YAML
cub --quiet changeworkflow create --space bench-workflows idle --filename "$work/idle.yaml"
cub --quiet function set --space idle-base --unit svc1 -- set-image-reference-by-uri ghcr.io/acme/svc1 :v2

wait_sql "engine idle before the baseline" "SELECT NOT EXISTS (SELECT 1 FROM engine_work WHERE due_at <= now())" || true
start_phase
sleep "$idle"
end_phase "2. baseline idle (no open ChangeOrder)"

t0=$(now_ns)
if ! seq "$orders" | xargs -P "$workers" -I{} \
    "$bin/cub" --timeout "$timeout" --quiet changeorder create --space idle-base "c{}" --description idle \
    --change-workflow bench-workflows/idle 2>"$work/orders.err"; then
  echo "cub changeorder create failed:" >&2; head -20 "$work/orders.err" >&2; exit 1
fi
note "setup: $orders ChangeOrders in idle-base ($workers clients)" "$(since "$t0") s"
open=$(db -c "SELECT count(*) FROM change_orders co JOIN spaces s ON s.id = co.space_id WHERE s.slug = 'idle-base' AND co.stage <> 'Completed' AND co.aborted_reason = ''")
note "   open ChangeOrders in idle-base" "$open"
wait_sql "engine_work empty after the creates" "SELECT NOT EXISTS (SELECT 1 FROM engine_work)" 600 || true
note "   engine_work empty after the creates" "$(since "$t0") s after the first create"

start_phase
sleep "$idle"
end_phase "2. idle A ($orders open, gate not time-based)"
note "   engine_work rows after idle A" "$(db -c "SELECT count(*) FROM engine_work")"

# wake_all LABEL CONDITION cub-args...: times the update, then until CONDITION holds.
wake_all() {
  local label=$1 cond=$2; shift 2
  start_phase
  local t=$(now_ns)
  cub --quiet changeworkflow update --space bench-workflows idle "$@"
  local woken
  woken=$(db -c "SELECT count(*) FROM engine_work")
  wait_sql "$label" "$cond" 600 || true
  note "$label: rows woken / until done" "$woken rows / $(since "$t") s"
  end_phase "$label"
}
wake_all "2. wake-all A (description edit)" "SELECT NOT EXISTS (SELECT 1 FROM engine_work)" \
  --attestation-prerequisite-description "nobody=an approval nobody gives, edited"
wake_all "2. wake-all B (adds a false gate on now, time-gated)" \
  "SELECT NOT EXISTS (SELECT 1 FROM engine_work WHERE due_at <= now())" \
  --custom-prerequisite "frozen=cel:now < timestamp('2000-01-01T00:00:00Z')" \
  --stage-prerequisites 'gate=nobody;frozen'
note "   engine_work rows after wake-all B" "$(db -c "SELECT count(*) FROM engine_work")"

start_phase
sleep "$idle"
end_phase "2. idle B ($orders open, time-gated: 30 s recheck)"

# The same write-back while the engine works through idle B's rechecks.
: >"$work/latency_loaded.txt"
for run in $(seq $((runs + 1)) $((runs + loaded_runs))); do latency_run "$run" "$work/latency_loaded.txt" || break; done
note "3. latency under idle B's rechecks" "$(stat_col 2 "$work/latency_loaded.txt")"
note "   at - t1 (engine reaction after set-status returned)" "$(stat_col 4 "$work/latency_loaded.txt")"
note "   rows due (overdue rechecks) after the loaded runs" "$(db -c "SELECT count(*) FROM engine_work WHERE due_at <= now()")"

note "cubd RSS (now / peak)" "$(awk '/^VmRSS/ { r = $2 } /^VmHWM/ { h = $2 } END { printf "%.1f MB / %.1f MB", r / 1024, h / 1024 }' "/proc/$cubd_pid/status")"
note "cubd log: engine lines / error lines" "$(grep -c 'engine:' "$work/cubd.log" || true) / $(grep -ciE 'error|fatal|panic' "$work/cubd.log" || true)"
grep -iE 'error|fatal|panic' "$work/cubd.log" | head -5 | sed 's/^/    /' || true

echo
echo "==== engine_bench summary: prod $spaces Spaces x $units Units, $orders idle ChangeOrders; total $(since "$t_all") s ===="
printf '%s\n' "${summary[@]}"
if ((${#problems[@]})); then
  echo "---- problems ----"
  printf '%s\n' "${problems[@]}"
fi
