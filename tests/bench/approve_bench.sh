#!/usr/bin/env bash
# Stage-wide approval benchmark: times real `cub` commands against a real cubd on a throwaway
# PostgreSQL while one person approves a ChangeOrder across a whole Stage and the Stage is then
# published with the approvals sealed onto every Release. Prints figures; asserts nothing beyond
# aborting when the setup fails and reporting PROBLEM lines.
#
#   setup (not measured): the workflow bench-workflows/main with one Stage, Production, whose
#     ReleasePrerequisites need one approval from the group approvers; the base bench-base with
#     10 Kubernetes Deployments, the approver role granted to that group; N variants
#     bench-prod-I made in bulk (they inherit the grant); a Git Target (a bare local
#     repository) set as every variant's release Target (SQL, setup only); a new image tag in
#     every base Unit, the ChangeOrder bench-base/bench-v2 and its promotion into Production;
#     ANALYZE.
#   measured (whole cub processes):
#     a. cub release publish --change-order bench-base/bench-v2 --stage Production --dry-run
#          before any vote: every Space refused by its release gate (the gate over N Spaces)
#     b. cub variant approve --change-order bench-base/bench-v2 --stage Production --dry-run
#          as alice (N attestations previewed, 10 revisions each)
#     c. the same, recorded
#     d. cub release publish --change-order bench-base/bench-v2 --stage Production, end to end:
#          N Releases, each with its signed provenance and its sealed approval
#   and cubd's peak RSS (VmHWM) during each.
#
# Usage: bash tests/bench/approve_bench.sh [BUILD_DIR]   (default: build)
#   CUB_BENCH_SPACES   variants (default 1000)           CUB_BENCH_CHUNK   variants a create call
#   CUB_BENCH_PG_PORT  PostgreSQL port (55650)           CUB_BENCH_PORT    cubd gRPC port (7650)
#   CUB_BENCH_PERF     DIR: `perf record` cubd during each measured step (DIR/a.data ...)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
bin=$(cd "${1:-$root/build}" && pwd)/bin
spaces=${CUB_BENCH_SPACES:-1000}
chunk=${CUB_BENCH_CHUNK:-1000}
port=${CUB_BENCH_PG_PORT:-55650}
grpc_port=${CUB_BENCH_PORT:-7650}
units=10
work=$(mktemp -d /tmp/cub-approve-bench.XXXXXX)
chmod 755 "$work"

source "$root/tests/bench/lib.sh"
trap bench_cleanup EXIT

cub() { "$bin/cub" --timeout 1800 "$@"; }
now_ms() { echo $(( $(date +%s%N) / 1000000 )); }
sql() { psql -X -q -At -v ON_ERROR_STOP=1 "$url" "$@"; }
note() { printf '%-66s %s\n' "$1" "$2"; }
problem() { echo "PROBLEM: $1" >&2; }
json() { python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$@"; }
# One timed run: stdout in OUT, stderr in OUT.err; the exit status in last_rc; cubd's peak RSS
# during the run (the peak is reset first: clear_refs 5). With CUB_BENCH_PERF=DIR, cubd is
# sampled by `perf record` during the run, into DIR/STEP.data (STEP: the label's first word).
time_once() {
  local label=$1 out=$2 t0 perf_pid=
  shift 2
  last_rc=0
  echo 5 >"/proc/$cubd_pid/clear_refs" 2>/dev/null || true
  if [[ -n ${CUB_BENCH_PERF:-} ]]; then
    mkdir -p "$CUB_BENCH_PERF"
    perf record -q -e cpu-clock -F 499 -g -p "$cubd_pid" \
      -o "$CUB_BENCH_PERF/${label%%.*}.data" 2>/dev/null &
    perf_pid=$!
    sleep 0.5
  fi
  t0=$(now_ms)
  "$@" >"$out" 2>"$out.err" || last_rc=$?
  local ms=$(( $(now_ms) - t0 ))
  if [[ -n $perf_pid ]]; then kill -INT "$perf_pid"; wait "$perf_pid" 2>/dev/null || true; fi
  note "$label" "$(awk -v m="$ms" 'BEGIN { printf "%8.1f ms", m }')   (exit $last_rc, cubd peak RSS $(bench_rss))"
}

deployment() {
  cat <<YAML
apiVersion: apps/v1
kind: Deployment
metadata:
  name: svc$1
spec:
  replicas: 2
  template:
    spec:
      containers:
        - name: svc$1
          image: ghcr.io/acme/svc$1:v1
YAML
}

echo "approve_bench: $spaces Spaces x $units Units, one approval each, sealed at publish"
bench_db_start
token=$(bench_user bench --admin)
alice=$(bench_user alice --group approvers)
export CUB_TOKEN="$token" CUB_CONFIG="$work/config.json"
bench_cubd_start

# ---- setup ---------------------------------------------------------------------------------
t0=$(now_ms)
cub --quiet space create bench-workflows
cat >"$work/flow.yaml" <<YAML
Stages:
  - Name: Production
    WhereSpace: "Labels.Stage = 'Production'"
    ReleasePrerequisites: [one-approver]
AttestationPrerequisites:
  - Name: one-approver
    Count: 1
    FromGroups: [approvers]
YAML
cub --quiet changeworkflow create --space bench-workflows main --filename "$work/flow.yaml"
cub --quiet space create bench-base
cub --quiet space grant bench-base approver --group approvers
for i in $(seq "$units"); do deployment "$i" | cub --quiet unit create --space bench-base "svc$i" -; done
bench_prod_variants "$spaces" "$chunk"
bench_git_target_and_change "$units"
cub --quiet variant promote --change-order bench-base/bench-v2 --target-stage Production
sql -c "ANALYZE"
note "setup (not measured)" "$(awk -v m="$(( $(now_ms) - t0 ))" 'BEGIN { printf "%.1f s", m / 1000 }')"

# A fresh cubd for the measured steps, so that its memory figures are theirs alone (the setup's
# promotion leaves its peak, and what the allocator keeps of it, in the process).
kill "$cubd_pid"
wait "$cubd_pid" 2>/dev/null || true
bench_cubd_start
note "cubd RSS, restarted after setup" "$(awk '/^VmRSS/ { printf "%.1f MB", $2 / 1024 }' "/proc/$cubd_pid/status")"

# ---- measured --------------------------------------------------------------------------------
co=(--change-order bench-base/bench-v2 --stage Production)
time_once "a. stage publish --dry-run, no vote yet ($spaces Spaces)" "$work/a.json" \
  cub release publish "${co[@]}" --dry-run -o json
note "   would publish / refused" \
  "$(json "$work/a.json" '"%d / %d" % (len(d.get("Releases", [])), len(d.get("Refused", [])))')"
time_once "b. variant approve --stage --dry-run, as alice" "$work/b.json" \
  cub --token "$alice" variant approve "${co[@]}" --dry-run -o json
((last_rc == 0)) || problem "approve dry run: $(head -c 400 "$work/b.json.err")"
time_once "c. variant approve --stage, as alice" "$work/c.json" \
  cub --token "$alice" variant approve "${co[@]}" -o json
((last_rc == 0)) || problem "approve: $(head -c 400 "$work/c.json.err")"
note "   attestations recorded / revisions attested" "$(sql -c "SELECT (SELECT count(*) FROM
  attestations) || ' / ' || (SELECT count(*) FROM attestation_revisions)")"
time_once "d. stage publish, approvals sealed ($spaces Releases, table)" "$work/d.txt" \
  cub release publish "${co[@]}" --description bench
((last_rc == 0)) || problem "publish: $(head -c 400 "$work/d.txt.err")"
note "   Releases recorded / with sealed approvals" "$(sql -c "SELECT count(*) || ' / ' ||
  count(*) FILTER (WHERE sealed_approvals <> '') FROM releases")"
note "load average (1, 5, 15 min) at the end" "$(cut -d' ' -f1-3 /proc/loadavg)"
