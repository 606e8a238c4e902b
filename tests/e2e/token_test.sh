#!/usr/bin/env bash
# End-to-end test of cub's own API tokens: every token expires (a server default, a longest
# lifetime), has a description, is shown once, can be listed and revoked (an admin: anyone's),
# and is refused after expiry or revocation with a message saying which, when and by whom.
# Over the CLI, `cubd user`, and the REST mirror. See lib.sh for the helpers.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

e2e_init token
e2e_start_cubd main --token-default-lifetime 30d --token-max-lifetime 60d
S=$E2E_SERVER
D=$E2E_TMP
export CUB_SERVER=$S

# seconds_between A B: B - A in seconds, for RFC 3339 times.
seconds_between() {
  python3 -c '
import datetime, sys
p = lambda s: datetime.datetime.fromisoformat(s.replace("Z", "+00:00"))
print(int((p(sys.argv[2]) - p(sys.argv[1])).total_seconds()))' "$1" "$2"
}
# ids [JSON]: the TokenIDs of a token list's JSON array (default $OUT), in order, comma-joined.
ids() {
  python3 -c '
import json, sys
v = json.loads(sys.argv[1])
if isinstance(v, dict):
    v = next((x for x in v.values() if isinstance(x, list)), [])
print(",".join(x["TokenID"] for x in v))' "${1:-$OUT}"
}

###############################################################################################
section "cubd user: a token with an expiry and a description"

run create_user alice --group devs --expires-in 10d --description "alice's laptop"
((RC == 0)) || e2e_fail "cubd user create alice: $ERR"
ALICE_TOKEN=$OUT
expect_match "$ALICE_TOKEN" '^cub_[A-Za-z0-9_-]{43}$' "the token alone on stdout"
expect_match "$ERR" "^token [0-9a-f-]{36} for user 'alice' expires at 20" "its ID and expiry on stderr"
BOB_TOKEN=$(create_user bob 2>/dev/null) || e2e_fail "cubd user create bob"
expect_fail 1 "longer than a token may live: at most 366d" \
  cubd user token bob --expires-in 400d --database-url "$E2E_DB_URL"
expect_fail 1 "ExpiresIn '3w' is not a duration" \
  cubd user token bob --expires-in 3w --database-url "$E2E_DB_URL"
as_alice() { env CUB_TOKEN="$ALICE_TOKEN" "$@"; }
as_bob() { env CUB_TOKEN="$BOB_TOKEN" "$@"; }

expect_ok as_alice cub whoami -o json
expect_eq "Token" "$(jget AuthenticatedBy)" "whoami AuthenticatedBy"
ALICE_EXPIRES=$(jget ExpiresAt)
expect_match "$ALICE_EXPIRES" '^20[0-9-]+T' "whoami ExpiresAt"

###############################################################################################
section "cub auth token create"

expect_ok as_alice cub auth token create --expires-in 7d --description "ci job" -o json
CI_SECRET=$(jget Secret)
CI_ID=$(jget Token.TokenID)
expect_match "$CI_SECRET" '^cub_' "the secret is in the response"
expect_eq "ci job" "$(jget Token.Description)" "Description"
expect_eq "alice" "$(jget Token.Username)" "Username"
expect_eq "Active" "$(jget Token.State)" "State"
expect_eq "$((7 * 86400))" "$(seconds_between "$(jget Token.CreatedAt)" "$(jget Token.ExpiresAt)")" \
  "--expires-in 7d"
expect_ok env CUB_TOKEN="$CI_SECRET" cub whoami -o json
expect_eq "alice" "$(jget User.Username)" "the new token is alice's"

# The server's default lifetime (--token-default-lifetime 30d); the table shows the secret first.
expect_ok as_alice cub auth token create
expect_match "$(head -1 <<<"$OUT")" '^cub_[A-Za-z0-9_-]{43}$' "table: the secret on the first line"
expect_match "$OUT" 'token [0-9a-f-]{36} for alice expires at 20[^ ]*Z; it is shown only this once' \
  "table: its ID and expiry"
DEFAULT_ID=$(grep -o 'token [0-9a-f-]*' <<<"$OUT" | cut -d' ' -f2)
expect_ok as_alice cub auth token list -o json
DEFAULT_JSON=$(python3 -c 'import json,sys; print(json.dumps([t for t in json.loads(sys.argv[1]) if t["TokenID"] == sys.argv[2]][0]))' "$OUT" "$DEFAULT_ID")
# Alice's own token has 10 days left, less than the 30d default: the new one ends with it.
LEFT=$(seconds_between "$(jget ExpiresAt "$DEFAULT_JSON")" "$ALICE_EXPIRES")
((LEFT >= 0 && LEFT <= 5)) || e2e_fail "a token made by a 10d token ends with it: $LEFT s apart"
expect_fail 1 "--expires-in '20d' would outlive the token this call was made with" \
  as_alice cub auth token create --expires-in 20d
# Bob's (90 days, the admin command's default) is long enough for the server's default, 30d.
expect_ok as_bob cub auth token create -o json
expect_eq "$((30 * 86400))" \
  "$(seconds_between "$(jget Token.CreatedAt)" "$(jget Token.ExpiresAt)")" "default lifetime 30d"

expect_fail 1 "--expires-in '61d' is longer than a token may live: at most 60d (cubd serve --token-max-lifetime)" \
  as_alice cub auth token create --expires-in 61d
expect_fail 1 "--expires-in 'tomorrow' is not a duration" as_alice cub auth token create --expires-in tomorrow
expect_fail 1 "Description must be one line" as_alice cub auth token create --description $'a\nb'
expect_fail 1 "Description holds 257 bytes" \
  as_alice cub auth token create --description "$(printf 'x%.0s' {1..257})"

###############################################################################################
section "cub auth token list"

expect_ok as_alice cub auth token list -o json
expect_eq "3" "$(jget len)" "alice has three active tokens"
expect_eq "$DEFAULT_ID" "$(jget 0.TokenID)" "newest first"
expect_eq "$CI_ID" "$(jget 1.TokenID)" "then the 7d one"
expect_not_contains "$OUT" "$CI_SECRET" "the list never shows a secret"
expect_not_contains "$OUT" "cub_" "no secret at all"
expect_ok as_alice cub auth token list
expect_match "$(head -1 <<<"$OUT")" '^ID +USER +DESCRIPTION +CREATED +EXPIRES +STATE' "table header"
expect_match "$OUT" "$CI_ID +alice +ci job +20[^ ]+Z +20[^ ]+Z +Active" "table row: names, not UUIDs"
# Only admins look at other users' tokens.
expect_fail 1 "only a server admin may list other users' tokens" as_bob cub auth token list --user alice
expect_fail 1 "only a server admin" as_bob cub auth token list --all
expect_ok as_bob cub auth token list -o json
expect_eq "2" "$(jget len)" "bob sees only his own two"
BOB_ID=$(jget 1.TokenID)  # his first: the one as_bob uses (newest first)
expect_not_contains "$OUT" "alice" "bob's list"
expect_ok env CUB_TOKEN="$ADMIN_TOKEN" cub auth token list --user alice -o json
expect_eq "3" "$(jget len)" "an admin lists alice's"
expect_ok env CUB_TOKEN="$ADMIN_TOKEN" cub auth token list --all -o json
expect_eq "6" "$(jget len)" "an admin lists everyone's (alice 3, bob 2, admin 1)"
expect_fail 1 "User 'nobody' not found" env CUB_TOKEN="$ADMIN_TOKEN" cub auth token list --user nobody

###############################################################################################
section "cub auth token revoke"

# Bob cannot see alice's token: NOT_FOUND, the same answer as for a token that does not exist.
expect_fail 1 "token $CI_ID not found" as_bob cub auth token revoke "$CI_ID"
expect_fail 1 "token 00000000-0000-0000-0000-000000000000 not found" \
  as_bob cub auth token revoke 00000000-0000-0000-0000-000000000000
expect_fail 1 "TokenID 'x' is not a token ID" as_bob cub auth token revoke x
expect_ok env CUB_TOKEN="$CI_SECRET" cub whoami
expect_ok as_alice cub auth token revoke "$CI_ID"
expect_match "$OUT" "^Revoked token $CI_ID of alice at 20" "revoke confirmation"
expect_fail 1 "the bearer token was revoked at 20" env CUB_TOKEN="$CI_SECRET" cub whoami
expect_match "$ERR" 'revoked at 20[0-9-]+T[0-9:]+Z by alice' "names when and by whom"
expect_fail 1 "token $CI_ID was already revoked at 20" as_alice cub auth token revoke "$CI_ID"
expect_contains "$ERR" "by alice" "the second revoke says by whom"
expect_ok as_alice cub auth token list -o json
expect_not_contains "$(ids)" "$CI_ID" "a revoked token is not listed by default"
expect_ok as_alice cub auth token list --include-inactive -o json
expect_contains "$(ids)" "$CI_ID" "--include-inactive lists it"
expect_ok as_alice cub auth token list --include-inactive
expect_match "$OUT" "$CI_ID .* Revoked 20[^ ]+Z by alice" "table: Revoked, when and by whom"

# An admin revokes another user's token.
expect_ok env CUB_TOKEN="$ADMIN_TOKEN" cub auth token revoke "$BOB_ID"
expect_fail 1 "the bearer token was revoked at" as_bob cub whoami
expect_contains "$ERR" "by admin" "bob's token revoked by admin"

# The database keeps it revoked, even for its owner.
run db -c "UPDATE tokens SET revoked_at = NULL, revoked_by = NULL WHERE id = '$CI_ID'"
((RC != 0)) || e2e_fail "un-revoking a token in SQL succeeded"
expect_contains "$ERR" "it stays revoked" "the trigger refuses un-revoking"

###############################################################################################
section "an expired token"

expect_ok as_alice cub auth token create --expires-in 1d --description "short" -o json
SHORT_SECRET=$(jget Secret)
SHORT_ID=$(jget Token.TokenID)
expect_ok env CUB_TOKEN="$SHORT_SECRET" cub whoami
# Its expiry brought forward (the only change to expires_at the database allows).
db -c "UPDATE tokens SET expires_at = '2026-01-02T03:04:05Z' WHERE id = '$SHORT_ID'" ||
  e2e_fail "bringing an expiry forward"
expect_fail 1 "the bearer token expired at 2026-01-02T03:04:05Z; create a new one with \`cub auth token create\`" \
  env CUB_TOKEN="$SHORT_SECRET" cub whoami
run db -c "UPDATE tokens SET expires_at = now() + interval '1 day' WHERE id = '$SHORT_ID'"
((RC != 0)) || e2e_fail "putting an expiry off in SQL succeeded"
expect_ok as_alice cub auth token list -o json
expect_not_contains "$(ids)" "$SHORT_ID" "an expired token is not listed by default"
expect_ok as_alice cub auth token list --include-inactive -o json
expect_contains "$OUT" '"State": "Expired"' "--include-inactive shows it Expired"

###############################################################################################
section "REST mirror"

H=http://$E2E_HTTP
# curl_json PATH BODY TOKEN: POSTs; sets OUT (body) and HTTP_CODE.
curl_json() {
  run curl -sS -o "$D/curl.body" -w '%{http_code}' -X POST -H 'Content-Type: application/json' \
    -H "Authorization: Bearer $3" --data-binary "$2" "$H$1"
  ((RC == 0)) || e2e_fail "curl failed"
  HTTP_CODE=$OUT
  OUT=$(cat "$D/curl.body")
}
curl_json /v1/AuthService/CreateToken '{"ExpiresIn":"2d","Description":"over REST"}' "$ALICE_TOKEN"
expect_eq "200" "$HTTP_CODE" "CreateToken over REST"
REST_SECRET=$(jget Secret)
REST_ID=$(jget Token.TokenID)
expect_eq "over REST" "$(jget Token.Description)" "REST Description"
curl_json /v1/AuthService/CreateToken '{"ExpiresIn":"90d"}' "$ALICE_TOKEN"
expect_eq "400" "$HTTP_CODE" "too long over REST"
expect_contains "$OUT" "at most 60d" "REST refusal"
curl_json /v1/AuthService/ListTokens '{}' "$REST_SECRET"
expect_eq "200" "$HTTP_CODE" "ListTokens over REST"
expect_contains "$(ids)" "$REST_ID" "REST list"
curl_json /v1/AuthService/ListTokens '{"User":"*"}' "$REST_SECRET"
expect_eq "403" "$HTTP_CODE" "a non-admin listing everyone's over REST"
curl_json /v1/AuthService/RevokeToken "{\"TokenID\":\"$REST_ID\"}" "$BOB_TOKEN"
expect_eq "401" "$HTTP_CODE" "a revoked token over REST"
expect_contains "$OUT" "revoked at" "REST says revoked"
curl_json /v1/AuthService/RevokeToken "{\"TokenID\":\"$REST_ID\"}" "$ALICE_TOKEN"
expect_eq "200" "$HTTP_CODE" "RevokeToken over REST"
expect_eq "Revoked" "$(jget Token.State)" "REST revoke State"
curl_json /v1/AuthService/WhoAmI '{}' "$REST_SECRET"
expect_eq "401" "$HTTP_CODE" "the revoked REST token"
curl_json /v1/AuthService/RevokeToken "{\"TokenID\":\"$REST_ID\"}" "$ALICE_TOKEN"
expect_eq "400" "$HTTP_CODE" "revoking twice over REST (FAILED_PRECONDITION)"

###############################################################################################
section "cubd serve flags"

run cubd serve --database-url "$E2E_SERVE_URL" --token-default-lifetime 90d --token-max-lifetime 30d
((RC != 0)) || e2e_fail "cubd serve accepted a default lifetime above the longest"
expect_contains "$ERR" "--token-default-lifetime 90d is longer than --token-max-lifetime 30d" \
  "serve flag check"
run cubd serve --database-url "$E2E_SERVE_URL" --token-max-lifetime 1x
((RC != 0)) || e2e_fail "cubd serve accepted --token-max-lifetime 1x"
expect_contains "$ERR" "'1x' is not a duration" "serve flag duration"
expect_ok cubd serve --help
expect_contains "$OUT" "--token-default-lifetime" "serve --help"

e2e_finish
