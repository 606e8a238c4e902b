#!/usr/bin/env bash
# The fleet-scale curve: runs promote_bench.sh, approve_bench.sh and unit_list_bench.sh at each
# fleet size in turn (one after the other, never two at once: each times whole processes on
# the same cores) and prints their main figures side by side, one column per size, as a
# Markdown table. Each bench builds its own fleet on its own throwaway PostgreSQL; their full
# output is kept in OUT_DIR. Prints figures; asserts nothing.
#
# Usage: bash tests/bench/fleet_curve.sh [BUILD_DIR] [OUT_DIR]   (default: build, a temp dir)
#   CUB_CURVE_SIZES  fleet sizes, in Spaces (default "1000 5000 10000")
#   CUB_BENCH_RUNS   runs per median in promote_bench (default 5)
#   CUB_CURVE_REPORT_ONLY=1  print the table from the logs already in OUT_DIR
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${1:-$root/build}
out=${2:-$(mktemp -d /tmp/cub-fleet-curve.XXXXXX)}
sizes=(${CUB_CURVE_SIZES:-1000 5000 10000})
mkdir -p "$out"

for n in "${sizes[@]}"; do
  [[ -n ${CUB_CURVE_REPORT_ONLY:-} ]] && break
  echo "== $n Spaces (load $(cut -d' ' -f1-3 /proc/loadavg))" >&2
  CUB_BENCH_SPACES=$n CUB_BENCH_RELEASES=0 CUB_BENCH_RUNS=${CUB_BENCH_RUNS:-5} \
    bash "$root/tests/bench/promote_bench.sh" "$build" >"$out/promote-$n.log" 2>&1 || true
  CUB_BENCH_SPACES=$n bash "$root/tests/bench/approve_bench.sh" "$build" \
    >"$out/approve-$n.log" 2>&1 || true
  CUB_BENCH_SPACES=$n bash "$root/tests/bench/unit_list_bench.sh" "$build" \
    >"$out/unit_list-$n.log" 2>&1 || true
done

# The figure after LABEL (a line's leading text) in a bench log: the median when there is one,
# else the first number with its unit.
figure() {
  local file=$1 label=$2
  awk -v label="$label" '
    index($0, label) == 1 {
      rest = substr($0, length(label) + 1)
      if (match(rest, /median +[0-9.]+ +[a-zA-Z]+/)) { v = substr(rest, RSTART + 6, RLENGTH - 6) }
      else if (match(rest, /[0-9.]+x/)) { v = substr(rest, RSTART, RLENGTH) }
      else if (match(rest, /[0-9.]+ +(ms|s|MB)/)) { v = substr(rest, RSTART, RLENGTH) }
      else { next }
      gsub(/^ +| +$/, "", v); gsub(/ +/, " ", v); print v; exit
    }' "$file" 2>/dev/null
}

row() {
  local name=$1 kind=$2 label=$3 n v
  local line="| $name |"
  for n in "${sizes[@]}"; do
    v=$(figure "$out/$kind-$n.log" "$label")
    line+=" ${v:-n/a} |"
  done
  echo "$line"
}

# The cubd peak RSS a line of approve_bench reports after LABEL ("cubd peak RSS N MB").
rss_row() {
  local name=$1 kind=$2 label=$3 n v
  local line="| $name |"
  for n in "${sizes[@]}"; do
    v=$(awk -v label="$label" 'index($0, label) == 1 && match($0, /peak RSS [0-9.]+ MB/) {
          print substr($0, RSTART + 9, RLENGTH - 9); exit }' "$out/$kind-$n.log" 2>/dev/null)
    line+=" ${v:-n/a} |"
  done
  echo "$line"
}

header="| figure |"
rule="| --- |"
for n in "${sizes[@]}"; do
  header+=" $n Spaces |"
  rule+=" ---: |"
done
echo "$header"
echo "$rule"
row '`changeorder get -o json`, blocked Stage' promote 'a. cub changeorder get -o json'
row 'gate refusal of the blocked Stage' promote 'b. promote --dry-run, refused by the gate'
row 'promote `--dry-run --force` (planning)' promote 'c. promote --dry-run --force'
row 'promote `--force`, the whole Stage' promote 'c. promote --force'
row 'floor: the same rows in 4 set-based statements' promote 'c. floor: 4 set-based'
row 'promote / floor' promote 'c. promote / floor '
row 'floor without the Link cursors (3 statements)' promote 'c. floor without the Link cursors (3 statements)'
row 'promote / floor without the Link cursors' promote 'c. promote / floor without'
row 'cubd peak RSS after the promote' promote 'd. cubd peak RSS after the promote'
row 'rerun of the promote (nothing to do)' promote 'e. rerun of the promote'
row '`changeorder get -o json`, every Space resolved' promote 'cub changeorder get -o json (after'
row 'stage publish `--dry-run`, no vote yet' approve 'a. stage publish --dry-run'
row '`variant approve --stage`' approve 'c. variant approve --stage, as alice'
row 'stage publish, approvals sealed' approve 'd. stage publish, approvals sealed'
rss_row 'cubd peak RSS during the stage publish' approve 'd. stage publish, approvals sealed'
row 'unit list, every Space, first page: where Slug matches (admin)' unit_list "Slug = 'svc3'"
row 'unit list, every Space, first page: where nothing matches (admin)' unit_list "Labels.none = 'x'"
echo
echo "logs: $out"
