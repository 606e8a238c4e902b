#!/usr/bin/env bash
# Fuzzes cub's libFuzzer targets, one after another:
#   bash tests/fuzz/run.sh [SECONDS] [TARGET...]
# SECONDS per target (default 600); TARGETs among the names in tests/fuzz/CMakeLists.txt
# (default all: every directory of tests/fuzz/corpus).
#
# Configures and builds build-fuzz/ with clang-14 and -DCUB_FUZZ=ON if needed (installing
# clang-14 and libclang-rt-14-dev with apt-get when missing), then runs each <name>_fuzz with
# its corpus (tests/fuzz/corpus/<name>, read only: new entries go to a scratch corpus), its
# dictionary (tests/fuzz/<name>.dict) if any, and a -max_len that suits its input. libFuzzer
# runs in fork mode with crashes, timeouts and OOMs ignored, so one finding does not end the
# run; each finding is saved to the scratch dir's artifacts/ and counted (earlier runs' findings
# there are kept but not counted again). Prints executions,
# duration and findings per target at the end; exits 1 if anything was found.
#
# Environment: CUB_FUZZ_SCRATCH (default /tmp/cub-fuzz) for scratch corpora, artifacts and
# logs; CUB_FUZZ_JOBS (default 2) for the build; CUB_FUZZ_NICE (default 19) for the fuzzers'
# niceness. A finding worth keeping: minimize it (<name>_fuzz -minimize_crash=1 -runs=10000
# FILE), fix the cause, and copy it into tests/fuzz/corpus/<name>/ as regression_<N>, which
# unit.fuzz_replay_<name> then replays in the normal build.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd -P)
cd "$ROOT"

SECONDS_PER_TARGET=${1:-600}
shift || true
mapfile -t ALL_TARGETS < <(ls tests/fuzz/corpus)  # one corpus directory per target
TARGETS=("$@")
[[ ${#TARGETS[@]} -gt 0 ]] || TARGETS=("${ALL_TARGETS[@]}")
SCRATCH=${CUB_FUZZ_SCRATCH:-/tmp/cub-fuzz}
JOBS=${CUB_FUZZ_JOBS:-2}
NICE=${CUB_FUZZ_NICE:-19}
BUILD=build-fuzz

max_len() {
  case $1 in
    path) echo 256 ;;
    cel | where) echo 1024 ;;
    http) echo 8192 ;;
    *) echo 4096 ;;
  esac
}

for t in "${TARGETS[@]}"; do
  if [[ ! -d tests/fuzz/corpus/$t ]]; then
    echo "run.sh: unknown target '$t' (targets: ${ALL_TARGETS[*]})" >&2
    exit 2
  fi
done

# clang and libFuzzer's runtime (Debian 12 packages); not part of the normal g++ build.
if ! command -v clang++-14 >/dev/null || [[ ! -e /usr/lib/llvm-14/lib/clang/14.0.6/lib/linux/libclang_rt.fuzzer-x86_64.a ]]; then
  echo "run.sh: installing clang-14 and libclang-rt-14-dev"
  SUDO=; [[ $(id -u) -eq 0 ]] || SUDO=sudo
  $SUDO apt-get install -y --no-install-recommends clang-14 libclang-rt-14-dev
fi

export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$ROOT}
export CCACHE_NOHASHDIR=${CCACHE_NOHASHDIR:-1}
if [[ ! -f $BUILD/CMakeCache.txt ]]; then
  cmake -G Ninja -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCUB_FUZZ=ON \
    -DCMAKE_CXX_COMPILER=clang++-14 -DCMAKE_C_COMPILER=clang-14
fi
cmake --build "$BUILD" -j "$JOBS" --target "${TARGETS[@]/%/_fuzz}"

declare -A EXECS DURATION FOUND
for t in "${TARGETS[@]}"; do
  dir=$SCRATCH/$t
  mkdir -p "$dir/corpus" "$dir/artifacts"
  # Findings of an earlier run stay in artifacts/ (they may not be triaged yet) but are not
  # counted again: only files newer than this marker are this run's.
  marker=$dir/artifacts/.run-started
  touch "$marker"
  dict=()
  [[ -f tests/fuzz/$t.dict ]] && dict=(-dict="$ROOT/tests/fuzz/$t.dict")
  log=$dir/fuzz.log
  echo "run.sh: fuzzing $t for ${SECONDS_PER_TARGET}s (log $log)"
  start=$(date +%s)
  # Fork mode runs the fuzzing in a child process and carries on past a finding; the first
  # corpus directory is where new entries are written.
  (cd "$dir" && nice -n "$NICE" "$ROOT/$BUILD/bin/${t}_fuzz" -fork=1 -ignore_crashes=1 \
    -ignore_timeouts=1 -ignore_ooms=1 -timeout=10 -rss_limit_mb=2048 \
    -max_len="$(max_len "$t")" -max_total_time="$SECONDS_PER_TARGET" \
    -artifact_prefix="$dir/artifacts/" "${dict[@]}" "$dir/corpus" "$ROOT/tests/fuzz/corpus/$t") \
    >"$log" 2>&1 || true
  DURATION[$t]=$(($(date +%s) - start))
  # Fork mode's status lines read "#<executions>: cov: ... oom/timeout/crash: a/b/c ...".
  EXECS[$t]=$(grep -oE '^#[0-9]+(: cov|[[:space:]]+DONE)' "$log" | tail -1 | cut -d: -f1 | tr -dc 0-9 || true)
  FOUND[$t]=$(find "$dir/artifacts" -type f -newer "$marker" | wc -l)
  echo "run.sh: $t: ${EXECS[$t]:-?} executions in ${DURATION[$t]}s, ${FOUND[$t]} findings"
done

echo
printf '%-10s %14s %10s %9s  %s\n' target executions seconds findings artifacts
status=0
for t in "${TARGETS[@]}"; do
  printf '%-10s %14s %10s %9s  %s\n' "$t" "${EXECS[$t]:-?}" "${DURATION[$t]}" "${FOUND[$t]}" \
    "$SCRATCH/$t/artifacts"
  [[ ${FOUND[$t]} -eq 0 ]] || status=1
done
exit $status
