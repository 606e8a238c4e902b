#!/usr/bin/env bash
# A throwaway PostgreSQL 15 for the integration and end-to-end tests.
#
#   pg.sh start DIR PORT   stop any server an earlier run left in DIR, wipe DIR, initdb a fresh
#                          cluster (superuser cub_test, trust auth, UTF8) and start it on
#                          127.0.0.1:PORT with a unix socket beside the data. Returns once the
#                          server accepts connections. Tests then use
#                          postgresql://cub_test@127.0.0.1:PORT/postgres (the superuser, who
#                          migrates and so owns each test database), and serve as the runtime
#                          login role cub_serve (member of cub_runtime), created here.
#   pg.sh stop DIR PORT    fast shutdown and removal of the cluster (the log stays); succeeds
#                          when nothing is running.
#
# CTest runs these as the setup and cleanup of the `pg` fixture (tests/CMakeLists.txt).
#
# Layout: the cluster lives in ROOT, which is DIR itself, or, when running as root and the
# `postgres` user cannot reach DIR (e.g. a checkout under /root), a directory under /tmp whose
# path is recorded in DIR/location. ROOT holds data/ (the cluster), sock/ (the unix socket,
# unless that path would be too long, then DIR/socket names a short dir under /tmp) and
# postgres.log (initdb's and the server's output; DIR/postgres.log points to it).
#
# Settings trade durability for speed (fsync=off ...): the data is thrown away by the next start.
set -euo pipefail

PG_BIN=${CUB_PG_BINDIR:-/usr/lib/postgresql/15/bin}

usage() {
  echo "usage: $0 start|stop DIR PORT" >&2
  exit 2
}

[[ $# -eq 3 ]] || usage
cmd=$1
port=$3
[[ $port =~ ^[0-9]+$ ]] || { echo "pg.sh: bad port '$port'" >&2; exit 2; }
dir=$2
[[ -n $dir ]] || usage
mkdir -p "$dir"
dir=$(cd "$dir" && pwd -P)

as_root=0
[[ $(id -u) -eq 0 ]] && as_root=1

# Runs a command as the cluster's owner: `postgres` when we are root (the server refuses to run
# as root), ourselves otherwise. Runs from / so that an unreadable cwd causes no warnings.
as_owner() {
  if ((as_root)); then
    (cd / && runuser -u postgres -- "$@")
  else
    (cd / && "$@")
  fi
}

# Where the cluster of DIR lives (see Layout above).
root_of() {
  if [[ -f $dir/location ]]; then
    cat "$dir/location"
  else
    echo "$dir"
  fi
}

socket_of() {
  if [[ -f $dir/socket ]]; then
    cat "$dir/socket"
  else
    echo "$(root_of)/sock"
  fi
}

log_tail() {
  local log
  log="$(root_of)/postgres.log"
  if [[ -f $log ]]; then
    echo "---- last lines of $log ----" >&2
    tail -n 40 "$log" >&2
    echo "----" >&2
  fi
}

# Stops the server whose cluster is in ROOT/data, if any. Never fails on "not running".
stop_server() {
  local data
  data="$(root_of)/data"
  [[ -f $data/PG_VERSION ]] || return 0
  if [[ ! -f $data/postmaster.pid ]]; then
    return 0
  fi
  local out rc=0
  out=$(as_owner "$PG_BIN/pg_ctl" stop -D "$data" -m fast -w -t 60 2>&1) || rc=$?
  if ((rc != 0)); then
    # pg_ctl status exits 3 when no server runs (stale or no pid file): that is success here.
    local st=0
    as_owner "$PG_BIN/pg_ctl" status -D "$data" >/dev/null 2>&1 || st=$?
    if ((st == 3)); then
      return 0
    fi
    echo "pg.sh: could not stop the server in $data: $out" >&2
    log_tail
    return 1
  fi
}

# Removes ROOT (if it is a /tmp location of ours) and everything start creates under DIR.
wipe() {
  local root
  root=$(root_of)
  if [[ $root != "$dir" && $root == /tmp/cub-testpg.* ]]; then
    rm -rf -- "$root"
  fi
  if [[ -f $dir/socket ]]; then
    local sock
    sock=$(cat "$dir/socket")
    [[ $sock == /tmp/cub-testpg-sock.* ]] && rm -rf -- "$sock"
  fi
  rm -rf -- "$dir/data" "$dir/sock" "$dir/postgres.log" "$dir/location" "$dir/socket"
}

start() {
  if [[ ! -x $PG_BIN/initdb ]]; then
    echo "pg.sh: $PG_BIN/initdb not found; install postgresql-15 (deploy/local/install-deps.sh)" >&2
    exit 1
  fi
  if ((as_root)) && ! id postgres >/dev/null 2>&1; then
    echo "pg.sh: running as root needs the 'postgres' system user (install postgresql-15)" >&2
    exit 1
  fi

  stop_server || true
  wipe

  local root=$dir
  if ((as_root)); then
    chown postgres: "$dir"
    if ! runuser -u postgres -- test -w "$dir" -a -x "$dir" 2>/dev/null; then
      # The postgres user cannot traverse DIR's parents: keep the cluster under /tmp instead.
      chown root: "$dir"
      root=$(mktemp -d /tmp/cub-testpg.XXXXXXXX)
      chown postgres: "$root"
      chmod 0700 "$root"
      echo "$root" >"$dir/location"
    fi
  fi

  local data=$root/data log=$root/postgres.log
  local sock=$root/sock
  # A unix socket path holds at most 107 bytes: "$sock/.s.PGSQL.$port" must fit.
  if (( ${#sock} + 20 > 100 )); then
    sock=$(mktemp -d /tmp/cub-testpg-sock.XXXXXXXX)
    echo "$sock" >"$dir/socket"
  else
    mkdir -p "$sock"
  fi
  chmod 0700 "$sock"
  : >"$log"
  if ((as_root)); then
    chown postgres: "$sock" "$log"
  fi
  [[ $root == "$dir" ]] || ln -sfn "$log" "$dir/postgres.log"

  local locale=C.UTF-8 locales
  locales=$(locale -a 2>/dev/null || true)
  grep -qix 'c.utf-\?8' <<<"$locales" || locale=C
  if ! as_owner "$PG_BIN/initdb" -D "$data" -U cub_test --auth=trust -E UTF8 \
      --locale="$locale" --no-sync >>"$log" 2>&1; then
    echo "pg.sh: initdb failed" >&2
    log_tail
    exit 1
  fi

  cat >>"$data/postgresql.conf" <<EOF

# --- tests/harness/pg.sh: a throwaway server for tests ---
listen_addresses = '127.0.0.1'
port = $port
unix_socket_directories = '$sock'
fsync = off
synchronous_commit = off
full_page_writes = off
max_connections = 300
shared_buffers = 128MB
EOF

  if ! as_owner "$PG_BIN/pg_ctl" start -D "$data" -l "$log" -w -t 60 >/dev/null 2>&1; then
    echo "pg.sh: the server did not start (port $port in use by another server?)" >&2
    log_tail
    exit 1
  fi
  if ! "$PG_BIN/pg_isready" -q -h 127.0.0.1 -p "$port" -U cub_test -d postgres -t 10; then
    echo "pg.sh: the server started but does not answer on 127.0.0.1:$port" >&2
    log_tail
    exit 1
  fi
  # The runtime roles cubd serves as (docs/operations.md, "Database roles"), once per cluster:
  # the tests' databases are migrated by cub_test (the owner) and served as cub_serve.
  if ! "$PG_BIN/psql" -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$port" -U cub_test -d postgres \
      -c "CREATE ROLE cub_runtime NOLOGIN" -c "CREATE ROLE cub_serve LOGIN IN ROLE cub_runtime" \
      >>"$log" 2>&1; then
    echo "pg.sh: creating the roles cub_runtime and cub_serve failed" >&2
    log_tail
    exit 1
  fi
  echo "pg.sh: PostgreSQL up: postgresql://cub_test@127.0.0.1:$port/postgres (cluster $data)"
  echo "pg.sh: serve as postgresql://cub_serve@127.0.0.1:$port/DATABASE"
}

case $cmd in
  start) start ;;
  stop)
    stop_server
    # The cluster is worth nothing once stopped (start wipes it): free the disk, keep the log.
    rm -rf -- "$(root_of)/data"
    echo "pg.sh: stopped (cluster $(root_of)/data)"
    ;;
  *) usage ;;
esac
