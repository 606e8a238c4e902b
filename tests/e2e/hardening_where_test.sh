#!/usr/bin/env bash
# Hostile expressions through the real binaries: a regular expression of 30,000 nested
# parentheses from a user with no role, '^(a|b)*$' over a 20,000-character ChangeOrder
# description (matched in memory), a CEL memory bomb in vet-cel (refused, cubd's peak RSS
# bounded), and IN lists longer than PostgreSQL's 65,535 parameters. cubd must answer every
# one with a clean refusal or a result, and stay up.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
e2e_init hardening_where
e2e_start_cubd main
export CUB_SERVER=$E2E_SERVER CUB_TOKEN=$ADMIN_TOKEN
CUBD=${CUBD_PID[main]}
H=http://$E2E_HTTP
NOBODY=$(create_user nobody) || e2e_fail "create_user nobody"

cubd_alive() {  # cubd_alive WHAT: cubd still runs and answers
  kill -0 "$CUBD" 2>/dev/null || e2e_fail "cubd died after $1"
  expect_ok cub whoami
}

# rest METHOD-PATH BODY-FILE [TOKEN]: POSTs the file; sets OUT (body) and HTTP_CODE.
rest() {
  local path=$1 body=$2 token=${3:-$ADMIN_TOKEN}
  run curl -sS -o "$E2E_TMP/rest.body" -w '%{http_code}' -X POST \
    -H 'Content-Type: application/json' -H "Authorization: Bearer $token" \
    --data-binary "@$body" "$H$path"
  ((RC == 0)) || e2e_fail "curl failed"
  HTTP_CODE=$OUT
  OUT=$(cat "$E2E_TMP/rest.body")
}

# list_units_body WHERE-FILE OUT-FILE: a ListUnits request over every Space with that where.
list_units_body() {
  python3 -c 'import json, sys
print(json.dumps({"Space": "*", "Options": {"Where": open(sys.argv[1]).read()}}))' "$1" >"$2"
}

section "setup"
expect_ok cub space create app
printf 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web\ndata:\n  mode: fast\n' \
  >"$E2E_TMP/web.yaml"
expect_ok cub unit create --space app web "$E2E_TMP/web.yaml"

section "a regular expression of 30,000 nested parentheses, from a user with no role"
python3 -c "print(\"Slug ~ '\" + '(' * 30000 + 'a' + ')' * 30000 + \"'\", end='')" \
  >"$E2E_TMP/deep.where"
expect_fail 1 "is 60001 bytes long; the limit is 1024" \
  env CUB_TOKEN="$NOBODY" cub unit list --space '*' --where "$(cat "$E2E_TMP/deep.where")"
expect_contains "$ERR" "where: regular expression '((((" "the refusal names the pattern"
cubd_alive "the nested regular expression"
list_units_body "$E2E_TMP/deep.where" "$E2E_TMP/deep.json"
rest /v1/UnitService/ListUnits "$E2E_TMP/deep.json" "$NOBODY"
expect_eq 400 "$HTTP_CODE" "REST status of the nested regular expression"
expect_eq INVALID_ARGUMENT "$(jget status)" "REST code of the nested regular expression"
# Constructs PostgreSQL reads differently are refused on the SQL path too.
expect_fail 1 "uses '\\b', which PostgreSQL reads differently" \
  cub unit list --space '*' --where "Slug ~ '\\bweb'"
expect_ok cub unit list --space '*' --where "Slug ~ '^(w|e|b)*\$'" -o json
expect_eq web "$(jget 0.Slug)" "a portable pattern runs in PostgreSQL"
# 100,000 nested parentheses in the where expression itself: refused, not a crash.
python3 -c "print('(' * 100000 + \"Slug = 'web'\" + ')' * 100000, end='')" >"$E2E_TMP/nest.where"
list_units_body "$E2E_TMP/nest.where" "$E2E_TMP/nest.json"
rest /v1/UnitService/ListUnits "$E2E_TMP/nest.json" "$NOBODY"
expect_eq 400 "$HTTP_CODE" "REST status of 100,000 parentheses"
expect_contains "$(jget message)" "where: expression nested too deeply at 101"
cubd_alive "100,000 nested parentheses"

section "'^(a|b)*\$' over a 20,000-character description, matched in memory"
LONG=$(python3 -c "print('ab' * 10000, end='')")
expect_ok cub changeorder create --space app long-desc --description "$LONG"
expect_ok cub changeorder create --space app short-desc --description "abc"
expect_ok cub changeorder list --space app --where "Description ~ '^(a|b)*\$'" -o json
expect_eq 1 "$(jget len)" "one ChangeOrder matches"
expect_eq long-desc "$(jget 0.Slug)" "the long description matches"
cubd_alive "the long description"

section "a CEL memory bomb in vet-cel"
# Doubles 'abcdefgh' 20 times (8 MiB), then keeps 100 fresh copies: 800 MiB without a budget.
BOMB=$(python3 -c "
expr = \"['abcdefgh'].map(s, \" + '[s + s].map(s, ' * 20
expr += '[' + ', '.join(str(i) for i in range(100)) + '].map(i, s + string(i))' + ')' * 21
print(expr + '.size() == 1', end='')")
expect_fail 1 "exceeded its memory budget of 16 MiB" \
  cub function vet --space app --unit web -- vet-cel "$BOMB"
expect_contains "$ERR" "cel: evaluating '['abcdefgh'].map(s, " "the refusal names the expression"
expect_not_contains "$ERR" "database error"
HWM_KB=$(awk '/^VmHWM:/ {print $2}' "/proc/$CUBD/status")
echo "cubd peak RSS after the bomb: $((HWM_KB / 1024)) MiB"
((HWM_KB < 400 * 1024)) || e2e_fail "cubd's peak RSS reached $((HWM_KB / 1024)) MiB"
expect_ok cub function vet --space app --unit web -- vet-cel "r.kind == 'ConfigMap'"
cubd_alive "the CEL bomb"

section "IN lists longer than PostgreSQL's 65,535 parameters"
# 70,000 values in 140 KB: bound as one array parameter.
python3 -c "print('HeadRevisionNum IN (' + ','.join(['2', '1'] * 35000) + ')', end='')" \
  >"$E2E_TMP/in70k.where"
list_units_body "$E2E_TMP/in70k.where" "$E2E_TMP/in70k.json"
rest /v1/UnitService/ListUnits "$E2E_TMP/in70k.json"
expect_eq 200 "$HTTP_CODE" "REST status of a 70,000-value IN list"
expect_eq web "$(jget Units.0.Slug)" "the 70,000-value IN list matches"
python3 -c "print('Slug NOT IN (' + ','.join(['\'\''] * 70000) + ')', end='')" \
  >"$E2E_TMP/notin70k.where"
list_units_body "$E2E_TMP/notin70k.where" "$E2E_TMP/notin70k.json"
rest /v1/UnitService/ListUnits "$E2E_TMP/notin70k.json"
expect_eq 200 "$HTTP_CODE" "REST status of a 70,000-value NOT IN list"
expect_eq web "$(jget Units.0.Slug)" "the 70,000-value NOT IN list matches"
# 100,000 values in 1.1 MB: over the 256 KiB limit on a where expression, refused cleanly.
python3 -c "print('Slug IN (' + ','.join('\'u%d\'' % i for i in range(100000)) + ')', end='')" \
  >"$E2E_TMP/in100k.where"
list_units_body "$E2E_TMP/in100k.where" "$E2E_TMP/in100k.json"
rest /v1/UnitService/ListUnits "$E2E_TMP/in100k.json"
expect_eq 400 "$HTTP_CODE" "REST status of a 100,000-value IN list"
expect_eq INVALID_ARGUMENT "$(jget status)" "REST code of a 100,000-value IN list"
expect_match "$(jget message)" "^where: expression is [0-9]+ bytes long; the limit is 262144 at 1$"
cubd_alive "the long IN lists"

e2e_finish
