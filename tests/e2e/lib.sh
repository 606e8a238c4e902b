# Shared helpers for the end-to-end tests (tests/e2e/*_test.sh). Source it first thing:
#
#   source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
#   e2e_init foundation          # fresh database, migrated, admin user, isolated CUB_CONFIG
#   e2e_start_cubd main          # cubd serve on free ports, waits until `cub whoami` works
#   expect_ok cub space list --server "$E2E_SERVER" --token "$ADMIN_TOKEN"
#   ...
#   e2e_finish                   # prints "foundation_test: N passed, 0 failed", exits 0
#
# Environment (set by tests/CMakeLists.txt for every e2e test):
#   CUB_TEST_PG_URL  superuser URL to the `postgres` database of the throwaway PostgreSQL
#   CUB_BIN_DIR      directory holding the cub and cubd binaries (put first on PATH here)
#   CUB_SOURCE_DIR   the source tree
#
# Assertions. Each runs the command with stdout, stderr and exit code captured into $OUT, $ERR
# and $RC (so the test can look at them afterwards) and counts a pass, or on failure prints
# the command, its exit code, stdout, stderr and the tail of every cubd log, and exits 1:
#   expect_ok CMD...                       exit code 0
#   expect_fail CODE "substring" CMD...    exit code CODE and stderr contains substring
#   expect_eq EXPECTED ACTUAL [WHAT]
#   expect_ne UNEXPECTED ACTUAL [WHAT]
#   expect_contains HAYSTACK NEEDLE [WHAT]
#   expect_not_contains HAYSTACK NEEDLE [WHAT]
#   expect_match HAYSTACK ERE [WHAT]
#   expect_basic_as_full SPACE [WHERE]     ListChangeOrders: View Basic is View Full less the
#                                          Space ID lists (see the function)
#   run CMD...                             capture only, never fails (then test $RC yourself)
#   e2e_fail "reason"                      fail with the report
# Call assertions from the test's own shell, not inside $(...) or ( ... ): a failure there
# aborts the whole test, and passes there are not counted. Commands run with a deadline
# (E2E_CMD_TIMEOUT seconds, default 120; none for a shell function such as a test's
# `as_bob() { env CUB_TOKEN=... "$@"; }`) and inherit stdin, so
# `expect_ok cub unit create --space s u - <file` feeds the file to cub. E2E_VERBOSE=1 prints
# every passing check. `section TITLE` prints a header line.
#
# JSON: `jget PATH [JSON]` prints the value at a dotted path (Unit.HeadRevisionNum,
# Labels.Stage, Marks.0.RevisionNum; `len` for a length: `jget len` of a list command's JSON
# array) of JSON (default: $OUT); strings print raw, other values as compact JSON, a missing
# path prints nothing and returns 1.
#
# Database roles: E2E_DB_URL is the test database as the superuser cub_test, who migrates it
# and so owns it (use it for cubd migrate, cubd user, cubd purge and psql); E2E_SERVE_URL is
# the same database as the runtime role cub_serve, which every cubd serve uses.
#
# Users: `create_user NAME [--group G] [--admin]...` runs `cubd user create` on the test
# database and prints the token. `free_port` prints a TCP port nobody listens on.
#
# Servers: e2e_start_cubd NAME starts `cubd serve` against the test database on two free ports
# and records CUBD_PID[NAME], CUBD_GRPC[NAME] (HOST:PORT), CUBD_HTTP[NAME] (HOST:PORT) and
# CUBD_LOG[NAME]; the first one started also sets E2E_SERVER and E2E_HTTP. e2e_stop_cubd NAME
# sends SIGTERM and waits, leaving the exit code in $CUBD_RC. An EXIT trap stops every cubd
# still running, drops the database and removes the temporary directory (kept when
# E2E_KEEP=1 is set, for debugging).
#
# OpenID providers: oidc_start, oidc_set_groups, oidc_mint, oidc_ci_token,
# oidc_device_login_as... (see the section at the end); the EXIT trap stops them too.

# shellcheck disable=SC2034  # Variables set here are for the sourcing test to use.

# Not -e: assertions decide what is fatal. pipefail makes `a | b` report a's failure.
set -uo pipefail
# The last command of a pipeline runs in this shell, so `... | expect_ok cub ...` keeps the
# globals an assertion sets (non-interactive shells have no job control, which lastpipe needs).
shopt -s lastpipe

E2E_NAME=${E2E_NAME:-$(basename "${0%.sh}")}
E2E_MAIN_PID=$BASHPID
E2E_PASSED=0
E2E_FAILED=0
E2E_CMD_TIMEOUT=${E2E_CMD_TIMEOUT:-120}
E2E_TMP=""
E2E_DB=""
E2E_DB_URL=""
E2E_SERVE_URL=""
E2E_SERVER=""
E2E_HTTP=""
ADMIN_TOKEN=""
OUT=""
ERR=""
RC=0
declare -A CUBD_PID=() CUBD_GRPC=() CUBD_HTTP=() CUBD_LOG=()
CUBD_RC=0

_e2e_die_setup() {
  echo "$E2E_NAME: setup failed: $*" >&2
  E2E_FAILED=$((E2E_FAILED + 1))
  # Before e2e_init installs the EXIT trap, the summary line is ours to print.
  [[ -n $E2E_TMP ]] || echo "$E2E_NAME: $E2E_PASSED passed, $E2E_FAILED failed"
  exit 1
}

for _v in CUB_TEST_PG_URL CUB_BIN_DIR; do
  [[ -n ${!_v:-} ]] || _e2e_die_setup "$_v is not set (run through ctest, or export it)"
done
unset _v
CUB_SOURCE_DIR=${CUB_SOURCE_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
for _b in cub cubd; do
  [[ -x $CUB_BIN_DIR/$_b ]] || _e2e_die_setup "$CUB_BIN_DIR/$_b is missing: build it first"
done
unset _b
export PATH="$CUB_BIN_DIR:$PATH"
command -v python3 >/dev/null || _e2e_die_setup "python3 is required"
if command -v psql >/dev/null; then
  E2E_PSQL=psql
elif [[ -x ${CUB_PG_BINDIR:-/usr/lib/postgresql/15/bin}/psql ]]; then
  E2E_PSQL=${CUB_PG_BINDIR:-/usr/lib/postgresql/15/bin}/psql
else
  _e2e_die_setup "psql is required"
fi

# Nothing from the caller's environment may leak into the CLI under test.
unset CUB_SERVER CUB_TOKEN CUB_CONFIG XDG_CONFIG_HOME GRPC_VERBOSITY

# ---------------------------------------------------------------------------------------------
# Reporting

_e2e_cubd_tails() {
  local name
  for name in "${!CUBD_LOG[@]}"; do
    [[ -f ${CUBD_LOG[$name]} ]] || continue
    echo "---- last lines of cubd '$name' log (${CUBD_LOG[$name]}) ----"
    tail -n 25 "${CUBD_LOG[$name]}"
  done
}

_e2e_quote() {
  local out="" a
  for a in "$@"; do out+="$(printf '%q' "$a") "; done
  printf '%s' "${out% }"
}

# "file:line" of the innermost caller outside this file (the test's line that failed).
_e2e_where() {
  local i
  for ((i = 0; i < ${#BASH_LINENO[@]}; i++)); do
    local src=${BASH_SOURCE[i + 1]:-}
    if [[ -n $src && $src != "${BASH_SOURCE[0]}" ]]; then
      echo "$(basename "$src"):${BASH_LINENO[i]}"
      return
    fi
  done
  echo "$E2E_NAME"
}

# Prints the failure report and exits 1. Arguments: a one-line reason.
e2e_fail() {
  E2E_FAILED=$((E2E_FAILED + 1))
  {
    echo
    echo "FAIL [$(_e2e_where)]: $*"
    if [[ -n ${_E2E_LAST_CMD:-} ]]; then
      echo "---- command: $_E2E_LAST_CMD"
      echo "---- exit code: $RC"
      echo "---- stdout:"
      printf '%s\n' "$OUT"
      echo "---- stderr:"
      printf '%s\n' "$ERR"
    fi
    _e2e_cubd_tails
    echo "----"
  } >&2
  if [[ $BASHPID != "$E2E_MAIN_PID" ]]; then
    # An assertion inside $(...) or ( ... ): exiting the subshell alone would go unnoticed.
    echo "$E2E_NAME: (that assertion ran in a subshell; aborting the test)" >&2
    kill -TERM "$E2E_MAIN_PID"
  fi
  exit 1
}

_e2e_pass() {
  E2E_PASSED=$((E2E_PASSED + 1))
  if [[ -n ${E2E_VERBOSE:-} ]]; then echo "ok $E2E_PASSED: $*"; fi
}

# Prints a section header, to make the log of a run readable.
section() { echo "== $*"; }

# ---------------------------------------------------------------------------------------------
# Running commands

# Runs "$@" capturing stdout/stderr/exit code into OUT/ERR/RC. Never fails.
run() {
  _E2E_LAST_CMD=$(_e2e_quote "$@")
  local o="$E2E_TMP/run.out" e="$E2E_TMP/run.err"
  if declare -F "$1" >/dev/null; then
    "$@" >"$o" 2>"$e"  # A shell function (timeout cannot run one): no deadline.
  else
    timeout -k 5 "$E2E_CMD_TIMEOUT" "$@" >"$o" 2>"$e"
  fi
  RC=$?
  OUT=$(cat "$o")
  ERR=$(cat "$e")
  if ((RC == 124)); then ERR+=$'\n'"[e2e: timed out after ${E2E_CMD_TIMEOUT}s]"; fi
  return 0
}

expect_ok() {
  run "$@"
  ((RC == 0)) || e2e_fail "expected exit code 0, got $RC"
  _e2e_pass "$_E2E_LAST_CMD"
}

expect_fail() {
  local code=$1 substring=$2
  shift 2
  run "$@"
  ((RC == code)) || e2e_fail "expected exit code $code, got $RC"
  [[ $ERR == *"$substring"* ]] || e2e_fail "expected stderr to contain: $substring"
  _e2e_pass "$_E2E_LAST_CMD"
}

expect_eq() {
  local expected=$1 actual=$2 what=${3:-value}
  [[ $expected == "$actual" ]] ||
    e2e_fail "$what: expected [$expected], got [$actual]"
  _e2e_pass "$what == $expected"
}

expect_ne() {
  local unexpected=$1 actual=$2 what=${3:-value}
  [[ $unexpected != "$actual" ]] || e2e_fail "$what: expected anything but [$unexpected]"
  _e2e_pass "$what != $unexpected"
}

expect_contains() {
  local haystack=$1 needle=$2 what=${3:-text}
  [[ $haystack == *"$needle"* ]] ||
    e2e_fail "$what: expected to contain [$needle]; it is:"$'\n'"$haystack"
  _e2e_pass "$what contains $needle"
}

expect_not_contains() {
  local haystack=$1 needle=$2 what=${3:-text}
  [[ $haystack != *"$needle"* ]] ||
    e2e_fail "$what: expected NOT to contain [$needle]; it is:"$'\n'"$haystack"
  _e2e_pass "$what lacks $needle"
}

expect_match() {
  local haystack=$1 re=$2 what=${3:-text}
  [[ $haystack =~ $re ]] || e2e_fail "$what: expected to match /$re/; it is:"$'\n'"$haystack"
  _e2e_pass "$what matches $re"
}

# expect_basic_as_full SPACE [WHERE] [TOKEN]: ListChangeOrders of SPACE ("" for every Space the
# caller sees) filtered by WHERE answers with View Basic what it answers with View Full, less
# the Space ID lists, field by field, State included, over every page (tests/e2e/basic_view.py).
# OUT holds the States listed, comma-separated in list order.
expect_basic_as_full() {
  run python3 "$CUB_SOURCE_DIR/tests/e2e/basic_view.py" "$E2E_HTTP" "${3:-$ADMIN_TOKEN}" "$1" \
    "${2:-}"
  ((RC == 0)) || e2e_fail "ListChangeOrders: View Basic differs from View Full"
  _e2e_pass "View Basic answers as View Full: $OUT"
}

# jget PATH [JSON]: see the header.
jget() {
  local path=$1 json
  if (($# > 1)); then json=$2; else json=$OUT; fi
  python3 -c '
import json, sys
path, text = sys.argv[1], sys.argv[2]
try:
    v = json.loads(text)
except ValueError as e:
    sys.stderr.write("jget: not JSON: %s\n" % e); sys.exit(2)
for part in [p for p in path.split(".") if p]:
    if part == "len" and isinstance(v, (list, dict, str)):
        v = len(v)
    elif isinstance(v, list) and part.lstrip("-").isdigit() and -len(v) <= int(part) < len(v):
        v = v[int(part)]
    elif isinstance(v, dict) and part in v:
        v = v[part]
    else:
        sys.exit(1)
print(v if isinstance(v, str) else json.dumps(v, separators=(",", ":"), sort_keys=True))
' "$path" "$json"
}

# ---------------------------------------------------------------------------------------------
# Database and servers

# A TCP port nobody listens on right now (the kernel's pick).
free_port() {
  python3 -c 'import socket
s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

# The URL of database $1 on the test server: CUB_TEST_PG_URL with its path replaced.
_e2e_db_url() {
  local url=$CUB_TEST_PG_URL query=""
  if [[ $url == *\?* ]]; then
    query="?${url#*\?}"
    url=${url%%\?*}
  fi
  local scheme=${url%%://*} rest=${url#*://}
  rest=${rest%%/*}
  echo "$scheme://$rest/$1$query"
}

# The same database as the runtime role cub_serve (tests/harness/pg.sh creates it).
_e2e_serve_url() {
  local url=$1
  local scheme=${url%%://*} rest=${url#*://}
  local host=${rest%%/*} path=${rest#*/}
  host=${host#*@}
  echo "$scheme://cub_serve@$host/$path"
}

_e2e_psql() { "$E2E_PSQL" -X -q -v ON_ERROR_STOP=1 "$CUB_TEST_PG_URL" "$@"; }

# e2e_init [TAG]: temp dir, CUB_CONFIG, fresh database e2e_<TAG>_<pid>_<random> (TAG defaults
# to the script's name without _test), migrations, the admin user. Reports keep naming the
# test by its script (E2E_NAME, e.g. foundation_test).
e2e_init() {
  local tag=${1:-${E2E_NAME%_test}}
  E2E_TMP=$(mktemp -d "${TMPDIR:-/tmp}/cub-e2e-$tag.XXXXXX") || _e2e_die_setup "mktemp"
  trap _e2e_exit EXIT
  trap 'exit 130' INT
  trap 'exit 143' TERM
  export CUB_CONFIG="$E2E_TMP/cub-config.json"

  local safe=${tag//[^a-zA-Z0-9_]/_}
  E2E_DB="e2e_${safe,,}_$$_${RANDOM}${RANDOM}"
  local out
  out=$(_e2e_psql -c "CREATE DATABASE $E2E_DB" 2>&1) ||
    { E2E_DB=""; _e2e_die_setup "CREATE DATABASE failed: $out"; }
  E2E_DB_URL=$(_e2e_db_url "$E2E_DB")
  E2E_SERVE_URL=$(_e2e_serve_url "$E2E_DB_URL")

  out=$(cubd migrate --database-url "$E2E_DB_URL" 2>&1) ||
    _e2e_die_setup "cubd migrate failed: $out"
  ADMIN_TOKEN=$(cubd user create admin --admin --database-url "$E2E_DB_URL" 2>"$E2E_TMP/user.err") ||
    _e2e_die_setup "cubd user create admin failed: $(cat "$E2E_TMP/user.err")"
  [[ -n $ADMIN_TOKEN ]] || _e2e_die_setup "cubd user create admin printed no token"
  echo "$E2E_NAME: database $E2E_DB, temp dir $E2E_TMP"
}

# db ARGS...: psql as the owner on this test's database, unaligned and quiet (db -c "SQL").
db() { "$E2E_PSQL" -X -q -A -t -v ON_ERROR_STOP=1 "$E2E_DB_URL" "$@"; }
# as TOKEN COMMAND...: runs COMMAND as another user.
as() { local t=$1; shift; env CUB_TOKEN="$t" "$@"; }

# wait_for DESCRIPTION SQL: polls SQL (as the owner) until it prints 't', for up to 30 s.
wait_for() {
  local what=$1 sql=$2 deadline=$((SECONDS + 30))
  while ((SECONDS < deadline)); do
    [[ $(db -c "$sql") == t ]] && { _e2e_pass "$what"; return 0; }
    sleep 0.1
  done
  _E2E_LAST_CMD="$sql"
  e2e_fail "timed out waiting for: $what"
}
# The engine has nothing left to do (every work row finished, none backed off).
engine_idle() {
  wait_for "engine idle" "SELECT NOT EXISTS (SELECT 1 FROM engine_work WHERE due_at <= now())"
}

# deployment TAG: the sample Deployment the engine-era tests promote, with image tag TAG.
deployment() {
  cat <<YAML
apiVersion: apps/v1
kind: Deployment
metadata:
  name: acme
spec:
  template:
    spec:
      containers:
        - name: acme
          image: ghcr.io/acme/acme:$1
YAML
}

# create_user NAME [cubd user create flags...]: prints the new user's token.
create_user() {
  cubd user create "$@" --database-url "$E2E_DB_URL"
}

# e2e_start_cubd NAME [extra cubd serve flags...]
e2e_start_cubd() {
  local name=$1
  shift
  local attempt grpc_port http_port log="$E2E_TMP/cubd-$name.log" pid
  for attempt in 1 2 3; do
    grpc_port=$(free_port)
    http_port=$(free_port)
    [[ $grpc_port != "$http_port" ]] || continue
    # Every cubd of a test shares one signing key and work directory, as a deployment would.
    cubd serve --database-url "$E2E_SERVE_URL" --listen "127.0.0.1:$grpc_port" \
      --http-listen "127.0.0.1:$http_port" --signing-key "$E2E_TMP/signing-key.pem" \
      --work-dir "$E2E_TMP/cubd-work" "$@" >>"$log" 2>&1 </dev/null &
    pid=$!
    CUBD_PID[$name]=$pid
    CUBD_GRPC[$name]="127.0.0.1:$grpc_port"
    CUBD_HTTP[$name]="127.0.0.1:$http_port"
    CUBD_LOG[$name]=$log
    local deadline=$((SECONDS + 30))
    while ((SECONDS < deadline)); do
      if ! kill -0 "$pid" 2>/dev/null; then
        wait "$pid" 2>/dev/null
        unset "CUBD_PID[$name]"
        break  # Exited (a port taken in the meantime?): try other ports.
      fi
      if cub whoami --server "127.0.0.1:$grpc_port" --token "$ADMIN_TOKEN" --timeout 2 \
          >/dev/null 2>&1; then
        if [[ -z $E2E_SERVER ]]; then
          E2E_SERVER="127.0.0.1:$grpc_port"
          E2E_HTTP="127.0.0.1:$http_port"
        fi
        return 0
      fi
      sleep 0.2
    done
    if [[ -n ${CUBD_PID[$name]:-} ]]; then
      _E2E_LAST_CMD=""
      e2e_fail "cubd '$name' did not answer cub whoami within 30s"
    fi
  done
  _E2E_LAST_CMD=""
  e2e_fail "cubd '$name' could not start (see its log)"
}

# e2e_stop_cubd NAME: SIGTERM, wait (SIGKILL after 30s); exit code in $CUBD_RC.
e2e_stop_cubd() {
  local name=$1 pid=${CUBD_PID[$1]:-}
  CUBD_RC=0
  [[ -n $pid ]] || return 0
  kill -TERM "$pid" 2>/dev/null
  local deadline=$((SECONDS + 30))
  while kill -0 "$pid" 2>/dev/null && ((SECONDS < deadline)); do sleep 0.1; done
  if kill -0 "$pid" 2>/dev/null; then
    echo "$E2E_NAME: cubd '$name' ignored SIGTERM for 30s; killing it" >&2
    kill -KILL "$pid" 2>/dev/null
  fi
  wait "$pid" 2>/dev/null
  CUBD_RC=$?
  unset "CUBD_PID[$name]"
}

_e2e_exit() {
  local rc=$?
  trap - EXIT INT TERM
  local name
  for name in "${!CUBD_PID[@]}"; do e2e_stop_cubd "$name"; done
  ((${#OIDC_ALL_PIDS[@]} == 0)) || _oidc_stop_all
  if ((rc != 0 && E2E_FAILED == 0)); then
    # Died outside an assertion (set -u, a signal...): that is a failure too.
    E2E_FAILED=1
    echo "$E2E_NAME: aborted with exit code $rc" >&2
    _e2e_cubd_tails >&2
  fi
  if [[ -n $E2E_DB ]]; then
    _e2e_psql -c "DROP DATABASE IF EXISTS $E2E_DB WITH (FORCE)" >/dev/null 2>&1 || true
  fi
  if [[ -n $E2E_TMP && -d $E2E_TMP ]]; then
    if [[ -n ${E2E_KEEP:-} ]]; then
      echo "$E2E_NAME: kept $E2E_TMP"
    else
      rm -rf -- "$E2E_TMP"
    fi
  fi
  echo "$E2E_NAME: $E2E_PASSED passed, $E2E_FAILED failed"
  if ((E2E_FAILED > 0 && rc == 0)); then rc=1; fi
  exit "$rc"
}

e2e_finish() {
  exit 0
}

# ---------------------------------------------------------------------------------------------
# The test OpenID provider (tests/oidc/provider.mjs: oidc-provider from npm, `npm ci` in
# tests/oidc first; deploy/local/test.sh does it).
#
#   oidc_start [PORT] [DIR] [provider.mjs flags...]
#       starts it on PORT (default: a free port) with its files in DIR (default
#       $E2E_TMP/oidc), waits until discovery answers, prints and exports OIDC_ISSUER
#       (http://127.0.0.1:PORT); also sets OIDC_PORT, OIDC_DIR, OIDC_PID, OIDC_KEYS,
#       OIDC_ACCOUNTS, OIDC_CI_SECRET (client cub-ci's secret), OIDC_LOG. Accounts start empty:
#       add them with oidc_set_groups. Call it from the test's shell, not in $(...).
#       A second oidc_start (with another DIR) starts another provider, a second issuer; the
#       OIDC_* variables and the helpers below then refer to it, until `oidc_use DIR`.
#   oidc_use DIR                      the helpers act on the provider started in DIR again
#   oidc_stop                         SIGTERM and wait (the EXIT trap stops every provider)
#   oidc_rotate_keys [--keep-old]     new signing keys (--keep-old: the old ones stay published),
#                                     reloaded by SIGHUP; waits until the JWKS shows them;
#                                     sets OIDC_KID (the new RS256 kid)
#   oidc_set_groups USER [G1,G2...]   creates or updates account USER (email USER@example.com)
#                                     with these groups; the next login sees them
#   oidc_set_ci_claims JSON           the extra claims of cub-ci's access tokens
#                                     (default {"repository":"acme/app"})
#   oidc_mint [mint.mjs flags...] [CLAIMS_JSON]   prints a JWT signed with the provider's key
#                                     (or --stranger's); iss defaults to OIDC_ISSUER
#   oidc_ci_token [AUDIENCE]          client_credentials as cub-ci; prints the access token (a
#                                     JWT, aud AUDIENCE, default cubd)
#   oidc_browser USER                 prints a $BROWSER value that logs in as USER
#   oidc_device_login_as USER -- CMD...
#       runs CMD (a device-flow login such as cub auth login --oidc --device ...), reads the
#       "Or open: URL" line it prints on stderr, completes the login as USER with
#       interact.mjs, and returns CMD's exit code with its stdout and stderr as its own (so
#       `expect_ok oidc_device_login_as alice -- cub auth login ...` works).

OIDC_ISSUER=""
OIDC_PID=""
OIDC_DIR=""
OIDC_ALL_PIDS=()
OIDC_SRC="$CUB_SOURCE_DIR/tests/oidc"

oidc_start() {
  local port="" dir=""
  if [[ ${1:-} =~ ^[0-9]+$ ]]; then port=$1; shift; fi
  if [[ -n ${1:-} && ${1:-} != --* ]]; then dir=$1; shift; fi
  command -v node >/dev/null || _e2e_die_setup "node is required for the OpenID provider"
  [[ -d $OIDC_SRC/node_modules/oidc-provider ]] ||
    _e2e_die_setup "$OIDC_SRC/node_modules is missing: run (cd tests/oidc && npm ci)"
  OIDC_DIR=${dir:-$E2E_TMP/oidc}
  mkdir -p "$OIDC_DIR"
  OIDC_KEYS=$OIDC_DIR/keys.json
  OIDC_ACCOUNTS=$OIDC_DIR/accounts.json
  OIDC_CI_SECRET="ci-secret-$RANDOM$RANDOM"
  OIDC_LOG=$OIDC_DIR/provider.log
  printf '%s\n' "$OIDC_CI_SECRET" >"$OIDC_DIR/ci-secret"
  [[ -f $OIDC_ACCOUNTS ]] || echo '{}' >"$OIDC_ACCOUNTS"
  [[ -f $OIDC_DIR/ci-claims.json ]] || echo '{"repository": "acme/app"}' >"$OIDC_DIR/ci-claims.json"
  OIDC_KID=$(node "$OIDC_SRC/keys.mjs" "$OIDC_KEYS" 2>&1) ||
    _e2e_die_setup "keys.mjs failed: $OIDC_KID"
  OIDC_KID=${OIDC_KID%% *}
  local attempt
  for attempt in 1 2 3; do
    OIDC_PORT=${port:-$(free_port)}
    node "$OIDC_SRC/provider.mjs" --port "$OIDC_PORT" --accounts "$OIDC_ACCOUNTS" \
      --keys "$OIDC_KEYS" --ci-secret-file "$OIDC_DIR/ci-secret" \
      --ci-claims "$OIDC_DIR/ci-claims.json" "$@" >>"$OIDC_LOG" 2>&1 </dev/null &
    OIDC_PID=$!
    export OIDC_ISSUER="http://127.0.0.1:$OIDC_PORT"
    local deadline=$((SECONDS + 60))
    while ((SECONDS < deadline)) && kill -0 "$OIDC_PID" 2>/dev/null; do
      if curl -sf --max-time 2 "$OIDC_ISSUER/.well-known/openid-configuration" 2>/dev/null |
          grep -q "\"issuer\":\"$OIDC_ISSUER\""; then
        OIDC_ALL_PIDS+=("$OIDC_PID")
        _oidc_save
        echo "$OIDC_ISSUER"
        return 0
      fi
      sleep 0.2
    done
    if kill -0 "$OIDC_PID" 2>/dev/null; then
      _E2E_LAST_CMD=""
      e2e_fail "the OpenID provider did not answer discovery within 60s (log: $(tail -n 20 "$OIDC_LOG"))"
    fi
    wait "$OIDC_PID" 2>/dev/null
    OIDC_PID=""
    [[ -z $port ]] || break  # A given port that is taken: no other to try.
  done
  _E2E_LAST_CMD=""
  e2e_fail "the OpenID provider could not start: $(tail -n 20 "$OIDC_LOG")"
}

# The current provider's variables, for oidc_use.
_oidc_save() {
  local v
  for v in OIDC_PORT OIDC_DIR OIDC_PID OIDC_KEYS OIDC_ACCOUNTS OIDC_CI_SECRET OIDC_LOG \
      OIDC_ISSUER OIDC_KID; do
    printf '%s=%q\n' "$v" "${!v}"
  done >"$OIDC_DIR/env"
}

oidc_use() {
  [[ -f $1/env ]] || { _E2E_LAST_CMD=""; e2e_fail "oidc_use: no provider was started in $1"; }
  source "$1/env"
  export OIDC_ISSUER
}

_oidc_stop_pid() {
  local pid=$1
  kill -TERM "$pid" 2>/dev/null
  local deadline=$((SECONDS + 10))
  while kill -0 "$pid" 2>/dev/null && ((SECONDS < deadline)); do sleep 0.1; done
  kill -KILL "$pid" 2>/dev/null
  wait "$pid" 2>/dev/null
}

oidc_stop() {
  [[ -n $OIDC_PID ]] || return 0
  _oidc_stop_pid "$OIDC_PID"
  OIDC_PID=""
  _oidc_save
}

_oidc_stop_all() {
  local pid
  for pid in "${OIDC_ALL_PIDS[@]}"; do _oidc_stop_pid "$pid"; done
  OIDC_ALL_PIDS=()
  OIDC_PID=""
}

oidc_rotate_keys() {
  local kids
  kids=$(node "$OIDC_SRC/keys.mjs" "$OIDC_KEYS" "$@" 2>&1) ||
    { _E2E_LAST_CMD=""; e2e_fail "keys.mjs failed: $kids"; }
  OIDC_KID=${kids%% *}
  _oidc_save
  kill -HUP "$OIDC_PID"
  local deadline=$((SECONDS + 30))
  while ((SECONDS < deadline)); do
    curl -sf --max-time 2 "$OIDC_ISSUER/jwks" 2>/dev/null | grep -q "\"$OIDC_KID\"" && return 0
    sleep 0.1
  done
  _E2E_LAST_CMD=""
  e2e_fail "the provider's JWKS did not show the new key $OIDC_KID within 30s"
}

oidc_set_groups() {
  local user=$1 groups=${2:-}
  python3 - "$OIDC_ACCOUNTS" "$user" "$groups" <<'PY'
import json, os, sys
path, user, groups = sys.argv[1:]
accounts = json.load(open(path))
account = accounts.setdefault(user, {"email": user + "@example.com"})
account["groups"] = [g for g in groups.split(",") if g]
with open(path + ".tmp", "w") as f:
    json.dump(accounts, f)
os.replace(path + ".tmp", path)
PY
}

oidc_set_ci_claims() {
  printf '%s\n' "$1" >"$OIDC_DIR/ci-claims.json.tmp" && mv "$OIDC_DIR/ci-claims.json.tmp" "$OIDC_DIR/ci-claims.json"
}

oidc_mint() {
  node "$OIDC_SRC/mint.mjs" --keys "$OIDC_KEYS" --issuer "$OIDC_ISSUER" "$@"
}

oidc_ci_token() {
  local resource=() body
  [[ -z ${1:-} ]] || resource=(-d "resource=urn:cub:aud:$1")
  body=$(curl -s --max-time 10 -u "cub-ci:$OIDC_CI_SECRET" -d grant_type=client_credentials \
    "${resource[@]}" "$OIDC_ISSUER/token") || { echo "oidc_ci_token: curl failed" >&2; return 1; }
  jget access_token "$body" 2>/dev/null || { echo "oidc_ci_token: no access token: $body" >&2; return 1; }
}

oidc_browser() {
  printf 'node %q --user %q' "$OIDC_SRC/interact.mjs" "$1"
}

oidc_device_login_as() {
  local user=$1
  shift
  [[ ${1:-} == -- ]] && shift
  local o="$E2E_TMP/device-login.out" e="$E2E_TMP/device-login.err" pid url="" rc
  : >"$o"
  : >"$e"
  timeout -k 5 "$E2E_CMD_TIMEOUT" "$@" >"$o" 2>"$e" </dev/null &
  pid=$!
  local deadline=$((SECONDS + 60))
  while ((SECONDS < deadline)) && kill -0 "$pid" 2>/dev/null; do
    url=$(sed -n 's/^.*Or open: *\([^ ]*\).*$/\1/p' "$e" | head -n 1)
    [[ -n $url ]] && break
    sleep 0.1
  done
  [[ -n $url ]] || url=$(sed -n 's/^.*Or open: *\([^ ]*\).*$/\1/p' "$e" | head -n 1)
  if [[ -z $url ]]; then
    kill -TERM "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
    cat "$o"
    cat "$e" >&2
    echo "oidc_device_login_as: the command printed no 'Or open: URL' line" >&2
    return 1
  fi
  if ! node "$OIDC_SRC/interact.mjs" --user "$user" "$url" >>"$e.interact" 2>&1; then
    kill -TERM "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
    cat "$o"
    cat "$e" "$e.interact" >&2
    return 1
  fi
  wait "$pid"
  rc=$?
  cat "$o"
  cat "$e" >&2
  return "$rc"
}

# oidc_verify [--audience A] TOKEN: verifies TOKEN against the provider's JWKS with jose
# (tests/oidc/verify.mjs); prints {"header":...,"payload":...}.
oidc_verify() {
  node "$OIDC_SRC/verify.mjs" --issuer "$OIDC_ISSUER" "$@"
}
