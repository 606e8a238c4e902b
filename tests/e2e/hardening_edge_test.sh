#!/usr/bin/env bash
# What every call meets at cubd's edge, through the real binaries: text that cannot be kept
# exactly (a NUL byte, invalid UTF-8) refused naming the field and nothing stored; oversize
# text and large requests past the memory budget refused with RESOURCE_EXHAUSTED; hidden
# Spaces and ChangeOrders answered exactly like nonexistent ones; a second cubd refused an
# occupied port; bad tokens rate-limited per client address.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
e2e_init hardening_edge
e2e_start_cubd main
export CUB_SERVER=$E2E_SERVER CUB_TOKEN=$ADMIN_TOKEN

# rest PATH BODY-FILE [TOKEN] [HOST]: POSTs the file; sets OUT (body) and HTTP_CODE.
rest() {
  local path=$1 file=$2 token=${3:-$ADMIN_TOKEN} host=${4:-$E2E_HTTP}
  run curl -sS -o "$E2E_TMP/rest.body" -w '%{http_code}' -X POST \
    -H "Authorization: Bearer $token" --data-binary "@$file" "http://$host$path"
  ((RC == 0)) || e2e_fail "curl failed"
  HTTP_CODE=$OUT
  OUT=$(cat "$E2E_TMP/rest.body")
}

expect_ok cub space create wb

###############################################################################################
section "a NUL byte is refused, naming the field, and nothing is stored"
printf '{"Space":"wb","Slug":"u1","ToolchainType":"AppConfig/Text","Data":"secret=1\\u0000IGNORED\\n"}' \
  >"$E2E_TMP/nul-data.json"
rest /v1/UnitService/CreateUnit "$E2E_TMP/nul-data.json"
expect_eq 400 "$HTTP_CODE" "REST NUL in Data"
expect_eq INVALID_ARGUMENT "$(jget status)"
expect_eq "Data holds a NUL byte at offset 8; text fields cannot contain NUL bytes" "$(jget message)"
printf '{"Space":"wb","Slug":"u1","ToolchainType":"AppConfig/Text","Data":"a=1\\n","Labels":{"team":"x\\u0000y"}}' \
  >"$E2E_TMP/nul-label.json"
rest /v1/UnitService/CreateUnit "$E2E_TMP/nul-label.json"
expect_eq 400 "$HTTP_CODE" "REST NUL in a label"
expect_eq 'Labels["team"] holds a NUL byte at offset 1; text fields cannot contain NUL bytes' \
  "$(jget message)"
printf '{"Space":"wb","Slug":"u1","ToolchainType":"AppConfig/Text","Data":"a=1\\n","ChangeDesc":"why\\u0000not"}' \
  >"$E2E_TMP/nul-desc.json"
rest /v1/UnitService/CreateUnit "$E2E_TMP/nul-desc.json"
expect_eq 400 "$HTTP_CODE" "REST NUL in ChangeDesc"
expect_contains "$(jget message)" "ChangeDesc holds a NUL byte at offset 3"
printf 'secret=1\0IGNORED\n' >"$E2E_TMP/nul.txt"
expect_fail 1 "$E2E_TMP/nul.txt holds a NUL byte at offset 8" \
  cub unit create --space wb u1 "$E2E_TMP/nul.txt" --toolchain AppConfig/Text
expect_fail 1 "not found" cub unit get --space wb u1
expect_ok cub unit list --space wb -o json
expect_eq 0 "$(jget len)" "no unit stored"

section "invalid UTF-8 is refused clearly, over REST and by cub"
printf '{"Space":"wb","Slug":"u2","ToolchainType":"AppConfig/Text","Data":"bad \xff\xfe"}' \
  >"$E2E_TMP/latin.json"
rest /v1/UnitService/CreateUnit "$E2E_TMP/latin.json"
expect_eq 400 "$HTTP_CODE" "REST invalid UTF-8"
expect_eq INVALID_ARGUMENT "$(jget status)"
expect_eq "the request body is not valid UTF-8 at byte offset 71; JSON text must be UTF-8" \
  "$(jget message)"
printf 'name=caf\xe9\n' >"$E2E_TMP/latin.txt"
expect_fail 1 "$E2E_TMP/latin.txt is not valid UTF-8 at byte offset 8" \
  cub unit create --space wb u2 "$E2E_TMP/latin.txt" --toolchain AppConfig/Text
expect_fail 1 "ChangeDesc is not valid UTF-8 at byte offset 0" \
  cub unit create --space wb u2 --toolchain AppConfig/Text --change-desc $'\xe9t\xe9'
expect_ok cub unit list --space wb -o json
expect_eq 0 "$(jget len)" "no unit stored"
printf 'ok=1\n' >"$E2E_TMP/ok.txt"
expect_ok cub unit create --space wb u1 "$E2E_TMP/ok.txt" --toolchain AppConfig/Text

###############################################################################################
section "oversize text and large requests past the budget: RESOURCE_EXHAUSTED"
e2e_start_cubd small --max-unit-bytes 65536 --max-inflight-request-bytes 8388608
head -c 65537 /dev/zero | tr '\0' 'x' >"$E2E_TMP/big.txt"
expect_fail 1 "Data holds 65537 bytes, more than the limit of 65536 bytes (cubd --max-unit-bytes)" \
  cub --server "${CUBD_GRPC[small]}" unit create --space wb big "$E2E_TMP/big.txt" \
  --toolchain AppConfig/Text
printf '{"Space":"wb","Slug":"big","ToolchainType":"AppConfig/Text","Data":"%s"}' \
  "$(cat "$E2E_TMP/big.txt")" >"$E2E_TMP/big.json"
rest /v1/UnitService/CreateUnit "$E2E_TMP/big.json" "$ADMIN_TOKEN" "${CUBD_HTTP[small]}"
expect_eq 429 "$HTTP_CODE" "REST oversize unit"
expect_eq RESOURCE_EXHAUSTED "$(jget status)"
head -c 65536 /dev/zero | tr '\0' 'x' >"$E2E_TMP/limit.txt"
expect_ok cub --server "${CUBD_GRPC[small]}" unit create --space wb at-limit "$E2E_TMP/limit.txt" \
  --toolchain AppConfig/Text
# 2 MiB charged 6 times is more than the 8 MiB budget of "small" holds at all.
e2e_start_cubd budget --max-inflight-request-bytes 8388608
head -c 2097152 /dev/zero | tr '\0' 'x' >"$E2E_TMP/2m.txt"
expect_fail 1 "cubd is busy: this 2097" \
  cub --server "${CUBD_GRPC[budget]}" unit create --space wb two-mib "$E2E_TMP/2m.txt" \
  --toolchain AppConfig/Text
expect_contains "$ERR" "(cubd --max-inflight-request-bytes); retry later"
expect_ok cub unit create --space wb two-mib "$E2E_TMP/2m.txt" --toolchain AppConfig/Text
e2e_stop_cubd budget

###############################################################################################
section "hidden Spaces and ChangeOrders answer exactly like nonexistent ones"
EVE=$(create_user eve) || e2e_fail "user"
FRANK=$(create_user frank) || e2e_fail "user"
expect_ok cub variant create wb-dev wb --stage Development
expect_ok cub variant create wb-prod wb --stage Production
expect_ok cub space grant wb-prod approver --user frank
cat >"$E2E_TMP/flow.yaml" <<YAML
Stages:
  - Name: dev
    WhereSpace: "Labels.Stage = 'Development'"
  - Name: prod
    WhereSpace: "Labels.Stage = 'Production'"
YAML
expect_ok cub changeworkflow create --space wb flow --filename "$E2E_TMP/flow.yaml"
expect_ok cub changeorder create --space wb v2 --description v2 --change-workflow wb/flow
expect_fail 1 "" as "$EVE" cub variant approve --change-order wb/nonexist
MISSING=$ERR
expect_fail 1 "" as "$EVE" cub variant approve --change-order wb/v2
expect_eq "$MISSING" "$ERR" "existing hidden change order answered as a missing one"
expect_fail 1 "" as "$EVE" cub variant approve --change-order wb/v2 --stage dev --dry-run
expect_eq "$MISSING" "$ERR" "a stage of a hidden change order"
expect_fail 1 "" as "$EVE" cub variant approve --change-order nospace/v2
expect_eq "${MISSING//wb/nospace}" "$ERR" "hidden space answered as a missing one"
expect_fail 1 "" as "$EVE" cub changeorder get --space wb v2
expect_eq "$MISSING" "$ERR" "changeorder get"
expect_fail 1 "" as "$EVE" cub space get wb
expect_eq "$MISSING" "$ERR" "space get"
# Frank sees the ChangeOrder through wb-prod, but not wb-dev, a member of stage dev.
expect_fail 1 "no Space selected" as "$FRANK" cub variant approve --change-order wb/v2 \
  --stage dev --dry-run
expect_not_contains "$ERR" "wb-dev"
expect_fail 1 "no Space selected" as "$FRANK" cub variant approve --change-order wb/v2 \
  --where-space "Slug = 'wb-dev'" --dry-run
expect_not_contains "$ERR" "wb-dev"

###############################################################################################
section "a second cubd refuses an occupied port"
E2E_CMD_TIMEOUT=30 expect_fail 1 "cannot listen on --listen $E2E_SERVER" \
  cubd serve --database-url "$E2E_SERVE_URL" --listen "$E2E_SERVER" \
  --signing-key "$E2E_TMP/signing-key.pem" --work-dir "$E2E_TMP/cubd-work"
expect_ok cub whoami

###############################################################################################
section "failed authentication is rate-limited per client address"
e2e_start_cubd auth --auth-failure-burst 50 --auth-failures-per-minute 0.6
A=${CUBD_GRPC[auth]}
for i in $(seq 1 50); do
  run cub --server "$A" --token "bad-$i" whoami
  [[ $RC == 1 && $ERR == *"not valid"* ]] || e2e_fail "bad token $i: expected UNAUTHENTICATED"
done
expect_fail 1 "too many failed authentication attempts from 127.0.0.1; retry in " \
  cub --server "$A" --token bad-51 whoami
# Blocked means blocked: a good token from that address is not even checked.
expect_fail 1 "too many failed authentication attempts from 127.0.0.1" \
  cub --server "$A" whoami
printf '{}' >"$E2E_TMP/empty.json"
rest /v1/AuthService/WhoAmI "$E2E_TMP/empty.json" bad "${CUBD_HTTP[auth]}"
expect_eq 429 "$HTTP_CODE" "REST from the blocked address"
expect_contains "$(jget message)" "too many failed authentication attempts from 127.0.0.1"
expect_contains "$(cat "${CUBD_LOG[auth]}")" "auth_blocked addr=127.0.0.1"
expect_contains "$(cat "${CUBD_LOG[auth]}")" "code=RESOURCE_EXHAUSTED"
# Another cubd keeps its own count; the main one has seen no failures from here.
expect_ok cub whoami

e2e_finish
