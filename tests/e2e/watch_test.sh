#!/usr/bin/env bash
# `cub changeorder watch` through the real binaries: a watcher in the background (not a
# terminal, so a line per snapshot) follows a ChangeOrder as it is promoted, published and
# reported Healthy step by step, and exits 0 at Completed; an aborted ChangeOrder ends the watch
# with exit 1; the REST mirror serves the stream as server-sent events; an unauthenticated or
# unauthorized watch is refused as GetChangeOrder refuses it; cubd refuses watches over
# --max-watch-streams; and SIGTERM does not wait for open watches.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
e2e_init watch
e2e_start_cubd main
export CUB_SERVER=$E2E_SERVER CUB_TOKEN=$ADMIN_TOKEN

# wait_for FILE TEXT [WHAT]: polls FILE until it contains TEXT (at most 30 s: cubd looks again
# every 5 s without an event).
wait_for() {
  local file=$1 text=$2 what=${3:-$1} deadline=$((SECONDS + 30))
  while ((SECONDS < deadline)); do
    [[ -f $file && $(cat "$file") == *"$text"* ]] && { _e2e_pass "$what shows $text"; return 0; }
    sleep 0.2
  done
  _E2E_LAST_CMD=""
  e2e_fail "$what: no [$text] within 30 s; it has:"$'\n'"$(cat "$file" 2>/dev/null)"
}

# wait_exit PID [WHAT]: waits (at most 30 s) for a background process; its exit code in $RC.
wait_exit() {
  local pid=$1 what=${2:-process} deadline=$((SECONDS + 30))
  while kill -0 "$pid" 2>/dev/null && ((SECONDS < deadline)); do sleep 0.1; done
  if kill -0 "$pid" 2>/dev/null; then
    kill "$pid" 2>/dev/null
    _E2E_LAST_CMD=""
    e2e_fail "$what did not exit within 30 s"
  fi
  wait "$pid"
  RC=$?
}

deployment() {  # deployment IMAGE-TAG
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

section "setup: two dev Spaces, one prod Space gated on Released and Healthy"
expect_ok cub space create platform
expect_ok cub target create --space platform local --provider Directory \
  --param "path=$E2E_TMP/deploy"
expect_ok cub changeworkflow create --space platform flow --filename - <<'YAML'
Stages:
  - Name: dev
    WhereSpace: "Labels.Stage = 'Development'"
  - Name: prod
    WhereSpace: "Labels.Stage = 'Production'"
    Prerequisites: [Released, Healthy]
Final:
  Prerequisites: [Released, Healthy]
YAML
expect_ok cub space create acme-base
deployment v1 >"$E2E_TMP/v1.yaml"
expect_ok cub unit create --space acme-base deployment "$E2E_TMP/v1.yaml"
for s in dev1 dev2; do expect_ok cub variant create "acme-$s" acme-base --stage Development; done
expect_ok cub variant create acme-prod acme-base --stage Production
for s in dev1 dev2 prod; do
  expect_ok cub space update "acme-$s" --release-target platform/local
done
REPORTER_TOKEN=$(create_user argocd --service-account) || e2e_fail "cubd user create failed"
for s in dev1 dev2 prod; do expect_ok cub space grant "acme-$s" reporter --user argocd; done
declare -A RELEASE=()
publish() {  # publish SPACE CHANGEORDER: the Release's number in RELEASE[SPACE]
  expect_ok cub release publish "$1" --revision "ChangeOrder:acme-base/$2" -o json
  RELEASE[$1]=$(jget ReleaseNum)
}
report_healthy() {  # report_healthy SPACE: its latest Release published here
  expect_ok env CUB_TOKEN="$REPORTER_TOKEN" cub release set-status --space "$1" \
    --release "${RELEASE[$1]}" --sync Synced --health Healthy
}

section "a watcher follows v2 step by step until Completed"
expect_ok cub function set --space acme-base --unit deployment \
  -- set-image-reference-by-uri ghcr.io/acme/acme ":v2"
expect_ok cub changeorder create --space acme-base v2 --description v2 \
  --change-workflow platform/flow
W=$E2E_TMP/watch-v2
cub changeorder watch --space acme-base v2 >"$W.out" 2>"$W.err" &
WATCH_PID=$!
cub changeorder watch --space acme-base v2 --json >"$W.json" 2>"$W.json.err" &
JSON_PID=$!
wait_for "$W.out" "New: dev 0/2 taken 0/2 released 0/2 healthy; prod 0/1 taken" watcher
expect_ok cub variant promote --change-order acme-base/v2
wait_for "$W.out" "dev 2/2 taken 0/2 released 0/2 healthy" watcher
publish acme-dev1 v2
wait_for "$W.out" "dev 2/2 taken 1/2 released 0/2 healthy" watcher
report_healthy acme-dev1
wait_for "$W.out" "dev 2/2 taken 1/2 released 1/2 healthy" watcher
publish acme-dev2 v2
report_healthy acme-dev2
wait_for "$W.out" "dev 2/2 taken 2/2 released 2/2 healthy; prod 0/1 taken" watcher
kill -0 "$WATCH_PID" 2>/dev/null || e2e_fail "the watcher exited before the change completed"
expect_ok cub variant promote --change-order acme-base/v2
wait_for "$W.out" "prod 1/1 taken 0/1 released 0/1 healthy" watcher
publish acme-prod v2
report_healthy acme-prod
wait_for "$W.out" \
  "Completed: dev 2/2 taken 2/2 released 2/2 healthy; prod 1/1 taken 1/1 released 1/1 healthy" \
  watcher
wait_exit "$WATCH_PID" watcher
expect_eq 0 "$RC" "the watcher's exit code at Completed"
# One line per snapshot sent, and a snapshot only when something changed.
OUT=$(cat "$W.out")
expect_eq "$(sort "$W.out" | uniq | wc -l)" "$(wc -l <"$W.out")" "distinct snapshot lines"
wait_exit "$JSON_PID" "JSON watcher"
expect_eq 0 "$RC" "the JSON watcher's exit code"
expect_eq Completed "$(jget State "$(tail -n 1 "$W.json")")" "last JSON snapshot's State"
expect_eq Completed "$(jget ChangeOrder.Stage "$(tail -n 1 "$W.json")")"
expect_eq 1 "$(jget Stages.1.Healthy "$(tail -n 1 "$W.json")")" "prod Healthy count"
expect_eq New "$(jget State "$(head -n 1 "$W.json")")" "first JSON snapshot's State"
# A watch of a ChangeOrder already Completed shows it once and ends.
expect_ok cub changeorder watch --space acme-base v2
expect_eq 1 "$(printf '%s\n' "$OUT" | wc -l)" "lines of a watch of a completed ChangeOrder"
expect_contains "$OUT" "Completed:"

section "an aborted ChangeOrder ends the watch with exit 1"
expect_ok cub function set --space acme-base --unit deployment \
  -- set-image-reference-by-uri ghcr.io/acme/acme ":v3"
expect_ok cub changeorder create --space acme-base v3 --description v3 \
  --change-workflow platform/flow
A=$E2E_TMP/watch-v3
cub changeorder watch --space acme-base v3 >"$A.out" 2>"$A.err" &
ABORT_PID=$!
wait_for "$A.out" "New: dev 0/2 taken" "v3 watcher"
expect_ok cub changeorder update --space acme-base v3 --aborted-reason "bad image"
wait_exit "$ABORT_PID" "v3 watcher"
expect_eq 1 "$RC" "the watcher's exit code at Aborted"
expect_contains "$(cat "$A.out")" "Aborted: dev 0/2 taken"
expect_contains "$(cat "$A.err")" "Failed: ChangeOrder acme-base/v3 was aborted: bad image"

section "refusals: unauthenticated, unauthorized, unknown, as GetChangeOrder"
expect_fail 1 "Failed:" cub changeorder watch --space acme-base v2 --token not-a-token
GET_ERR=$(cub changeorder get --space acme-base v2 --token not-a-token 2>&1 >/dev/null)
expect_eq "$GET_ERR" "$ERR" "unauthenticated watch refusal"
OUTSIDER_TOKEN=$(create_user outsider) || e2e_fail "cubd user create failed"
expect_fail 1 "Failed:" env CUB_TOKEN="$OUTSIDER_TOKEN" cub changeorder watch --space acme-base v2
GET_ERR=$(env CUB_TOKEN="$OUTSIDER_TOKEN" cub changeorder get --space acme-base v2 2>&1 >/dev/null)
expect_eq "$GET_ERR" "$ERR" "unauthorized watch refusal"
expect_fail 1 "change order 'nope' not found in space 'acme-base'" \
  cub changeorder watch --space acme-base nope

section "REST: server-sent events"
H=$E2E_TMP/sse
rest_watch() {  # rest_watch BODY [TOKEN]: headers in $H.headers, body in $H.body
  curl -sS -N -o "$H.body" -D "$H.headers" -w '%{http_code}' -X POST \
    -H "Authorization: Bearer ${2:-$ADMIN_TOKEN}" -H 'Content-Type: application/json' \
    --data "$1" "http://$E2E_HTTP/v1/ChangeOrderService/WatchChangeOrder"
}
expect_ok rest_watch '{"Space":"acme-base","ChangeOrder":"v2"}'
expect_eq 200 "$OUT" "HTTP status of a watch"
expect_contains "$(cat "$H.headers")" "Content-Type: text/event-stream"
BODY=$(cat "$H.body")
expect_match "$BODY" '^data: \{' "the SSE body"
expect_eq "$(printf '%s' "$BODY" | grep -c '^data: ')" 1 "data frames of a completed ChangeOrder"
expect_eq Completed "$(jget State "$(sed -n 's/^data: //p' "$H.body")")" "SSE snapshot's State"
expect_ok rest_watch '{"Space":"acme-base","ChangeOrder":"nope"}'
expect_eq 404 "$OUT" "HTTP status of a watch of an unknown ChangeOrder"
expect_eq NOT_FOUND "$(jget status "$(cat "$H.body")")" "its JSON error body"
expect_ok rest_watch '{"Space":"acme-base","ChangeOrder":"v2"}' not-a-token
expect_eq 401 "$OUT" "HTTP status of an unauthenticated watch"
expect_eq UNAUTHENTICATED "$(jget status "$(cat "$H.body")")"
# An open stream: a frame at once, then frames as the change moves.
expect_ok cub function set --space acme-base --unit deployment \
  -- set-image-reference-by-uri ghcr.io/acme/acme ":v4"
expect_ok cub changeorder create --space acme-base v4 --description v4 \
  --change-workflow platform/flow
rest_watch '{"Space":"acme-base","ChangeOrder":"v4"}' >/dev/null 2>&1 &
CURL_PID=$!
wait_for "$H.body" '"State":"New"' "SSE stream"
expect_ok cub variant promote --change-order acme-base/v4
wait_for "$H.body" '"Taken":2' "SSE stream"
expect_eq "$(grep -c '^data: ' "$H.body")" 2 "data frames after one promotion"
kill "$CURL_PID" 2>/dev/null
wait "$CURL_PID" 2>/dev/null

section "--max-watch-streams bounds open watches; SIGTERM does not wait for them"
e2e_start_cubd bound --max-watch-streams 1
B=$E2E_TMP/watch-bound
cub changeorder watch --server "${CUBD_GRPC[bound]}" --space acme-base v4 >"$B.out" 2>"$B.err" &
BOUND_PID=$!
wait_for "$B.out" "InProgress: dev 2/2 taken" "bound watcher"
expect_fail 1 "too many watch streams open (cubd --max-watch-streams 1)" \
  cub changeorder watch --server "${CUBD_GRPC[bound]}" --space acme-base v2
run curl -sS -o "$H.body" -w '%{http_code}' -X POST -H "Authorization: Bearer $ADMIN_TOKEN" \
  --data '{"Space":"acme-base","ChangeOrder":"v2"}' \
  "http://${CUBD_HTTP[bound]}/v1/ChangeOrderService/WatchChangeOrder"
expect_eq 429 "$OUT" "HTTP status of a watch over the bound"
expect_eq RESOURCE_EXHAUSTED "$(jget status "$(cat "$H.body")")"
# The bound is of open streams: once the watcher leaves, its place is free again.
kill "$BOUND_PID" 2>/dev/null
wait "$BOUND_PID" 2>/dev/null
deadline=$((SECONDS + 10))
until cub changeorder watch --server "${CUBD_GRPC[bound]}" --space acme-base v2 >/dev/null 2>&1; do
  ((SECONDS < deadline)) || e2e_fail "the watcher's place was not freed within 10 s"
  sleep 0.2
done
_e2e_pass "a cancelled watch frees its place"
# A file of its own: the shell truncates a redirected file only once the job has started.
cub changeorder watch --server "${CUBD_GRPC[bound]}" --space acme-base v4 >"$B.2.out" \
  2>"$B.2.err" &
BOUND_PID=$!
wait_for "$B.2.out" "InProgress: dev 2/2 taken" "second bound watcher"
started=$SECONDS
e2e_stop_cubd bound
expect_eq 0 "$CUBD_RC" "cubd's exit code after SIGTERM"
# Well within the 20 s drain: the open watch was ended, not waited for.
((SECONDS - started < 10)) || e2e_fail "SIGTERM took $((SECONDS - started)) s with a watch open"
_e2e_pass "SIGTERM ends open watches"
wait_exit "$BOUND_PID" "bound watcher"
expect_eq 1 "$RC" "the watcher's exit code when cubd stops"
expect_contains "$(cat "$B.2.err")" "cubd is shutting down; watch again"

e2e_finish
