#!/usr/bin/env bash
# The REST mirror's limits set by cubd flags: header size (431), connections per client address
# (503), the header timeout (408), each refusal logged; out-of-range flag values refused.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
e2e_init http_limits

section "flag values are checked"
expect_fail 105 "--http-max-connections" cubd serve --database-url "$E2E_DB_URL" \
  --http-max-connections 0
expect_fail 105 "--http-header-timeout" cubd serve --database-url "$E2E_DB_URL" \
  --http-header-timeout -1

e2e_start_cubd main --http-max-header-bytes 2048 --http-max-connections-per-client 3 \
  --http-header-timeout 1
H=http://$E2E_HTTP
host=${E2E_HTTP%:*}
port=${E2E_HTTP#*:}
log=${CUBD_LOG[main]}

section "header size"
expect_ok curl -sS -o /dev/null -w '%{http_code}' -H "X-Big: $(printf 'a%.0s' $(seq 3000))" \
  "$H/healthz"
expect_eq 431 "$OUT" "status for a 3000-byte header"
expect_ok curl -sS -o /dev/null -w '%{http_code}' -H "X-Small: $(printf 'a%.0s' $(seq 1000))" \
  "$H/healthz"
expect_eq 200 "$OUT" "status for a 1000-byte header"
expect_contains "$(cat "$log")" "http refused=request status=431 peer=127.0.0.1"

section "header timeout"
exec 3<>"/dev/tcp/$host/$port"
printf 'GET /healthz HTTP/1.1\r\nHost: x\r\n' >&3
run timeout 5 head -c 12 <&3
exec 3<&-
expect_eq "HTTP/1.1 408" "$OUT" "answer to a header not finished within --http-header-timeout"
expect_contains "$(cat "$log")" 'reason="request header not received in time"'

section "connections per client address"
exec 4<>"/dev/tcp/$host/$port" 5<>"/dev/tcp/$host/$port" 6<>"/dev/tcp/$host/$port"
sleep 0.3  # accepted by now
expect_ok curl -sS -o /dev/null -w '%{http_code}' "$H/healthz"
expect_eq 503 "$OUT" "status for a fourth connection from 127.0.0.1"
expect_contains "$(cat "$log")" "http refused=connection status=503 peer=127.0.0.1"
exec 4<&- 5<&- 6<&-
ok=""
for _ in $(seq 20); do
  run curl -sS -o /dev/null -w '%{http_code}' "$H/healthz"
  [[ $OUT == 200 ]] && ok=1 && break
  sleep 0.2
done
expect_eq 1 "$ok" "served again once the three connections closed"

e2e_finish
