#!/usr/bin/env bash
# Never twice, never lost: cubd is killed with SIGKILL 20 times at random moments while several
# clients publish to one Git Target on a Git host (git http-backend behind basic auth,
# tests/harness/git_http.mjs), so each delivery fetches, commits and pushes over HTTP. After
# the last kill a cubd starts and its delivery workers finish what was left. Then the
# database and the repository must agree:
#   - every Release is Delivered;
#   - each Release is named by exactly one Cub-Release trailer on the branch, and its recorded
#     commit is one whose message names it;
#   - no commit names a Release the database does not have;
#   - each Space's Release numbers run 1..N without a gap;
#   - each Space's directory on the branch holds its newest Release's file.
# Figures (Releases, kills, Releases found delivered earlier) are printed at the end.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
command -v node >/dev/null || { echo "delivery_crash_test: node is required" >&2; exit 1; }
e2e_init delivery_crash
export CUB_TOKEN=$ADMIN_TOKEN
HARNESS=$CUB_SOURCE_DIR/tests/harness

# The Git host stops with the test; lib.sh's EXIT trap runs after.
HTTP_PID=
stop_host() {
  local rc=$?
  [[ -z $HTTP_PID ]] || kill "$HTTP_PID" 2>/dev/null
  (exit "$rc")
  _e2e_exit
}
trap stop_host EXIT

KILLS=${DELIVERY_CRASH_KILLS:-20}
SPACES=(alpha beta gamma delta)
ROOT=$E2E_TMP/host
REPO=$ROOT/gitops.git
CREDS_ROOT=$E2E_TMP/creds
CREDS=$CREDS_ROOT/platform  # the files of Targets of the Space platform
# Each cubd of this test gets its own log, so the final one's is easy to read.
CUBD_ARGS=(--no-engine --delivery-workers 2 --git-credentials-dir "$CREDS_ROOT")

config() {  # config SPACE TEXT: a ConfigMap whose data names TEXT
  printf 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: %s\ndata:\n  v: "%s"\n' "$1" "$2"
}

# Updates the Space's Unit and publishes it, again and again, until cubd goes away. Every
# publish follows an update, so every Release changes its Space's directory.
publisher() {  # publisher SPACE SERVER ROUND
  local space=$1 server=$2 round=$3 n=0 file
  file=$E2E_TMP/$space.yaml
  while :; do
    n=$((n + 1))
    config "$space" "$round-$n-$RANDOM" >"$file"
    cub unit update --server "$server" --timeout 20 --space "$space" config "$file" \
      >/dev/null 2>&1 || return 0
    cub release publish "$space" --server "$server" --timeout 20 >/dev/null 2>&1 || return 0
  done
}

section "setup: ${#SPACES[@]} Spaces releasing to one Git Target on an HTTP Git host"
mkdir -p "$ROOT" "$CREDS"
git init -q --bare "$REPO" || e2e_fail "git init --bare failed"
printf 'push token\n' >"$CREDS/token"
chmod 600 "$CREDS/token"
node "$HARNESS/git_http.mjs" "$ROOT" cub 'push token' >"$E2E_TMP/http.out" 2>&1 </dev/null &
HTTP_PID=$!
for _ in $(seq 100); do
  read -r word HTTP_PORT <"$E2E_TMP/http.out" 2>/dev/null && [[ $word == listening ]] && break
  sleep 0.1
done
[[ ${HTTP_PORT:-} =~ ^[0-9]+$ ]] || e2e_fail "git_http.mjs did not start: $(cat "$E2E_TMP/http.out")"
e2e_start_cubd setup "${CUBD_ARGS[@]}"
export CUB_SERVER=${CUBD_GRPC[setup]}
expect_ok cub space create platform
expect_ok cub target create --space platform gitops --provider Git \
  --param "repository=http://127.0.0.1:$HTTP_PORT/gitops.git" --param "path=clusters/{space}" \
  --param username=cub --param password-file=token
for s in "${SPACES[@]}"; do
  expect_ok cub space create "$s"
  config "$s" "initial" >"$E2E_TMP/$s.yaml"
  expect_ok cub unit create --space "$s" config "$E2E_TMP/$s.yaml"
  expect_ok cub space update "$s" --release-target platform/gitops
  expect_ok cub release publish "$s"
  expect_contains "$OUT" "Delivery: Delivered"
done
e2e_stop_cubd setup

section "$KILLS kills of cubd during publishes"
started=$SECONDS
for ((k = 1; k <= KILLS; k++)); do
  name=round$k
  e2e_start_cubd "$name" "${CUBD_ARGS[@]}"
  server=${CUBD_GRPC[$name]}
  pids=()
  for s in "${SPACES[@]}"; do
    publisher "$s" "$server" "$k" &
    pids+=($!)
  done
  # A random moment: 50 ms to 1.5 s into the publishing.
  sleep "$(awk -v r="$RANDOM" 'BEGIN { printf "%.3f", 0.05 + (r % 1450) / 1000 }')"
  kill -9 "${CUBD_PID[$name]}" 2>/dev/null
  wait "${CUBD_PID[$name]}" 2>/dev/null
  unset "CUBD_PID[$name]"
  for p in "${pids[@]}"; do wait "$p"; done
  echo "kill $k: $(db -c "SELECT count(*) FROM releases") releases recorded," \
    "$(db -c "SELECT count(*) FROM releases WHERE delivery_state <> 'Delivered'") not delivered"
done
kill_seconds=$((SECONDS - started))

section "the next cubd finishes what was left"
e2e_start_cubd final "${CUBD_ARGS[@]}"
wait_for "every Release Delivered" \
  "SELECT count(*) = 0 FROM releases WHERE delivery_state <> 'Delivered'"
expect_eq 0 "$(db -c "SELECT count(*) FROM releases WHERE delivery_state = 'Failed'
                        OR delivery_error <> ''")" "no Release is Failed"

section "the database and the repository agree"
git --git-dir="$REPO" log --format=%B main | grep '^Cub-Release: ' | awk '{ print $2 }' \
  | sort >"$E2E_TMP/in-git.txt"
db -c "SELECT id FROM releases ORDER BY 1" >"$E2E_TMP/in-db.txt"
total=$(wc -l <"$E2E_TMP/in-db.txt")
expect_eq "" "$(uniq -d "$E2E_TMP/in-git.txt")" "Releases named by more than one commit"
expect_eq "" "$(comm -13 "$E2E_TMP/in-db.txt" "$E2E_TMP/in-git.txt")" \
  "commits naming a Release the database lacks"
expect_eq "" "$(comm -23 "$E2E_TMP/in-db.txt" "$E2E_TMP/in-git.txt")" \
  "Releases recorded but named by no commit"
# Each recorded commit is one that names its Release.
wrong=0
while IFS='|' read -r id commit; do
  git --git-dir="$REPO" show -s --format=%B "$commit" 2>/dev/null \
    | grep -q "^Cub-Release: $id " || { wrong=$((wrong + 1)); echo "release $id: commit $commit"; }
done < <(db -c "SELECT id, commit_id FROM releases")
expect_eq 0 "$wrong" "Releases whose recorded commit does not name them"
expect_eq 0 "$(db -c "SELECT count(*) FROM (SELECT space_slug, count(*) AS n, max(release_num) AS m
                        FROM releases GROUP BY space_slug) x WHERE n <> m")" \
  "Spaces whose Release numbers have a gap or a repeat"
# The branch holds each Space's newest Release.
for s in "${SPACES[@]}"; do
  newest=$(db -c "SELECT v.data FROM releases r JOIN release_units ru ON ru.release_id = r.id
                  JOIN revisions v ON v.unit_id = ru.unit_id AND v.revision_num = ru.revision_num
                  WHERE r.space_slug = '$s' ORDER BY r.release_num DESC LIMIT 1")
  expect_eq "$newest" "$(git --git-dir="$REPO" show "main:clusters/$s/config.yaml")" \
    "clusters/$s/config.yaml is the newest Release's"
done

found=$(cat "$E2E_TMP"/cubd-round*.log "$E2E_TMP/cubd-final.log" 2>/dev/null \
  | sed -n 's/.* \([0-9][0-9]*\) found delivered earlier.*/\1/p' | awk '{ s += $1 } END { print s + 0 }')
commits=$(git --git-dir="$REPO" rev-list --count main)
echo "delivery_crash: $total releases in ${#SPACES[@]} spaces, $KILLS kills in ${kill_seconds}s," \
  "$commits commits, $found found already delivered after a kill"

e2e_finish
