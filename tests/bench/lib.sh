# Shared set-up of the benchmarks that run a real cubd on a throwaway PostgreSQL. Source it after
# setting `root` (the checkout), `bin` (the built binaries), `work` (a scratch directory the
# benchmark owns), `port` (PostgreSQL's) and `grpc_port` (cubd's).
#
#   bench_db_start            starts PostgreSQL in $work/pg, creates the database `bench`,
#                             applies the migrations; sets `url` (the owner's URL)
#   bench_user NAME [FLAGS]   creates a user (cubd user create) and prints its token
#   bench_cubd_start          starts `cubd serve` as the runtime role on $grpc_port, waits until
#                             it answers; sets `cubd_pid` and CUB_SERVER
#   bench_cleanup             stops cubd and PostgreSQL and removes $work (for `trap ... EXIT`)
#   bench_rss                 cubd's peak resident memory (VmHWM), as "N.N MB"
#   bench_prod_variants N [CHUNK]  bench-prod-1..N of bench-base (Stage Production), in bulk

bench_db_start() {
  bash "$root/tests/harness/pg.sh" start "$work/pg" "$port" >/dev/null
  psql -q "postgresql://cub_test@127.0.0.1:$port/postgres" -c "CREATE DATABASE bench" >/dev/null
  url="postgresql://cub_test@127.0.0.1:$port/bench"
  "$bin/cubd" migrate --database-url "$url" >/dev/null
}

bench_user() {
  "$bin/cubd" user create "$@" --database-url "$url" 2>/dev/null
}

bench_cubd_start() {
  "$bin/cubd" serve --database-url "postgresql://cub_serve@127.0.0.1:$port/bench" \
    --listen "127.0.0.1:$grpc_port" --signing-key "$work/signing-key.pem" \
    --work-dir "$work/cubd-work" 2>>"$work/cubd.log" &
  cubd_pid=$!
  export CUB_SERVER="127.0.0.1:$grpc_port"
  local _
  for _ in $(seq 50); do "$bin/cub" whoami >/dev/null 2>&1 && return 0; sleep 0.1; done
  "$bin/cub" whoami >/dev/null  # the last try's error, on stderr
}

bench_cleanup() {
  [[ -n "${cubd_pid:-}" ]] && kill "$cubd_pid" 2>/dev/null && wait "$cubd_pid" 2>/dev/null
  bash "$root/tests/harness/pg.sh" stop "$work/pg" "$port" >/dev/null 2>&1 || true
  rm -rf "$work"
}

bench_rss() { awk '/^VmHWM/ { printf "%.1f MB", $2 / 1024 }' "/proc/$cubd_pid/status"; }

# bench_prod_variants N [CHUNK]: the variants bench-prod-1..N of bench-base, labelled Stage
# Production, made by bulk `cub variant create --names-file`, CHUNK (default 1000) a call.
# Exits the benchmark, printing cubd's refusal, when a call fails.
bench_prod_variants() {
  local n=$1 chunk=${2:-1000} first last
  for ((first = 1; first <= n; first += chunk)); do
    last=$((first + chunk - 1))
    ((last <= n)) || last=$n
    seq "$first" "$last" | sed 's/^/bench-prod-/' >"$work/names"
    if ! "$bin/cub" --timeout 1800 --quiet variant create bench-base --names-file "$work/names" \
        --stage Production 2>"$work/variants.err"; then
      echo "cub variant create bench-prod-$first..$last failed:" >&2
      head -20 "$work/variants.err" >&2
      exit 1
    fi
  done
}
