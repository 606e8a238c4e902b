#!/usr/bin/env bash
# Installs what is missing, builds, installs the test OpenID provider's npm packages, and runs
# every test with CTest (unit, integration, e2e; the `pg` fixture starts and stops the tests'
# PostgreSQL). Exits with CTest's exit code, and prints
# CTest's closing summary line ("N% tests passed, N tests failed out of N") last.
# Extra arguments go to ctest (e.g. -L unit, -R where).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd -P)
cd "$ROOT"

bash deploy/local/install-deps.sh
bash deploy/local/build.sh

# The tests' OpenID provider (tests/oidc): its npm packages exactly as package-lock.json pins
# them. npm's own cache (~/.npm) makes a rerun offline; `npm ci` replaces node_modules each time.
# Without them (no registry, no cache) the other tests still run; the OpenID ones fail saying so.
(cd tests/oidc && npm ci --prefer-offline --no-audit --no-fund --loglevel=error) ||
  echo "test.sh: npm ci in tests/oidc failed: the OpenID tests (e2e.oidc_*) will fail" >&2
# The dashboard's browser test (tests/ui): playwright-core as its lockfile pins it, which drives
# Debian's /usr/bin/chromium (install-deps.sh); it downloads no browser of its own.
(cd tests/ui && npm ci --prefer-offline --no-audit --no-fund --loglevel=error) ||
  echo "test.sh: npm ci in tests/ui failed: the browser test (e2e.ui_dashboard) will fail" >&2

cd build
rc=0
ctest --output-on-failure --no-tests=error -j2 "$@" 2>&1 | tee ctest.log || rc=${PIPESTATUS[0]}
summary=$(grep -E '^[0-9]+% tests passed' ctest.log | tail -n 1 || true)
echo
if [[ -n $summary ]]; then
  echo "$summary"
else
  echo "ctest printed no summary (exit code $rc)"
fi
exit "$rc"
