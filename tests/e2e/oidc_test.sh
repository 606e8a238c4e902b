#!/usr/bin/env bash
# Issue 14 end to end, against a real OpenID provider (tests/oidc: oidc-provider from npm):
# people log in through the provider and vote, counted by the groups their login carries; a
# group removed at the provider stops counting at the next login; expired, wrongly signed,
# wrong-audience and unknown-issuer tokens are refused saying why, on gRPC and REST; a key
# rotation at the provider needs nothing at cubd; a CI token mapped to a service account
# promotes but cannot vote (nor mint itself a cub token); `cub whoami` shows issuer, subject,
# username, email and groups; cub's own tokens made by a logged-in person, and revoked.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
e2e_init oidc

# A person's ID token from a whole device flow at the provider, completed by interact.mjs
# as USER, driven with curl (the CLI's own login is tested below).
id_token_for() {  # id_token_for USER: prints the ID token
  local start code uri body
  start=$(curl -s --max-time 10 -d client_id=cub-cli \
    -d "scope=openid profile email groups offline_access" "$OIDC_ISSUER/device/auth") || return 1
  code=$(jget device_code "$start") || { echo "device/auth: $start" >&2; return 1; }
  uri=$(jget verification_uri_complete "$start")
  node "$OIDC_SRC/interact.mjs" --user "$1" "$uri" >&2 || return 1
  body=$(curl -s --max-time 10 -d client_id=cub-cli -d "device_code=$code" \
    -d grant_type=urn:ietf:params:oauth:grant-type:device_code "$OIDC_ISSUER/token")
  jget id_token "$body" || { echo "token: $body" >&2; return 1; }
}
# cub_as CONTEXT ARGS...: cub with a saved context's server and token (not $CUB_TOKEN's).
cub_as() { local c=$1; shift; env -u CUB_TOKEN cub --context "$c" "$@"; }
# context_field CONTEXT FIELD / set_context_field CONTEXT FIELD VALUE: in $CUB_CONFIG.
context_field() {
  python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["Contexts"][sys.argv[2]][sys.argv[3]])' \
    "$CUB_CONFIG" "$1" "$2"
}
set_context_field() {
  python3 -c 'import json, sys
path, name, field, value = sys.argv[1:]
c = json.load(open(path)); c["Contexts"][name][field] = value
json.dump(c, open(path, "w"), indent=2)' "$CUB_CONFIG" "$1" "$2" "$3"
}
_jwt_part() {
  python3 -c 'import base64, json, sys
p = sys.argv[1].split(".")[int(sys.argv[2])]
print(json.dumps(json.loads(base64.urlsafe_b64decode(p + "=" * (-len(p) % 4)))))' "$1" "$2"
}
jwt_header() { _jwt_part "$1" 0; }
jwt_payload() { _jwt_part "$1" 1; }
sorted_json() { python3 -c 'import json, sys; print(json.dumps(sorted(json.load(sys.stdin)), separators=(",", ":")))'; }
# rest_whoami TOKEN: the REST mirror's WhoAmI; HTTP status in $HTTP_CODE, body in $OUT.
rest_whoami() {
  run curl -sS -o "$E2E_TMP/rest.body" -w '%{http_code}' -X POST \
    -H 'Content-Type: application/json' -H "Authorization: Bearer $1" --data-binary '{}' \
    "http://$E2E_HTTP/v1/AuthService/WhoAmI"
  ((RC == 0)) || e2e_fail "curl failed"
  HTTP_CODE=$OUT
  OUT=$(cat "$E2E_TMP/rest.body")
}

section "setup: the provider, cubd trusting it, a CI mapping, a workflow that counts groups"
# Two providers, as in practice: the people's (like Dex or Keycloak) and the CI system's (like
# GitHub Actions), whose client_credentials tokens stand in for a pipeline's.
oidc_start "$E2E_TMP/ci-idp"
CI_IDP=$OIDC_DIR
CI_ISSUER=$OIDC_ISSUER
oidc_start "$E2E_TMP/people-idp"
PEOPLE_IDP=$OIDC_DIR
ci_token() { (oidc_use "$CI_IDP" && oidc_ci_token "$@"); }
ci_claims() { (oidc_use "$CI_IDP" && oidc_set_ci_claims "$@"); }
oidc_set_groups alice release-approvers
oidc_set_groups carol sre,oncall
oidc_set_groups dave ""
e2e_start_cubd main --oidc-issuer "$OIDC_ISSUER" --oidc-client-id cub-cli
export CUB_SERVER=$E2E_SERVER CUB_TOKEN=$ADMIN_TOKEN
expect_ok cubd serviceaccount create ci --oidc-issuer "$CI_ISSUER" --subject 'cub-*' \
  --claim repository=acme/app --database-url "$E2E_DB_URL"
expect_contains "$OUT" "created service account ci"
expect_ok cubd serviceaccount list --database-url "$E2E_DB_URL"
expect_contains "$OUT" "repository=acme/app"

expect_ok cub space create platform
cat >"$E2E_TMP/flow.yaml" <<YAML
Stages:
  - Name: dev
    WhereSpace: "Labels.Stage = 'Development'"
  - Name: staging
    WhereSpace: "Labels.Stage = 'Staging'"
  - Name: prod
    WhereSpace: "Labels.Stage = 'Production'"
    Prerequisites: [two-groups]
AttestationPrerequisites:
  - Name: two-groups
    Count: 2
    FromGroups: [release-approvers, sre]
    DistinctGroups: true
YAML
expect_ok cub changeworkflow create --space platform flow --filename "$E2E_TMP/flow.yaml"
expect_ok cub space create acme-base
deployment v1 >"$E2E_TMP/v1.yaml"
expect_ok cub unit create --space acme-base deployment "$E2E_TMP/v1.yaml"
expect_ok cub variant create acme-dev acme-base --stage Development
expect_ok cub variant create acme-staging acme-base --stage Staging
expect_ok cub variant create acme-prod acme-base --stage Production
for s in acme-base acme-dev acme-staging acme-prod; do
  expect_ok cub space grant "$s" editor --user ci
  expect_ok cub space grant "$s" approver --user ci
done
# Roles for provider groups: nobody named alice or carol exists yet.
expect_ok cub space grant acme-staging approver --group release-approvers
expect_ok cub space grant acme-staging approver --group sre

section "people: cub auth login --oidc (device flow) makes a personal user with its groups"
expect_ok oidc_device_login_as alice -- env -u CUB_TOKEN cub auth login --oidc \
  --server "$E2E_SERVER" --device --context alice
expect_contains "$ERR" "Or open: $OIDC_ISSUER/device"
expect_contains "$OUT" "as alice (issuer $OIDC_ISSUER)"
expect_ok cub_as alice whoami -o json
expect_eq alice "$(jget User.Username)" "username"
expect_eq "$OIDC_ISSUER" "$(jget User.Issuer)" "issuer"
expect_eq alice "$(jget User.Subject)" "subject"
expect_eq alice@example.com "$(jget User.Email)" "email"
expect_eq '["release-approvers"]' "$(jget User.Groups)" "groups"
expect_eq OIDC "$(jget AuthenticatedBy)" "authenticated by"
expect_ne "" "$(jget ExpiresAt)" "expiry of the ID token"
expect_ne true "$(jget User.ServiceAccount)" "a person"
expect_ne true "$(jget User.Admin)" "not an admin"
expect_ok cub_as alice whoami
expect_contains "$OUT" "$OIDC_ISSUER"
expect_contains "$OUT" "alice@example.com"
expect_contains "$OUT" "release-approvers"
# The context keeps the provider's ID token and refresh token.
ALICE=$(context_field alice Token)
expect_eq "$OIDC_ISSUER" "$(context_field alice OidcIssuer)" "the context's issuer"
expect_ne "" "$(context_field alice RefreshToken)" "the context's refresh token"
expect_eq alice "$(jget preferred_username "$(jwt_payload "$ALICE")")" "the context's ID token"
# The same ID token as a bearer token, on gRPC and on the REST mirror.
expect_ok cub whoami --token "$ALICE" -o json
expect_eq alice "$(jget User.Username)" "username with --token"
rest_whoami "$ALICE"
expect_eq 200 "$HTTP_CODE" "REST WhoAmI with an ID token"
expect_eq alice "$(jget User.Username)" "REST username"

section "people: the browser flow (PKCE on a loopback port), interact.mjs as the browser"
expect_ok env -u CUB_TOKEN BROWSER="$(oidc_browser carol)" cub auth login --oidc \
  --server "$E2E_SERVER" --browser --context carol
expect_contains "$OUT" "as carol (issuer $OIDC_ISSUER)"
expect_ok cub_as carol whoami -o json
expect_eq '["oncall","sre"]' "$(jget User.Groups | sorted_json)" "carol's groups"
DAVE=$(id_token_for dave) || e2e_fail "no ID token for dave"
expect_ok cub whoami --token "$DAVE" -o json
expect_eq '[]' "$(jget User.Groups)" "dave's groups"
# Once a person logged in, roles can be granted to the user too.
expect_ok cub space grant acme-base viewer --user dave
expect_ok cub space grant acme-staging viewer --user dave

section "CI: a client_credentials token of the provider acts as the service account"
CI=$(ci_token) || e2e_fail "no CI token"
expect_ok cub whoami --token "$CI" -o json
expect_eq ci "$(jget User.Username)" "service account"
expect_eq true "$(jget User.ServiceAccount)" "is a service account"
expect_eq OIDC "$(jget AuthenticatedBy)" "CI authenticated by"
expect_ok as "$CI" cub function set --space acme-base --unit deployment \
  -- set-image-reference-by-uri ghcr.io/acme/acme ":v2"
expect_ok cub changeorder create --space acme-base v2 --description v2 \
  --change-workflow platform/flow
expect_ok as "$CI" cub variant promote --change-order acme-base/v2
expect_ok as "$CI" cub variant promote --change-order acme-base/v2
expect_fail 1 "requires two-groups" as "$CI" cub variant promote --change-order acme-base/v2
expect_fail 1 "service account and cannot vote" as "$CI" cub variant approve acme-staging \
  --change-order acme-base/v2
# Tokens matching no mapping name what is wrong.
ci_claims '{"repository": "acme/other"}'
expect_fail 1 "no service account matches" cub whoami --token "$(ci_token)"
ci_claims '{"repository": "acme/app"}'
expect_fail 1 "not 'cubd'" cub whoami --token "$(ci_token elsewhere)"
# The people's provider is no CI issuer here: its client_credentials token is for cubd, not
# for the CLI's client.
expect_fail 1 "the token is for audience 'cubd', not 'cub-cli'" cub whoami --token \
  "$(oidc_ci_token)"

section "votes counted by the groups of the login"
expect_ok cub_as alice variant approve acme-staging --change-order acme-base/v2
expect_fail 1 "requires two-groups" as "$CI" cub variant promote --change-order acme-base/v2 \
  --dry-run
expect_ok cub_as carol variant approve acme-staging --change-order acme-base/v2
expect_ok as "$CI" cub variant promote --change-order acme-base/v2 --dry-run
expect_fail 1 "needs the approver or admin role" as "$DAVE" cub variant approve acme-staging \
  --change-order acme-base/v2

section "a group removed at the provider stops counting at the next login"
oidc_set_groups carol oncall
# Until carol logs in again, cubd knows only what her last login said.
expect_ok as "$CI" cub variant promote --change-order acme-base/v2 --dry-run
expect_ok oidc_device_login_as carol -- env -u CUB_TOKEN cub auth login --oidc \
  --server "$E2E_SERVER" --device --context carol
expect_ok cub_as carol whoami -o json
expect_eq '["oncall"]' "$(jget User.Groups)" "carol's groups after the next login"
expect_fail 1 "requires two-groups" as "$CI" cub variant promote --change-order acme-base/v2 \
  --dry-run

section "the CLI refreshes an expired ID token silently, and the new one carries the groups"
oidc_set_groups carol sre,oncall
old_refresh=$(context_field carol RefreshToken)
# Make the context's ID token one that has expired: the next command must refresh it.
set_context_field carol Token "$(oidc_mint --exp-in -30 \
  '{"sub": "carol", "preferred_username": "carol", "groups": ["oncall"]}')"
expect_ok cub_as carol whoami -o json
expect_eq carol "$(jget User.Username)" "carol after the refresh"
expect_eq '["oncall","sre"]' "$(jget User.Groups | sorted_json)" "carol's groups after the refresh"
CAROL=$(context_field carol Token)
expect_eq '["oncall","sre"]' "$(jget groups "$(jwt_payload "$CAROL")" | sorted_json)" \
  "groups in the refreshed ID token"
expect_ne "$old_refresh" "$(context_field carol RefreshToken)" "the rotated refresh token"
expect_ok as "$CI" cub variant promote --change-order acme-base/v2
expect_contains "$OUT" "into stage prod"

section "refused tokens say why"
expect_fail 1 "the token expired at" cub whoami --token \
  "$(oidc_mint --exp-in -600 '{"sub": "alice", "preferred_username": "alice"}')"
expect_fail 1 "the token's signature does not verify with the keys of issuer $OIDC_ISSUER" \
  cub whoami --token "$(oidc_mint --stranger '{"sub": "alice", "preferred_username": "alice"}')"
expect_fail 1 "the token is for audience 'someone-else', not 'cub-cli'" cub whoami --token \
  "$(oidc_mint '{"sub": "alice", "preferred_username": "alice", "aud": "someone-else"}')"
expect_fail 1 "the token was issued by 'https://idp.example.com', which cubd does not trust" \
  cub whoami --token "$(oidc_mint --issuer https://idp.example.com '{"sub": "alice"}')"
expect_fail 1 "not valid before" cub whoami --token \
  "$(oidc_mint '{"sub": "alice", "preferred_username": "alice", "nbf": 4102444800}')"
expect_fail 1 "" cub whoami --token "$(oidc_mint --alg none '{"sub": "alice"}')"
# The same on the REST mirror: 401 with the reason.
rest_whoami "$(oidc_mint --exp-in -600 '{"sub": "alice", "preferred_username": "alice"}')"
expect_eq 401 "$HTTP_CODE" "REST status of an expired token"
expect_contains "$OUT" "the token expired at"
rest_whoami "$(oidc_mint --issuer https://idp.example.com '{"sub": "alice"}')"
expect_eq 401 "$HTTP_CODE" "REST status of an unknown issuer"
expect_contains "$OUT" "which cubd does not trust"
# A minted token with the provider's key is as good as its own (ES256 and EdDSA too).
for alg in ES256 EdDSA; do
  expect_ok cub whoami --token "$(oidc_mint --alg "$alg" \
    '{"sub": "alice", "preferred_username": "alice", "groups": ["release-approvers"]}')"
done

section "cub's own tokens next to the provider's: made by a logged-in person, expiring, revoked"
expect_ok cub_as alice auth token create --expires-in 1d --description "laptop script" -o json
SECRET=$(jget Secret)
SECRET_ID=$(jget Token.TokenID)
expect_match "$SECRET" '^cub_' "a token of cub's own"
expect_ok cub whoami --token "$SECRET" -o json
expect_eq alice "$(jget User.Username)" "the token is alice's"
expect_eq Token "$(jget AuthenticatedBy)" "authenticated by a cub token"
expect_ok cub_as alice auth token revoke "$SECRET_ID"
expect_fail 1 "the bearer token was revoked at" cub whoami --token "$SECRET"
expect_match "$ERR" "revoked at 20[0-9-]+T[0-9:]+Z by alice" "when and by whom"
# A pipeline on workload identity cannot mint itself a long-lived secret.
expect_fail 1 "cannot create long-lived cub tokens" as "$(ci_token)" cub auth token create

section "key rotation at the provider"
old_kid=$OIDC_KID
oidc_rotate_keys
expect_ne "$old_kid" "$OIDC_KID" "the provider's kid"
expect_ok oidc_device_login_as alice -- env -u CUB_TOKEN cub auth login --oidc \
  --server "$E2E_SERVER" --device --context alice
expect_eq "$OIDC_KID" "$(jget kid "$(jwt_header "$(context_field alice Token)")")" \
  "kid of alice's new ID token"
expect_ok cub_as alice whoami -o json
expect_eq alice "$(jget User.Username)" "alice after the rotation"
expect_ok cub whoami --token "$(ci_token)"
# The old key is gone from the provider's JWKS: a token it signed is refused.
expect_fail 1 "the token is signed by key '$old_kid', which the issuer does not publish" \
  cub whoami --token "$DAVE"

e2e_finish
