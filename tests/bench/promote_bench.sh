#!/usr/bin/env bash
# ChangeOrder promotion benchmark: times real `cub` commands against a real cubd on a throwaway
# PostgreSQL while a ChangeOrder is promoted across a fleet of variants. Prints figures;
# asserts nothing (beyond aborting when the setup itself fails).
#
#   setup (timed, not measured): Space bench-workflows with the two-stage ChangeWorkflow `main`
#     (Development, then Production gated on Healthy, which cannot hold: there are no release
#     Targets, so Production is reached only with --force); Space bench-base with 10
#     Kubernetes Deployments; the variant bench-dev (Stage Development) and N variants
#     bench-prod-I (Stage Production), all created through `cub variant create` by parallel
#     workers; every 10th prod variant gets an edit of its own (spec.replicas of one Unit), so
#     the promotion takes both the fast path (unedited Unit) and the slow one (3-way merge).
#   the change: a new image tag v2 in every Unit of bench-base, then
#     cub changeorder create --space bench-base bench-v2 --change-workflow bench-workflows/main
#     cub variant promote --change-order bench-base/bench-v2            (Development, 1 Space)
#   measured:
#     cub changeorder get -o json                                        (N+2 Spaces in scope)
#     cub variant promote ... --target-stage Production --dry-run        (refused by the gate)
#     cub variant promote ... --target-stage Production --dry-run --force   (planning alone)
#     cub variant promote ... --target-stage Production --force          (the whole stage, once)
#     cubd's peak RSS (VmHWM), revisions carrying the ChangeOrder, and a rerun of the promote.
#
# Usage: bash tests/bench/promote_bench.sh [BUILD_DIR]   (default: build)
#   CUB_BENCH_SPACES   prod variants (default 1000)     CUB_BENCH_RUNS     runs per median (15)
#   CUB_BENCH_WORKERS  parallel variant creators (4)    CUB_BENCH_TIMEOUT  cub --timeout (1800)
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
  bash "$root/tests/harness/pg.sh" stop "$work/pg" "$port" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT

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
token=$("$bin/cubd" user create bench --admin --database-url "$url")
"$bin/cubd" serve --database-url "$url" --listen "127.0.0.1:$grpc_port" 2>"$work/cubd.log" &
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
if ! seq "$spaces" | xargs -P "$workers" -I{} \
    "$bin/cub" --timeout "$timeout" --quiet variant create "bench-prod-{}" bench-base --stage Production \
    2>"$work/variants.err"; then
  echo "cub variant create failed (xargs -P $workers):" >&2
  head -20 "$work/variants.err" >&2
  exit 1
fi
note "setup: $spaces prod variants ($workers workers)" "$(since "$t0") s"
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

time_once "c. promote --dry-run --force (planning, $spaces Spaces)" "$work/dry.json" \
  "${promote[@]}" --dry-run --force --force-reason bench -o json
if ((last_rc == 0)); then
  note "   dry run: would land / already / fail / revisions" "$(totals "$work/dry.json")"
  note "   dry run: units per action" "$(actions "$work/dry.json")"
else
  problem "${promote[*]} --dry-run --force exited $last_rc: $(head -c 400 "$work/dry.json.err")"
fi
note "cubd peak RSS after the dry run (VmHWM)" "$(rss)"

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
       '"%d / %d" % (len(d["PromotionFailures"]), len(d["PromotionOverrides"]))') (expected 0 / 2: the promote and its rerun)"
time_cmd "cub changeorder get -o json (after, all resolved)" 0 \
  cub changeorder get --space bench-base bench-v2 -o json
note "cubd peak RSS at the end (VmHWM)" "$(rss)"
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
