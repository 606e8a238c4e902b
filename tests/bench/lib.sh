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
#   bench_git_target_and_change UNITS  a Git Target for Production, the change bench-base/bench-v2

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

# bench_git_target_and_change: the Git Target bench-workflows/gitops on a bare repository
# $work/gitops (sets `repo`), made the release Target of every Production Space (by SQL: setup
# only), then a new image tag :v2 in each of the UNITS Units svcI of bench-base and the
# ChangeOrder bench-base/bench-v2 on the workflow bench-workflows/main. Arguments: UNITS.
bench_git_target_and_change() {
  local units=$1 i
  # A bare repository, as a Git host keeps one: cubd commits to it without a work tree to check
  # out (a non-bare one would also get its 10,000 files written into the work tree).
  repo=$work/gitops
  git init -q --bare -b main "$repo"
  "$bin/cub" --quiet target create --space bench-workflows gitops --provider Git \
    --param "repository=$repo" --param 'path=clusters/{space}'
  psql -X -q -v ON_ERROR_STOP=1 "$url" -c "UPDATE spaces SET release_target_id =
    (SELECT t.id FROM targets t WHERE t.slug = 'gitops') WHERE labels->>'Stage' = 'Production'"
  for i in $(seq "$units"); do
    "$bin/cub" --quiet function set --space bench-base --unit "svc$i" --change-desc v2 \
      -- set-image-reference-by-uri "ghcr.io/acme/svc$i" :v2
  done
  "$bin/cub" --quiet changeorder create --space bench-base bench-v2 --description v2 \
    --change-workflow bench-workflows/main
}
