#!/usr/bin/env bash
# cubd's health and logs: /healthz (liveness), /readyz and the gRPC health service (readiness)
# follow the database, NOT_SERVING while PostgreSQL is stopped and again once it is back;
# after SIGTERM with --drain-delay, not ready while still serving, until a second signal; request
# IDs taken from X-Request-Id (or made up) and returned over REST and gRPC, and logged;
# --log-format json gives one JSON object a line, HTTP-level refusals included.
#
# PostgreSQL is a private cluster of this test (tests/harness/pg.sh), since it is stopped here.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
PROBE=$CUB_BIN_DIR/grpc_probe
[[ -x $PROBE ]] || _e2e_die_setup "$PROBE is missing: build the grpc_probe target"
PG_SH=$CUB_SOURCE_DIR/tests/harness/pg.sh
PG_BIN=${CUB_PG_BINDIR:-/usr/lib/postgresql/15/bin}
pg_dir=$(mktemp -d "${TMPDIR:-/tmp}/cub-ops-pg.XXXXXX")
pg_port=$(free_port)
bash "$PG_SH" start "$pg_dir" "$pg_port" >"$pg_dir.start.log" 2>&1 ||
  _e2e_die_setup "private PostgreSQL did not start: $(cat "$pg_dir.start.log")"
export CUB_TEST_PG_URL="postgresql://cub_test@127.0.0.1:$pg_port/postgres"
pg_data="$(cat "$pg_dir/location" 2>/dev/null || echo "$pg_dir")/data"
pg_owner() { if [[ $(id -u) -eq 0 ]]; then (cd / && runuser -u postgres -- "$@"); else "$@"; fi; }

_ops_exit() {
  local rc=$?
  bash "$PG_SH" stop "$pg_dir" "$pg_port" >/dev/null 2>&1
  rm -rf -- "$pg_dir" "$pg_dir.start.log"
  (exit "$rc")
  _e2e_exit
}
e2e_init ops_health
trap _ops_exit EXIT

e2e_start_cubd main --log-format json --drain-delay 120
H=http://$E2E_HTTP
G=$E2E_SERVER
log=${CUBD_LOG[main]}

# wait_grpc STATUS [SERVICE]: polls the gRPC health service until it says STATUS (30 s at most).
wait_grpc() {
  local i
  for i in $(seq 150); do
    [[ $("$PROBE" health "$G" "${2:-}") == "$1" ]] && { _e2e_pass "gRPC health ${2:-(server)} $1"; return 0; }
    sleep 0.2
  done
  run "$PROBE" health "$G" "${2:-}"
  e2e_fail "gRPC health ${2:-(server)} never became $1"
}
# wait_ready CODE: polls /readyz until it answers CODE.
wait_ready() {
  local i
  for i in $(seq 150); do
    [[ $(curl -sS -o /dev/null -w '%{http_code}' "$H/readyz" 2>/dev/null) == "$1" ]] &&
      { _e2e_pass "/readyz $1"; return 0; }
    sleep 0.2
  done
  run curl -sS "$H/readyz"
  e2e_fail "/readyz never answered $1"
}

section "ready while the database answers"
expect_ok curl -sS -w ' %{http_code}' "$H/healthz"
expect_eq "ok 200" "$OUT" "/healthz"
expect_ok curl -sS -w ' %{http_code}' "$H/readyz"
expect_eq "ready 200" "$OUT" "/readyz"
expect_ok "$PROBE" health "$G"
expect_eq SERVING "$OUT" "gRPC health of the server"
expect_ok "$PROBE" health "$G" cub.v1.SpaceService
expect_eq SERVING "$OUT" "gRPC health of cub.v1.SpaceService"
expect_ok "$PROBE" health "$G" cub.v1.ReleaseService
run "$PROBE" health "$G" cub.v1.NoSuchService
expect_eq NOT_FOUND "$OUT" "gRPC health of a service cubd does not serve"

section "request IDs, over REST and gRPC, in the JSON log"
expect_ok curl -sS -D "$E2E_TMP/h1" -o /dev/null -H "X-Request-Id: trace-abc.123" \
  -H "Authorization: Bearer $ADMIN_TOKEN" -X POST -d '{}' "$H/v1/SpaceService/ListSpaces"
expect_match "$(tr -d '\r' <"$E2E_TMP/h1")" $'(^|\n)X-Request-Id: trace-abc.123(\n|$)' "REST echoes the ID"
expect_ok curl -sS -D "$E2E_TMP/h2" -o /dev/null -X POST -d '{}' "$H/v1/SpaceService/ListSpaces"
expect_match "$(tr -d '\r' <"$E2E_TMP/h2")" $'X-Request-Id: [0-9a-f]{16}(\n|$)' "REST makes up an ID"
made_up=$(tr -d '\r' <"$E2E_TMP/h2" | sed -n 's/^X-Request-Id: //p')
expect_ok curl -sS -D "$E2E_TMP/h3" -o /dev/null -H 'X-Request-Id: bad id"' -X POST -d '{}' \
  "$H/v1/SpaceService/ListSpaces"
expect_match "$(tr -d '\r' <"$E2E_TMP/h3")" $'X-Request-Id: [0-9a-f]{16}(\n|$)' "an unusable ID is replaced"
expect_ok "$PROBE" call "$G" /cub.v1.AuthService/GetLoginConfig grpc-id-7
expect_eq "code=OK request_id=grpc-id-7" "$OUT" "gRPC returns the caller's ID"
expect_ok "$PROBE" call "$G" /cub.v1.AuthService/GetLoginConfig
expect_match "$OUT" '^code=OK request_id=[0-9a-f]{16}$' "gRPC makes up an ID"
expect_ok curl -sS -o /dev/null -w '%{http_code}' -H "X-Request-Id: lost-1" "$H/v1/NoSuch/Thing"
expect_eq 404 "$OUT" "unknown REST path"
sleep 0.2  # the log lines are written once the answers are
expect_ok python3 - "$log" "$made_up" <<'PY'
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
calls = [l for l in lines if l["event"] == "call"]
def has(**kv):
    return any(all(l.get(k) == v for k, v in kv.items()) for l in lines)
assert calls, "no call lines"
assert has(event="call", method="SpaceService/ListSpaces", code="OK", user="admin",
           request_id="trace-abc.123"), "REST call with its ID"
assert has(event="call", method="SpaceService/ListSpaces", code="UNAUTHENTICATED",
           request_id=sys.argv[2]), "the made-up ID logged"
assert has(event="call", method="AuthService/GetLoginConfig", request_id="grpc-id-7")
assert has(event="http", refused="request", status=404, path="/v1/NoSuch/Thing",
           request_id="lost-1"), "REST routing refusal logged"
assert all(isinstance(c["duration_ms"], (int, float)) for c in calls)
assert has(event="message"), "free-text lines are JSON too"
print(len(lines), "JSON lines")
PY
run grep -v '^{' "$log"
expect_eq "" "$OUT" "every log line is a JSON object"

section "PostgreSQL stopped: not ready, still alive; started again: ready"
pg_owner "$PG_BIN/pg_ctl" stop -D "$pg_data" -m fast -w >/dev/null || e2e_fail "pg_ctl stop failed"
wait_ready 503
expect_ok curl -sS "$H/readyz" -o "$E2E_TMP/ready.txt" -w '%{http_code}'
expect_contains "$(cat "$E2E_TMP/ready.txt")" "not ready: database unreachable"
expect_not_contains "$(cat "$E2E_TMP/ready.txt")" "port" "the driver's text (hosts, ports, roles) stays in the log"
wait_grpc NOT_SERVING
wait_grpc NOT_SERVING cub.v1.SpaceService
expect_ok curl -sS "$H/healthz"
expect_eq ok "$OUT" "/healthz while the database is down"
expect_ok curl -sS "$H/metrics"
expect_contains "$OUT" "cubd_database_up 0"
pg_owner "$PG_BIN/pg_ctl" start -D "$pg_data" -l "$pg_data/../postgres.log" -w >/dev/null ||
  e2e_fail "pg_ctl start failed"
wait_ready 200
wait_grpc SERVING
wait_grpc SERVING cub.v1.SpaceService

section "SIGTERM: not ready while still serving for --drain-delay, then a second signal drains"
pid=${CUBD_PID[main]}
kill -TERM "$pid"
wait_ready 503
expect_ok curl -sS "$H/readyz"
expect_eq "not ready: draining after SIGTERM" "$OUT" "/readyz while draining"
wait_grpc NOT_SERVING
wait_grpc NOT_SERVING cub.v1.ReleaseService
expect_ok cub space list --server "$G" --token "$ADMIN_TOKEN"
expect_ok curl -sS "$H/metrics"
expect_contains "$OUT" "cubd_draining 1"
kill -0 "$pid" || e2e_fail "cubd exited before the drain delay"
kill -TERM "$pid"
for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
kill -0 "$pid" 2>/dev/null && e2e_fail "cubd did not stop after the second SIGTERM"
wait "$pid"
expect_eq 0 "$?" "cubd's exit code"
unset "CUBD_PID[main]"
expect_contains "$(cat "$log")" "draining in-flight calls"

section "--log-format is checked"
expect_fail 105 "--log-format" cubd serve --database-url "$E2E_SERVE_URL" --log-format xml

e2e_finish
