#!/usr/bin/env bash
# Stage-wide publish benchmark: times real `cub` commands against a real cubd on a throwaway
# PostgreSQL, publishing N Spaces x 10 Units to one Git Target (a local repository). Prints
# figures; asserts nothing beyond aborting when the setup fails and reporting PROBLEM lines.
#
#   setup (not measured): the workflow bench-workflows/main (one Stage, Production), the base
#     bench-base with 10 Kubernetes Deployments, N variants bench-prod-I made with
#     `cub variant create --names-file`, CUB_BENCH_CHUNK a call; the Git Target
#     bench-workflows/gitops (a bare local repository) set as every variant's release Target
#     (SQL, setup only); a new image tag in every base Unit, the ChangeOrder bench-base/bench-v2,
#     and its promotion into Production (`cub variant promote`);
#     then ANALYZE (what autovacuum does within a minute of such a bulk write).
#   measured:
#     a. cub release publish --change-order bench-base/bench-v2 --stage Production --dry-run
#     b. cub release publish --change-order bench-base/bench-v2 --stage Production
#          (every Space its own signed Release, one commit; end to end, delivery included),
#          printing its table, as typed by a person (the goal's figure)
#     c. the same again (nothing to publish: every Space already published)
#     d. cub release publish bench-prod-I, one after the other for CUB_BENCH_SINGLE Spaces: the
#          per-Space publish (whole cub process, delivery included): median and p90
#     b2. a second ChangeOrder bench-base/bench-v3 (another image tag), promoted (not measured)
#          and published like b. but with `-o json`: the whole answer, every Release's signed
#          provenance included, rendered as JSON by the CLI (what the earlier rounds timed)
#     e. the baseline: the same 10,000 files (git archive of the branch) committed with
#          `git add -A && git commit` into a fresh repository, CUB_BENCH_GIT_RUNS times (median)
#
# Usage: bash tests/bench/publish_bench.sh [BUILD_DIR]   (default: build)
#   CUB_BENCH_SPACES   variants (default 1000)           CUB_BENCH_SINGLE   single publishes (50)
#   CUB_BENCH_CHUNK    variants per create call (1000)   CUB_BENCH_TIMEOUT  cub --timeout (1800)
#   CUB_BENCH_PG_PORT  PostgreSQL port (55630)           CUB_BENCH_PORT     cubd gRPC port (7630)
#   CUB_BENCH_GIT_RUNS commits of the baseline, the ratio taken to their median (5)
#   CUB_BENCH_LOG      copy cubd's log (one line per call, with its duration) to this file
#   CUB_BENCH_HOLD     seconds to keep PostgreSQL and cubd up at the end, for inspection
#   CUB_BENCH_PERF     record cubd with `perf record -g` during the stage publish, into this file
#   CUB_BENCH_PERF_CALLGRAPH  perf's call-graph option instead of -g (e.g. "--call-graph dwarf")
#   CUB_BENCH_STATEMENTS  log every SQL statement of the stage publish (b) and of the first
#                      single publish (d) with its duration, and copy PostgreSQL's log here
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
bin=$(cd "${1:-$root/build}" && pwd)/bin
spaces=${CUB_BENCH_SPACES:-1000}
single=${CUB_BENCH_SINGLE:-50}
chunk=${CUB_BENCH_CHUNK:-1000}
timeout=${CUB_BENCH_TIMEOUT:-1800}
port=${CUB_BENCH_PG_PORT:-55630}
grpc_port=${CUB_BENCH_PORT:-7630}
units=10
work=$(mktemp -d /tmp/cub-publish-bench.XXXXXX)
chmod 755 "$work"

cleanup() {
  [[ -n "${cubd_pid:-}" ]] && kill "$cubd_pid" 2>/dev/null && wait "$cubd_pid" 2>/dev/null
  [[ -n ${CUB_BENCH_LOG:-} ]] && cp "$work/cubd.log" "$CUB_BENCH_LOG"
  [[ -n ${CUB_BENCH_STATEMENTS:-} ]] && cp "$work/pg/postgres.log" "$CUB_BENCH_STATEMENTS"
  bash "$root/tests/harness/pg.sh" stop "$work/pg" "$port" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT
source "$root/tests/bench/lib.sh"  # bench_prod_variants

cub() { "$bin/cub" --timeout "$timeout" "$@"; }
now_ms() { echo $(( $(date +%s%N) / 1000000 )); }
since() { awk -v a="$1" -v b="$(now_ms)" 'BEGIN { printf "%.1f", (b - a) / 1000 }'; }
sql() { psql -X -q -At -v ON_ERROR_STOP=1 "$url" "$@"; }
# Statement logging (CUB_BENCH_STATEMENTS) on or off: -1 or 0 (every statement). A reload
# reaches the sessions cubd holds open.
statement_log() {
  [[ -n ${CUB_BENCH_STATEMENTS:-} ]] || return 0
  sql -c "ALTER SYSTEM SET log_min_duration_statement = $1" -c "SELECT pg_reload_conf()" >/dev/null
  sleep 0.2
}

summary=()
note() { summary+=("$(printf '%-66s %s' "$1" "$2")"); printf '%-66s %s\n' "$1" "$2"; }
problems=()
problem() { problems+=("$1"); echo "PROBLEM: $1" >&2; }

# One timed run: stdout in OUT, stderr in OUT.err, the figure in the summary, the exit status
# in last_rc and the milliseconds in last_ms.
time_once() {
  local label=$1 out=$2; shift 2
  local t0 rc=0
  t0=$(now_ms)
  "$@" >"$out" 2>"$out.err" || rc=$?
  last_ms=$(( $(now_ms) - t0 ))
  note "$label" "$(awk -v m="$last_ms" 'BEGIN { printf "%8.1f ms", m }')   (1 run, exit $rc)"
  last_rc=$rc
}
# Milliseconds from the microsecond lines of FILE: median, p90, min.
us_stats() {
  sort -n "$1" | awk '
    { a[NR] = $1 } END { if (NR == 0) { print "no data"; exit }
      printf "median %7.1f ms   p90 %7.1f ms   min %7.1f ms   (%d runs)",
        a[int((NR + 1) / 2)] / 1000, a[int((NR * 9 + 9) / 10)] / 1000, a[1] / 1000, NR }'
}
median_ms() { sort -n "$1" | awk '{ a[NR] = $1 } END { printf "%.1f", a[int((NR + 1) / 2)] / 1000 }'; }
json() { python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$@"; }

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
          resources:
            requests:
              cpu: 100m
              memory: 128Mi
EOF
}

command -v git >/dev/null || { echo "publish_bench: git is required" >&2; exit 1; }
echo "publish_bench: $spaces Spaces x $units Units to one Git Target; $single single publishes"
t_all=$(now_ms)
bash "$root/tests/harness/pg.sh" start "$work/pg" "$port" >/dev/null
psql -q "postgresql://cub_test@127.0.0.1:$port/postgres" -c "CREATE DATABASE bench" >/dev/null
url="postgresql://cub_test@127.0.0.1:$port/bench"
"$bin/cubd" migrate --database-url "$url" >/dev/null
token=$("$bin/cubd" user create bench --admin --database-url "$url")
"$bin/cubd" serve --database-url "postgresql://cub_serve@127.0.0.1:$port/bench" \
  --listen "127.0.0.1:$grpc_port" --signing-key "$work/signing-key.pem" \
  --work-dir "$work/cubd-work" 2>"$work/cubd.log" &
cubd_pid=$!
export CUB_SERVER="127.0.0.1:$grpc_port" CUB_TOKEN="$token" CUB_CONFIG="$work/config.json"
for _ in $(seq 50); do "$bin/cub" whoami >/dev/null 2>&1 && break; sleep 0.1; done
cub whoami >/dev/null

# ---- setup ---------------------------------------------------------------------------------
t0=$(now_ms)
cub --quiet space create bench-workflows
cub --quiet changeworkflow create --space bench-workflows main --stage Production
cub --quiet space create bench-base
for i in $(seq "$units"); do deployment "$i" | cub --quiet unit create --space bench-base "svc$i" -; done
bench_prod_variants "$spaces" "$chunk"
bench_git_target_and_change "$units"
cub variant promote --change-order bench-base/bench-v2 --target-stage Production -o json \
  >"$work/promote.json"
# Statistics for the fleet just written, as autovacuum would have them a minute later: without
# them the planner takes the new tables for empty and plans the publish's joins accordingly.
sql -c "ANALYZE"
note "setup: $spaces variants, Target, ChangeOrder promoted (not measured)" "$(since "$t0") s"

# ---- the stage-wide publish ---------------------------------------------------------------
stage_table=(cub release publish --change-order bench-base/bench-v2 --stage Production)
stage=("${stage_table[@]}" -o json)
time_once "a. stage publish --dry-run ($spaces Spaces)" "$work/dry.json" "${stage[@]}" --dry-run
((last_rc == 0)) || problem "dry run exited $last_rc: $(head -c 400 "$work/dry.json.err")"
note "   dry run: would publish / refused" \
  "$(json "$work/dry.json" '"%d / %d" % (len(d.get("Releases", [])), len(d.get("Refused", [])))')"

if [[ -n ${CUB_BENCH_PERF:-} ]]; then
  perf record -q -F 999 ${CUB_BENCH_PERF_CALLGRAPH:--g} -p "$cubd_pid" -o "$CUB_BENCH_PERF" 2>/dev/null &
  perf_pid=$!
  sleep 0.5
fi
statement_log 0
# The table a person sees: no -o json (the answer's provenance is not rendered).
time_once "b. stage publish ($spaces Spaces x $units Units, end to end, table)" "$work/stage.txt" \
  "${stage_table[@]}" --description "bench"
stage_ms=$last_ms
statement_log -1
if [[ -n ${perf_pid:-} ]]; then kill -INT "$perf_pid"; wait "$perf_pid" || true; fi
((last_rc == 0)) || problem "stage publish exited $last_rc: $(head -c 400 "$work/stage.txt.err")"
note "   table: releases listed / Delivered / refused" \
  "$(grep -cE '^  [^ ]+: Release [0-9]+ ' "$work/stage.txt" || true) / $(grep -cE '^  [^ ]+: Release [0-9]+ Delivered' "$work/stage.txt" || true) / $(grep -c '^Refused ' "$work/stage.txt" || true)"
[[ $(grep -cE '^  [^ ]+: Release [0-9]+ Delivered' "$work/stage.txt" || true) == "$spaces" ]] ||
  problem "the stage publish's table does not show $spaces Releases Delivered: $(head -c 300 "$work/stage.txt")"
commits=$(git -C "$repo" rev-list --count main 2>/dev/null || echo 0)
files=$(git -C "$repo" ls-tree -r --name-only main 2>/dev/null | grep -c '\.yaml$' || true)
releases=$(sql -c "SELECT count(*) FROM releases")
note "   commits on main / .yaml files in the tree / Releases recorded" \
  "$commits / $files / $releases (expected 1 / $((spaces * units)) / $spaces)"
[[ $commits == 1 && $files == $((spaces * units)) && $releases == "$spaces" ]] ||
  problem "after the stage publish: $commits commits, $files files, $releases Releases"

time_once "c. stage publish again (nothing to publish)" "$work/again.json" "${stage[@]}"
note "   published / already published" \
  "$(json "$work/again.json" '"%d / %d" % (len(d.get("Releases", [])), len(d.get("AlreadyPublished", [])))')"
[[ $(git -C "$repo" rev-list --count main) == 1 ]] || problem "the rerun made a commit"

# ---- the per-Space publish -----------------------------------------------------------------
: >"$work/single.us"
for i in $(seq "$single"); do
  ((i == 1)) && statement_log 0
  ((i == 2)) && statement_log -1
  t1=$(date +%s%N)
  if ! cub release publish "bench-prod-$i" --description "single $i" >/dev/null 2>"$work/single.err"; then
    problem "cub release publish bench-prod-$i: $(head -c 300 "$work/single.err")"
  fi
  echo $(( ($(date +%s%N) - t1) / 1000 )) >>"$work/single.us"
done
note "d. cub release publish SPACE, one after the other" "$(us_stats "$work/single.us")"

# ---- the same Stage publish answered as JSON (a second ChangeOrder) -------------------------
# Its setup failing is reported, and the baseline still runs. (Inside a function called from
# `if`, set -e is off: each step returns on failure itself.)
second_change_order() {
  local i
  for i in $(seq "$units"); do
    cub --quiet function set --space bench-base --unit "svc$i" --change-desc v3 \
      -- set-image-reference-by-uri "ghcr.io/acme/svc$i" :v3 || return 1
  done
  cub --quiet changeorder create --space bench-base bench-v3 --description v3 \
    --change-workflow bench-workflows/main || return 1
  cub variant promote --change-order bench-base/bench-v3 --target-stage Production -o json \
    >"$work/promote3.json" || return 1
  sql -c "ANALYZE"
}
json_ms=
t0=$(now_ms)
if second_change_order 2>"$work/promote3.err"; then
  note "setup: a second ChangeOrder bench-v3 promoted (not measured)" "$(since "$t0") s"
  time_once "b2. stage publish of bench-v3 (end to end, -o json)" "$work/stage3.json" \
    cub release publish --change-order bench-base/bench-v3 --stage Production -o json \
    --description "bench v3"
  json_ms=$last_ms
  ((last_rc == 0)) || problem "stage publish -o json exited $last_rc: $(head -c 400 "$work/stage3.json.err")"
  note "   published / refused / delivery states" \
    "$(json "$work/stage3.json" '"%d / %d / %s" % (len(d.get("Releases", [])), len(d.get("Refused", [])), sorted(set(r.get("DeliveryState", "?") for r in d.get("Releases", []))))')"
  note "   bytes of JSON printed" "$(wc -c <"$work/stage3.json")"
  [[ $(json "$work/stage3.json" 'sum(r.get("DeliveryState") == "Delivered" for r in d.get("Releases", []))') == "$spaces" ]] ||
    problem "the -o json stage publish did not answer $spaces Releases Delivered"
else
  problem "setting up the second ChangeOrder failed (b2 skipped): $(head -c 400 "$work/promote3.err")"
fi

# ---- the baseline: git commit of the same files --------------------------------------------
# CUB_BENCH_GIT_RUNS commits of the same tree, each into a fresh repository: git's own time
# swings with the page cache and writeback (0.45 to 1.4 s in one afternoon's runs), so the ratio
# is taken against the median of several rather than one draw.
git_runs=${CUB_BENCH_GIT_RUNS:-5}
src=$work/baseline-src
mkdir -p "$src"
git -C "$repo" archive main | tar -x -C "$src"
: >"$work/git.times"
for ((i = 1; i <= git_runs; i++)); do
  base=$work/baseline-$i
  cp -a "$src" "$base"
  git -C "$base" init -q -b main
  git -C "$base" config user.name bench
  git -C "$base" config user.email bench@localhost
  t0=$(now_ms)
  git -C "$base" add -A
  git -C "$base" commit -q -m "baseline"
  echo $(( $(now_ms) - t0 )) >>"$work/git.times"
done
git_ms=$(sort -n "$work/git.times" | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }')
note "e. baseline: git add -A && git commit of the same tree" \
  "median $(awk -v m="$git_ms" 'BEGIN { printf "%7.1f ms", m }')   min $(sort -n "$work/git.times" | head -1) ms   max $(sort -n "$work/git.times" | tail -1) ms   ($git_runs fresh repositories, $(git -C "$base" ls-files | wc -l) files)"
note "   stage publish (table) / git commit" "$(awk -v a="$stage_ms" -v b="$git_ms" 'BEGIN { printf "%.2fx", a / b }')"
[[ -n $json_ms ]] && note "   stage publish (-o json) / git commit" \
  "$(awk -v a="$json_ms" -v b="$git_ms" 'BEGIN { printf "%.2fx", a / b }')"
note "   load average (1, 5, 15 min) at the end" "$(cut -d' ' -f1-3 /proc/loadavg)"

if [[ -n ${CUB_BENCH_HOLD:-} ]]; then
  echo "holding for inspection: psql $url (Ctrl-C or kill $$ to end)"
  sleep "$CUB_BENCH_HOLD" || true
fi
if grep -qiE 'fatal|panic' "$work/cubd.log"; then
  problem "cubd.log: $(grep -iE 'fatal|panic' "$work/cubd.log" | head -3)"
fi
echo
echo "==== publish_bench summary: $spaces Spaces x $units Units; total $(since "$t_all") s ===="
printf '%s\n' "${summary[@]}"
if ((${#problems[@]})); then
  echo "---- problems ----"
  printf '%s\n' "${problems[@]}"
fi
