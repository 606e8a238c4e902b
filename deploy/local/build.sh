#!/usr/bin/env bash
# Configures (Ninja, RelWithDebInfo) and builds cub in build/, through ccache, with one job per
# core. Extra arguments go to the configure step (e.g. -DCUB_TEST_PG_PORT=55433).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd -P)
cd "$ROOT"

# ccache: hash paths relative to the checkout, so that a fresh clone in another directory (as CI
# makes every run) still hits the cache. Debug info then names the directory of the first build.
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$ROOT}
export CCACHE_NOHASHDIR=${CCACHE_NOHASHDIR:-1}

# A build dir configured with another generator cannot be reused by -G Ninja: start it afresh.
if [[ -f build/CMakeCache.txt ]] && ! grep -q '^CMAKE_GENERATOR:INTERNAL=Ninja$' build/CMakeCache.txt; then
  echo "build.sh: build/ was configured with another generator; reconfiguring from scratch"
  rm -rf build/CMakeCache.txt build/CMakeFiles
fi

cmake -G Ninja -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@"
cmake --build build -j "$(nproc)"
if command -v ccache >/dev/null 2>&1; then
  ccache --show-stats 2>/dev/null | grep -Ei '^(cache directory|hits|misses)|^ +(hits|misses)|cacheable' || true
fi
