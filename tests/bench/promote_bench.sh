#!/usr/bin/env bash
# ChangeOrder promotion benchmark: times real `cub` commands against a real cubd on a throwaway
# PostgreSQL while a ChangeOrder is promoted across a fleet of variants. Prints figures;
# asserts nothing (beyond aborting when the setup itself fails).
#
#   setup (timed, not measured): Space bench-workflows with the two-stage ChangeWorkflow `main`
#     (Development, then Production gated on Healthy, which cannot hold: no Space has a release
#     Target yet, so Production is reached only with --force); Space bench-base with 10
#     Kubernetes Deployments; the variant bench-dev (Stage Development) and N variants
#     bench-prod-I (Stage Production), created through `cub variant create --names-file`,
#     CUB_BENCH_CHUNK of them a call; every 10th prod variant gets an edit of its own
#     (spec.replicas of one Unit), so the promotion takes both the fast path (unedited Unit)
#     and the slow one (3-way merge).
#   the change: a new image tag v2 in every Unit of bench-base, then
#     cub changeorder create --space bench-base bench-v2 --change-workflow bench-workflows/main
#     cub variant promote --change-order bench-base/bench-v2            (Development, 1 Space)
#   then VACUUM (ANALYZE), so that autovacuum does not run during the measurements.
#   measured:
#     cub changeorder get -o json                                        (N+2 Spaces in scope)
#     cub variant promote ... --target-stage Production --dry-run        (refused by the gate)
#     cub variant promote ... --target-stage Production --dry-run --force   (planning alone)
#     cub variant promote ... --target-stage Production --force          (the whole stage, once)
#     cubd's peak RSS (VmHWM), revisions carrying the ChangeOrder, and a rerun of the promote.
#   the floor (same run, just before the promote): the same rows (a revision and a head for each
#     prod Unit, three tag marks each, and the cursor of each prod Unit's Link) written by four
#     set-based SQL statements, rolled back; the promote's time is reported as a multiple of it,
#     and of the first three alone (the floor before the Link cursors were counted); then
#     VACUUM, so that the promote, like the floor, starts on a database without dead rows.
#   releases (last): a Git Target on a local repository, set as the release Target of every prod
#     Space (parallel workers), then
#     cub release publish bench-prod-I --revision ChangeOrder:bench-base/bench-v2
#     for every prod Space, first one after the other (publishes into one repository take
#     turns), then all again with CUB_BENCH_WORKERS parallel clients; each publish is timed, and
#     the repository's commits and files, the Releases recorded, the ChangeOrder's State and
#     cubd's RSS are reported.
#
# Usage: bash tests/bench/promote_bench.sh [BUILD_DIR]   (default: build)
#   CUB_BENCH_SPACES   prod variants (default 1000)     CUB_BENCH_RUNS     runs per median (15)
#   CUB_BENCH_WORKERS  parallel clients (4)             CUB_BENCH_TIMEOUT  cub --timeout (1800)
#   CUB_BENCH_CHUNK    variants per create call (1000)
#   CUB_BENCH_RELEASES 0 skips the release phase        CUB_BENCH_PERF     perf.data of the promote
#   CUB_BENCH_STATEMENTS  copy PostgreSQL's log here, with every statement of the promote
#   CUB_BENCH_HOLD     seconds to keep PostgreSQL and cubd up at the end, for inspection
#   CUB_BENCH_PG_PORT  PostgreSQL port (55620)          CUB_BENCH_PORT     cubd gRPC port (7620)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
bin=${1:-$root/build}/bin
spaces=${CUB_BENCH_SPACES:-1000}
runs=${CUB_BENCH_RUNS:-15}
workers=${CUB_BENCH_WORKERS:-4}
timeout=${CUB_BENCH_TIMEOUT:-1800}
port=${CUB_BENCH_PG_PORT:-55620}
grpc_port=${CUB_BENCH_PORT:-7620}
units=10
work=$(mktemp -d /tmp/cub-promote-bench.XXXXXX)
chmod 755 "$work"

cleanup() {
  [[ -n "${cubd_pid:-}" ]] && kill "$cubd_pid" 2>/dev/null && wait "$cubd_pid" 2>/dev/null
  [[ -n ${CUB_BENCH_STATEMENTS:-} && -f $work/pg/postgres.log ]] &&
    cp "$work/pg/postgres.log" "$CUB_BENCH_STATEMENTS"
  bash "$root/tests/harness/pg.sh" stop "$work/pg" "$port" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT
source "$root/tests/bench/lib.sh"  # bench_prod_variants

cub() { "$bin/cub" --timeout "$timeout" "$@"; }
now_ms() { echo $(( $(date +%s%N) / 1000000 )); }
# Seconds since $1 (a now_ms value), with one decimal.
since() { awk -v a="$1" -v b="$(now_ms)" 'BEGIN { printf "%.1f", (b - a) / 1000 }'; }

# A value from a JSON file: jq's JQ-EXPR when jq is installed, else python3's PY-EXPR with the
# document bound to d.
json() {
  local file=$1 jq_expr=$2 py_expr=$3
  if command -v jq >/dev/null 2>&1; then
    jq -r "$jq_expr" "$file"
  else
    python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); v = eval(sys.argv[2]); print(str(v).lower() if isinstance(v, bool) else v)' "$file" "$py_expr"
  fi
}
# The totals of a `variant promote -o json` response: landed / already / failed / revisions.
totals() {
  json "$1" '"\(.Landed) / \(.Already) / \(.Failed) / \(.RevisionsWritten)"' \
    '"%s / %s / %s / %s" % (d["Landed"], d["Already"], d["Failed"], d["RevisionsWritten"])'
}
# Units per Action in a `variant promote -o json` response.
actions() {
  json "$1" '[.Spaces[].Units[].Action] | group_by(.) | map("\(.[0])=\(length)") | join(" ")' \
    '" ".join("%s=%d" % (a, n) for a, n in sorted(__import__("collections").Counter(u["Action"] for s in d["Spaces"] for u in s["Units"]).items()))'
}

summary=()
note() { summary+=("$(printf '%-62s %s' "$1" "$2")"); printf '%-62s %s\n' "$1" "$2"; }
problems=()
problem() { problems+=("$1"); echo "PROBLEM: $1" >&2; }

# Median and minimum wall time of a command over $runs runs, in milliseconds. EXPECTED is the
# exit status every run should have (1 for a refusal); any other status is reported.
time_cmd() {
  local label=$1 expected=$2; shift 2
  local times=() rc bad=0
  for _ in $(seq "$runs"); do
    local t0 t1
    t0=$(date +%s%N)
    rc=0
    "$@" >/dev/null 2>"$work/time_cmd.err" || rc=$?
    t1=$(date +%s%N)
    times+=($(( (t1 - t0) / 1000 )))
    if ((rc != expected)); then
      bad=$((bad + 1))
      problem "$label: exit status $rc, expected $expected: $(head -c 400 "$work/time_cmd.err")"
    fi
  done
  local line
  line=$(printf '%s\n' "${times[@]}" | sort -n | awk -v n="$runs" '
    { a[NR] = $1 } END { printf "median %8.1f ms   min %8.1f ms   (%d runs)", a[int((NR + 1) / 2)] / 1000, a[1] / 1000, n }')
  ((bad == 0)) || line+="   [$bad runs had an unexpected exit status]"
  note "$label" "$line"
}

# One timed run of a command, its stdout in OUT and stderr in OUT.err; the figure goes to the
# summary and the exit status to last_rc.
time_once() {
  local label=$1 out=$2; shift 2
  local t0 rc=0
  t0=$(now_ms)
  "$@" >"$out" 2>"$out.err" || rc=$?
  local ms=$(( $(now_ms) - t0 ))
  note "$label" "$(awk -v m="$ms" 'BEGIN { printf "%8.1f ms", m }')   (1 run, exit $rc)"
  last_rc=$rc
  last_ms=$ms
}

# Statement logging (CUB_BENCH_STATEMENTS) on or off: 0 (every statement) or -1. A reload
# reaches the sessions cubd holds open.
# With it, auto_explain logs the plan (EXPLAIN ANALYZE) of every statement over 100 ms.
statement_log() {
  [[ -n ${CUB_BENCH_STATEMENTS:-} ]] || return 0
  local explain=-1
  (($1 >= 0)) && explain=100
  psql -X -q "$url" -c "ALTER SYSTEM SET log_min_duration_statement = $1" \
    -c "ALTER SYSTEM SET auto_explain.log_min_duration = $explain" \
    -c "ALTER SYSTEM SET auto_explain.log_analyze = on" \
    -c "ALTER SYSTEM SET auto_explain.log_buffers = on" \
    -c "SELECT pg_reload_conf()" >/dev/null
  sleep 0.2
}

rss() { awk '/^VmHWM/ { printf "%.1f MB", $2 / 1024 }' "/proc/$cubd_pid/status"; }

deployment() {
  local n=$1
  cat <<EOF
apiVersion: apps/v1
kind: Deployment
metadata:
  name: svc$n
  labels:
    app.kubernetes.io/name: svc$n
    app.kubernetes.io/part-of: acme
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
          env:
            - name: LOG_LEVEL
              value: info
            - name: SERVICE_NAME
              value: svc$n
          resources:
            requests:
              cpu: 100m
              memory: 128Mi
            limits:
              cpu: 500m
              memory: 256Mi
EOF
}

echo "promote_bench: $spaces prod variants x $units units, $workers workers, $runs runs per median"
t_all=$(now_ms)
bash "$root/tests/harness/pg.sh" start "$work/pg" "$port" >/dev/null
admin_url="postgresql://cub_test@127.0.0.1:$port/postgres"
psql -q "$admin_url" -c "CREATE DATABASE bench" >/dev/null
url="postgresql://cub_test@127.0.0.1:$port/bench"
"$bin/cubd" migrate --database-url "$url" >/dev/null
# cubd's sessions load auto_explain when they open (statement_log turns it on and off).
if [[ -n ${CUB_BENCH_STATEMENTS:-} ]]; then
  psql -X -q "$url" -c "ALTER SYSTEM SET session_preload_libraries = 'auto_explain'" \
    -c "SELECT pg_reload_conf()" >/dev/null
fi
token=$("$bin/cubd" user create bench --admin --database-url "$url")
# The signing key and the Git Targets' work directory stay inside $work, not in the data directory.
"$bin/cubd" serve --database-url "postgresql://cub_serve@127.0.0.1:$port/bench" --listen "127.0.0.1:$grpc_port" \
  --signing-key "$work/signing-key.pem" --work-dir "$work/cubd-work" 2>"$work/cubd.log" &
cubd_pid=$!
export CUB_SERVER="127.0.0.1:$grpc_port" CUB_TOKEN="$token" CUB_CONFIG="$work/config.json"
for _ in $(seq 50); do "$bin/cub" whoami >/dev/null 2>&1 && break; sleep 0.1; done
cub whoami >/dev/null

# ---- setup -------------------------------------------------------------------------------
t0=$(now_ms)
cub --quiet space create bench-workflows
cub --quiet changeworkflow create --space bench-workflows main \
  --stage Development --stage Production --prerequisites Healthy
cub changeworkflow get --space bench-workflows main -o json >"$work/workflow.json"
echo "workflow stages: $(json "$work/workflow.json" '[.Stages[] | "\(.Name) (\(.WhereSpace); prerequisites \(.Prerequisites | join(",")))"] | join(", ")' \
  '", ".join("%s (%s; prerequisites %s)" % (s["Name"], s["WhereSpace"], ",".join(s["Prerequisites"])) for s in d["Stages"])')"
cub --quiet space create bench-base
for i in $(seq "$units"); do
  deployment "$i" | cub --quiet unit create --space bench-base "svc$i" -
done
cub --quiet variant create bench-dev bench-base --stage Development
note "setup: workflow, base Space, dev variant" "$(since "$t0") s"

t0=$(now_ms)
chunk=${CUB_BENCH_CHUNK:-1000}
bench_prod_variants "$spaces" "$chunk"
note "setup: $spaces prod variants (bulk, $chunk a call)" "$(since "$t0") s"
cub space list --where "Labels.Stage = 'Production'" -o json >"$work/prod.json"
prod_count=$(json "$work/prod.json" 'length' 'len(d)')
[[ $prod_count == "$spaces" ]] || problem "cub space list --where \"Labels.Stage = 'Production'\" lists $prod_count Spaces, expected $spaces"

# Every 10th prod variant: an edit of its own to spec.replicas of one Unit (which one rotates).
t0=$(now_ms)
edited=0
: >"$work/edits"
for ((i = 10; i <= spaces; i += 10)); do
  echo "$i $(( (i / 10) % units + 1 )) $(( 3 + (i / 10) % 5 ))" >>"$work/edits"
  edited=$((edited + 1))
done
if ((edited > 0)) && ! xargs -P "$workers" -n 3 sh -c \
    '"$0" --timeout '"$timeout"' --quiet function set --space "bench-prod-$1" --unit "svc$2" -- set-replicas "$3"' \
    "$bin/cub" <"$work/edits" 2>"$work/edits.err"; then
  echo "cub function set (variant edits) failed:" >&2
  head -20 "$work/edits.err" >&2
  exit 1
fi
note "setup: $edited variant edits (set-replicas)" "$(since "$t0") s"
note "cubd peak RSS after setup (VmHWM)" "$(rss)"

# ---- the change --------------------------------------------------------------------------
t0=$(now_ms)
for i in $(seq "$units"); do
  cub --quiet function set --space bench-base --unit "svc$i" --change-desc "v2" \
    -- set-image-reference-by-uri "ghcr.io/acme/svc$i" :v2
done
note "the change: set-image-reference-by-uri :v2 on $units units" "$(since "$t0") s"

time_once "cub changeorder create" "$work/co_create.out" \
  cub changeorder create --space bench-base bench-v2 --description v2 \
  --change-workflow bench-workflows/main
echo "  $(cat "$work/co_create.out" "$work/co_create.out.err")"
((last_rc == 0)) || { echo "cub changeorder create failed" >&2; exit 1; }

time_once "cub variant promote (stage Development, 1 Space)" "$work/promote_dev.out" \
  cub variant promote --change-order bench-base/bench-v2
echo "  $(tail -n 1 "$work/promote_dev.out") $(cat "$work/promote_dev.out.err")"
((last_rc == 0)) || problem "cub variant promote --change-order bench-base/bench-v2 (Development) exited $last_rc: $(cat "$work/promote_dev.out.err")"

# The timed steps run on a database at rest. The fleet was just written, and autovacuum, which
# would have visited those tables long before anyone asked, otherwise vacuums and analyzes 100,000
# Units during the first measurements: `changeorder get` at 10,000 Spaces measured anywhere from
# 57 to 70 ms from run to run on the 2-core machine, 45.5 ms (twice) once the tables were at rest.
t0=$(now_ms)
psql -X -q "$url" -c "VACUUM (ANALYZE)" >/dev/null
note "setup: VACUUM (ANALYZE), autovacuum's work done now" "$(since "$t0") s"

# ---- measured ----------------------------------------------------------------------------
cub changeorder get --space bench-base bench-v2 -o json >"$work/co.json"
in_scope=$(json "$work/co.json" '.InScopeSpaceIDs | length' 'len(d["InScopeSpaceIDs"])')
resolved=$(json "$work/co.json" '.ResolvedSpaceIDs | length' 'len(d["ResolvedSpaceIDs"])')
changed=$(json "$work/co.json" '.ChangedUnitCount' 'd["ChangedUnitCount"]')
note "ChangeOrder: in-scope / resolved Spaces, changed Units" "$in_scope / $resolved / $changed"
[[ $in_scope == $((spaces + 2)) ]] || problem "ChangeOrder bench-v2 has $in_scope Spaces in scope, expected $((spaces + 2))"
[[ $resolved == 2 ]] || problem "ChangeOrder bench-v2 has $resolved Spaces resolved after the Development stage, expected 2 (base, dev)"
[[ $changed == "$units" ]] || problem "ChangeOrder bench-v2 changes $changed Units, expected $units"

time_cmd "a. cub changeorder get -o json ($in_scope Spaces in scope)" 0 \
  cub changeorder get --space bench-base bench-v2 -o json

promote=(cub variant promote --change-order bench-base/bench-v2 --target-stage Production)
rc=0
"${promote[@]}" --dry-run >/dev/null 2>"$work/refusal.err" || rc=$?
echo "  refusal (exit $rc): $(head -c 300 "$work/refusal.err")"
((rc == 1)) || problem "${promote[*]} --dry-run exited $rc, expected 1 (refused by the Healthy gate)"
time_cmd "b. promote --dry-run, refused by the gate" 1 "${promote[@]}" --dry-run

perf_start() {
  [[ -n ${CUB_BENCH_PERF:-} ]] && command -v perf >/dev/null 2>&1 || return 0
  perf record -e cpu-clock -F 250 --call-graph dwarf,16384 -o "$1" -p "$cubd_pid" >/dev/null 2>&1 &
  perf_pid=$!
  sleep 0.5
}
perf_stop() {
  [[ -n ${perf_pid:-} ]] || return 0
  kill -INT "$perf_pid"
  wait "$perf_pid" || true
  perf_pid=
}
statement_log 0
perf_start "${CUB_BENCH_PERF:-}.dry"
time_once "c. promote --dry-run --force (planning, $spaces Spaces)" "$work/dry.json" \
  "${promote[@]}" --dry-run --force --force-reason bench -o json
if ((last_rc == 0)); then
  note "   dry run: would land / already / fail / revisions" "$(totals "$work/dry.json")"
  note "   dry run: units per action" "$(actions "$work/dry.json")"
else
  problem "${promote[*]} --dry-run --force exited $last_rc: $(head -c 400 "$work/dry.json.err")"
fi
perf_stop
statement_log -1
note "cubd peak RSS after the dry run (VmHWM)" "$(rss)"

# The floor: the rows the promote writes (a revision and a new head for each prod Unit, three
# tag marks, its Link's new cursor), written by four set-based statements in a transaction
# that is rolled back.
# Measured in this run, on this machine and this database, just before the promote itself.
# Without JIT, as cubd runs its own statements (lib/store/pq.h), so the floor is the best case.
floor_sql() {
  cat <<EOF
SET jit = off;
\\timing on
BEGIN;
CREATE TEMP TABLE bench_prod ON COMMIT DROP AS
  SELECT u.id, u.space_id, u.head_revision_num AS head FROM units u JOIN spaces s ON s.id = u.space_id
  WHERE s.labels->>'Stage' = 'Production';
INSERT INTO revisions (unit_id, space_id, revision_num, data, data_hash, author_id, description,
    upstream_unit_id, upstream_revision_num, change_order_id)
  SELECT p.id, p.space_id, p.head + 1, replace(r.data, ':v1', ':v2'),
         md5(replace(r.data, ':v1', ':v2')), r.author_id, 'v2', p.id, 2, co.id
  FROM bench_prod p JOIN revisions r ON r.unit_id = p.id AND r.revision_num = p.head
  CROSS JOIN (SELECT id FROM change_orders WHERE slug = 'bench-v2') co;
UPDATE units u SET head_revision_num = p.head + 1, updated_at = now(), version = u.version + 1
  FROM bench_prod p WHERE u.id = p.id;
INSERT INTO tag_marks (tag_id, unit_id, revision_num)
  SELECT t.tag, p.id, p.head + 1 FROM bench_prod p
  CROSS JOIN (SELECT unnest(ARRAY[start_tag_id, end_tag_id, publish_tag_id]) AS tag
              FROM change_orders WHERE slug = 'bench-v2') t;
UPDATE links l SET upstream_revision_num = 2, updated_at = now(), version = l.version + 1
  FROM bench_prod p WHERE l.from_unit_id = p.id AND l.update_type = 'UpgradeUnit';
ROLLBACK;
EOF
}
# The writing statements' times, summed (the temporary table of Unit ids is not counted): all
# four, and the first three (revisions, heads, marks).
floor_times=$(floor_sql | psql -X -q "$url" 2>&1 | awk '/^Time:/ { t[++n] = $2 }
  END { printf "%.1f %.1f", t[3] + t[4] + t[5] + t[6], t[3] + t[4] + t[5] }')
read -r floor_ms floor3_ms <<<"$floor_times"
note "c. floor: 4 set-based statements writing the same rows" \
  "$(awk -v m="$floor_ms" 'BEGIN { printf "%8.1f ms", m }')   (rolled back)"
note "c. floor without the Link cursors (3 statements)" \
  "$(awk -v m="$floor3_ms" 'BEGIN { printf "%8.1f ms", m }')"
# The floor's rows were rolled back, but they stay in the tables and indexes until vacuumed: a
# dead twin for every revision, head, mark and cursor the promote is about to write, under the
# same keys. Each insert into a unique index would first visit its twin to find it dead. No
# real promotion follows such a rollback, and the floor itself ran on a vacuumed database, so
# the promote gets one too (1.5 to 3.4 s of a 10,000-Space promote, measured; not timed here).
t0=$(now_ms)
psql -X -q "$url" -c "VACUUM" >/dev/null
note "setup: VACUUM, the floor's rolled-back rows removed" "$(since "$t0") s"

perf_start "${CUB_BENCH_PERF:-}"
statement_log 0
time_once "c. promote --force (the whole stage, $spaces Spaces)" "$work/promote.json" \
  "${promote[@]}" --force --force-reason bench -o json
if ((last_rc == 0)) || [[ -s $work/promote.json ]]; then
  landed=$(json "$work/promote.json" '.Landed' 'd["Landed"]')
  failed=$(json "$work/promote.json" '.Failed' 'd["Failed"]')
  written=$(json "$work/promote.json" '.RevisionsWritten' 'd["RevisionsWritten"]')
  note "   promote: landed / already / failed / revisions written" "$(totals "$work/promote.json")"
  note "   promote: units per action" "$(actions "$work/promote.json")"
  [[ $landed == "$spaces" && $failed == 0 ]] || problem "promote landed $landed and failed $failed, expected $spaces and 0"
  [[ $written == $((spaces * units)) ]] || problem "promote wrote $written revisions, expected $((spaces * units))"
fi
((last_rc == 0)) || problem "${promote[*]} --force exited $last_rc: $(head -c 400 "$work/promote.json.err")"
note "d. cubd peak RSS after the promote (VmHWM)" "$(rss)"
statement_log -1
perf_stop
note "c. promote / floor" "$(awk -v p="$last_ms" -v f="$floor_ms" 'BEGIN { printf "%.1fx", p / f }')"
note "c. promote / floor without the Link cursors" \
  "$(awk -v p="$last_ms" -v f="$floor3_ms" 'BEGIN { printf "%.1fx", p / f }')"

# ---- correctness, cheaply ----------------------------------------------------------------
co_revs=$(psql "$url" -Atc "SELECT count(*) FROM revisions WHERE change_order_id IS NOT NULL")
note "e. revisions carrying the ChangeOrder" "$co_revs (expected $((units * (spaces + 1))))"
[[ $co_revs == $((units * (spaces + 1))) ]] || problem "$co_revs revisions carry a ChangeOrder, expected $((units * (spaces + 1)))"

# Every prod head: the new tag everywhere, and the variants' own replicas kept where they set them.
read -r heads_v2 heads_own <<<"$(psql "$url" -At -F ' ' -c "
  SELECT count(*) FILTER (WHERE r.data LIKE '%image: ghcr.io/acme/svc%:v2%'),
         count(*) FILTER (WHERE r.data NOT LIKE '%replicas: 2%')
  FROM spaces s JOIN units u ON u.space_id = s.id
  JOIN revisions r ON r.unit_id = u.id AND r.revision_num = u.head_revision_num
  WHERE s.labels->>'Stage' = 'Production'")"
note "e. prod heads with tag v2 / with their own replicas" "$heads_v2 / $heads_own (expected $((spaces * units)) / $edited)"
[[ $heads_v2 == $((spaces * units)) && $heads_own == "$edited" ]] ||
  problem "prod heads: $heads_v2 with tag v2 and $heads_own with their own replicas, expected $((spaces * units)) and $edited"
if ((edited > 0)); then
  # The first edited variant: its own replicas must survive, and the image must be v2.
  read -r _ k want <"$work/edits"
  cub unit data --space bench-prod-10 "svc$k" >"$work/edited.yaml"
  got=$(grep -m1 -o 'replicas: .*' "$work/edited.yaml" || true)
  img=$(grep -m1 -o 'image: .*' "$work/edited.yaml" || true)
  note "e. bench-prod-10/svc$k after the merge (replicas $want, tag v2)" "${got:-?}, ${img:-?}"
  [[ $got == "replicas: $want" && $img == *":v2" ]] ||
    problem "bench-prod-10/svc$k has '$got', '$img' after the promote, expected 'replicas: $want' and image tag v2"
fi

time_once "e. rerun of the promote (nothing to do)" "$work/rerun.json" \
  "${promote[@]}" --force --force-reason bench -o json
if [[ -s $work/rerun.json ]]; then
  note "   rerun: landed / already / failed / revisions written" "$(totals "$work/rerun.json")"
  rerun_landed=$(json "$work/rerun.json" '.Landed' 'd["Landed"]')
  [[ $rerun_landed == 0 ]] || problem "the rerun of the promote landed $rerun_landed Spaces, expected 0"
fi
((last_rc == 0)) || problem "rerun of ${promote[*]} --force exited $last_rc: $(head -c 400 "$work/rerun.json.err")"

cub changeorder get --space bench-base bench-v2 -o json >"$work/co_after.json"
note "ChangeOrder after: State, Stage, resolved Spaces" \
  "$(json "$work/co_after.json" '"\(.State), \(.Stage), \(.ResolvedSpaceIDs | length)"' \
       '"%s, %s, %d" % (d["State"], d["Stage"], len(d["ResolvedSpaceIDs"]))')"
note "ChangeOrder after: promotion failures / overrides recorded" \
  "$(json "$work/co_after.json" '"\(.PromotionFailures | length) / \(.PromotionOverrides | length)"' \
       '"%d / %d" % (len(d["PromotionFailures"]), len(d["PromotionOverrides"]))') (expected 0 / 1: the promote; the rerun evaluates no gate, so it overrides none)"
time_cmd "cub changeorder get -o json (after, all resolved)" 0 \
  cub changeorder get --space bench-base bench-v2 -o json
note "cubd peak RSS after the promotion (VmHWM)" "$(rss)"

# ---- releases ----------------------------------------------------------------------------
# Milliseconds (from microsecond lines in FILE, optionally only lines FROM..TO): median, p90, max.
us_stats() {
  local file=$1 from=${2:-1} to=${3:-\$}
  sed -n "${from},${to}p" "$file" | sort -n | awk '
    { a[NR] = $1 } END { if (NR == 0) { print "no data"; exit }
      printf "median %7.1f ms   p90 %7.1f ms   max %7.1f ms   (%d publishes)",
        a[int((NR + 1) / 2)] / 1000, a[int((NR * 9 + 9) / 10)] / 1000, a[NR] / 1000, NR }'
}
cubd_rss() { awk '/^VmRSS/ { r = $2 } /^VmHWM/ { h = $2 }
  END { printf "%.1f MB now, %.1f MB peak", r / 1024, h / 1024 }' "/proc/$cubd_pid/status"; }
publish=(release publish --revision ChangeOrder:bench-base/bench-v2)
repo=$work/gitops

release_phase() {
  if ! command -v git >/dev/null 2>&1; then
    problem "git is not installed: the release phase needs it to count commits and files"
    return
  fi
  time_once "f. cub target create (Git, local repository)" "$work/target.out" \
    cub target create --space bench-workflows gitops --provider Git \
    --param "repository=$repo" --param 'path=clusters/{space}'
  if ((last_rc != 0)); then
    problem "cub target create --space bench-workflows gitops --provider Git --param repository=$repo --param 'path=clusters/{space}' exited $last_rc: $(head -c 400 "$work/target.out.err")"
    return
  fi

  local t0
  t0=$(now_ms)
  if ! seq "$spaces" | xargs -P "$workers" -I{} \
      "$bin/cub" --timeout "$timeout" --quiet space update "bench-prod-{}" \
      --release-target bench-workflows/gitops 2>"$work/release_target.err"; then
    problem "cub space update bench-prod-I --release-target bench-workflows/gitops failed (xargs -P $workers): $(head -c 400 "$work/release_target.err")"
    return
  fi
  note "f. space update --release-target, $spaces Spaces ($workers workers)" "$(since "$t0") s"

  time_cmd "g. release publish --dry-run (bundle, 1 Space)" 0 \
    cub "${publish[@]}" bench-prod-1 --dry-run

  # One after the other: every publish timed on its own (whole cub process).
  local i fail=0 t1
  : >"$work/publish_seq.us"
  t0=$(now_ms)
  for i in $(seq "$spaces"); do
    t1=$(date +%s%N)
    if ! cub "${publish[@]}" "bench-prod-$i" >/dev/null 2>"$work/publish.err"; then
      fail=$((fail + 1))
      ((fail > 3)) || problem "cub ${publish[*]} bench-prod-$i: $(head -c 400 "$work/publish.err")"
    fi
    echo $(( ($(date +%s%N) - t1) / 1000 )) >>"$work/publish_seq.us"
  done
  local total_ms=$(( $(now_ms) - t0 ))
  note "h. publish $spaces Spaces one after the other: total" \
    "$(awk -v m="$total_ms" -v n="$spaces" 'BEGIN { printf "%.1f s (%.1f ms per publish, %.1f/s)", m / 1000, m / n, n * 1000 / m }')"
  note "   each publish" "$(us_stats "$work/publish_seq.us")"
  local tenth=$(( spaces / 10 > 0 ? spaces / 10 : 1 ))
  note "   the first $tenth publishes" "$(us_stats "$work/publish_seq.us" 1 "$tenth")"
  note "   the last $tenth publishes" "$(us_stats "$work/publish_seq.us" $((spaces - tenth + 1)) "$spaces")"
  ((fail == 0)) || problem "$fail of $spaces sequential publishes failed"
  local commits files
  commits=$(git -C "$repo" rev-list --count main 2>&1) || true
  files=$(git -C "$repo" ls-tree -r main 2>/dev/null | wc -l) || true
  note "   repository: commits on main / files in its tree" "$commits / $files (expected $spaces / $((spaces * units)))"
  [[ $commits == "$spaces" && $files == $((spaces * units)) ]] ||
    problem "after the sequential publishes: git -C $repo rev-list --count main = $commits, ls-tree -r main | wc -l = $files; expected $spaces and $((spaces * units))"
  note "   cubd RSS after the sequential publishes" "$(cubd_rss)"

  # All again, from parallel clients. The tree is full from the start this time, and every
  # bundle is the one already there: each publish is still a new Release and a new commit.
  : >"$work/publish_par.us"
  t0=$(now_ms)
  seq "$spaces" | xargs -P "$workers" -I{} sh -c '
    t=$(date +%s%N)
    "$0" --timeout "$1" release publish --revision ChangeOrder:bench-base/bench-v2 "bench-prod-$2" \
      >/dev/null 2>>"$3.err"
    rc=$?
    echo $(( ($(date +%s%N) - t) / 1000 )) >>"$3"
    exit $rc' "$bin/cub" "$timeout" {} "$work/publish_par.us" || true
  total_ms=$(( $(now_ms) - t0 ))
  note "i. publish $spaces Spaces again, $workers parallel clients: total" \
    "$(awk -v m="$total_ms" -v n="$spaces" 'BEGIN { printf "%.1f s (%.1f ms per publish, %.1f/s)", m / 1000, m / n, n * 1000 / m }')"
  note "   each publish (latency, with $workers in flight)" "$(us_stats "$work/publish_par.us")"
  if [[ -s $work/publish_par.us.err ]]; then
    problem "parallel publishes failed: $(grep -c . "$work/publish_par.us.err") error lines, first: $(head -c 400 "$work/publish_par.us.err")"
  fi

  commits=$(git -C "$repo" rev-list --count main 2>&1) || true
  files=$(git -C "$repo" ls-tree -r main 2>/dev/null | wc -l) || true
  local releases dirty
  releases=$(psql "$url" -Atc "SELECT count(*) FROM releases") || true
  dirty=$(git -C "$repo" status --porcelain 2>&1 | wc -l) || true
  note "j. repository: commits / files / Releases recorded" \
    "$commits / $files / $releases (expected $((2 * spaces)) / $((spaces * units)) / $((2 * spaces)))"
  [[ $commits == $((2 * spaces)) && $files == $((spaces * units)) && $releases == $((2 * spaces)) ]] ||
    problem "after both rounds: $commits commits on main, $files files in the tree, $releases Releases recorded; expected $((2 * spaces)), $((spaces * units)), $((2 * spaces))"
  note "   repository: work tree changes (git status --porcelain lines)" "$dirty (expected 0)"
  ((dirty == 0)) || problem "git -C $repo status --porcelain: $(git -C "$repo" status --porcelain 2>&1 | head -3)"
  note "   repository size (du -sh .git)" "$(du -sh "$repo/.git" | cut -f1)"

  cub release list --space bench-prod-2 -o json >"$work/releases2.json" 2>&1 || true
  note "   ReleaseNums of bench-prod-2 (numbered per Target)" \
    "$(json "$work/releases2.json" '[.[].ReleaseNum] | map(tostring) | join(", ")' \
         '", ".join(str(r["ReleaseNum"]) for r in d)')"
  local num
  num=$(json "$work/releases2.json" '.[0].ReleaseNum' 'd[0]["ReleaseNum"]') || num=1
  time_once "k. cub release verify (bench-prod-2, release $num)" "$work/verify.out" \
    cub release verify --space bench-prod-2 --release "$num"
  ((last_rc == 0)) || problem "cub release verify --space bench-prod-2 --release $num exited $last_rc: $(cat "$work/verify.out" "$work/verify.out.err" | head -c 400)"

  cub changeorder get --space bench-base bench-v2 -o json >"$work/co_released.json" || true
  local state
  state=$(json "$work/co_released.json" '"\(.State), \(.ReleasedSpaceIDs | length)"' \
    '"%s, %d" % (d["State"], len(d["ReleasedSpaceIDs"]))') || true
  note "   ChangeOrder after: State, released Spaces" "$state (expected Released, $spaces)"
  [[ $state == "Released, $spaces" ]] || problem "ChangeOrder bench-v2 after the publishes: State, released Spaces = $state; expected Released, $spaces"
  time_cmd "l. cub changeorder get -o json (after $((2 * spaces)) Releases)" 0 \
    cub changeorder get --space bench-base bench-v2 -o json
  note "m. cubd RSS at the end" "$(cubd_rss)"
}
if [[ ${CUB_BENCH_RELEASES:-1} == 1 ]]; then release_phase; fi

if [[ -n ${CUB_BENCH_HOLD:-} ]]; then
  echo "holding for inspection: psql $url; CUB_SERVER=$CUB_SERVER CUB_TOKEN=$CUB_TOKEN" \
    "(kill $$ to end)"
  sleep "$CUB_BENCH_HOLD" || true
fi
if grep -qiE 'error|fatal|panic' "$work/cubd.log"; then
  problem "cubd.log has errors: $(grep -iE 'error|fatal|panic' "$work/cubd.log" | head -5)"
fi

echo
echo "==== promote_bench summary: $spaces prod variants x $units units (+ base, dev), $edited edited; total $(since "$t_all") s ===="
printf '%s\n' "${summary[@]}"
if ((${#problems[@]})); then
  echo "---- problems ----"
  printf '%s\n' "${problems[@]}"
fi
