#!/usr/bin/env bash
# The test OpenID provider itself (tests/oidc): the harness the OIDC tests stand on. Drives it
# with curl and the harness scripts only, no cub: discovery; a device login completed by
# interact.mjs gives an ID token with preferred_username, email and groups; the refresh token
# works; a group edited in the accounts file shows at the next login; the authorization-code
# flow with PKCE on a loopback port, with interact.mjs as $BROWSER; client_credentials gives
# a JWT for audience cubd with the repository claim; key rotation changes the kid; mint.mjs's
# tokens verify, a stranger's and an expired one do not.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
e2e_init oidc_provider

# The payload of JWT $1 as JSON (no verification: oidc_verify does that).
payload() {
  python3 -c 'import base64, json, sys
p = sys.argv[1].split(".")[1]
print(json.dumps(json.loads(base64.urlsafe_b64decode(p + "=" * (-len(p) % 4))), sort_keys=True))' "$1"
}
header() {
  python3 -c 'import base64, json, sys
p = sys.argv[1].split(".")[0]
print(json.dumps(json.loads(base64.urlsafe_b64decode(p + "=" * (-len(p) % 4))), sort_keys=True))' "$1"
}
token_post() { curl -s --max-time 10 "$@" "$OIDC_ISSUER/token"; }
device_grant() {
  token_post -d client_id=cub-cli -d grant_type=urn:ietf:params:oauth:grant-type:device_code \
    -d "device_code=$1"
}
# device_login USER: a whole device flow as USER; leaves the token response in $OUT.
device_login() {
  expect_ok curl -s --max-time 10 -d client_id=cub-cli \
    -d "scope=openid profile email groups offline_access" "$OIDC_ISSUER/device/auth"
  local code uri
  code=$(jget device_code)
  uri=$(jget verification_uri_complete)
  expect_ok node "$OIDC_SRC/interact.mjs" --user "$1" "$uri"
  expect_ok device_grant "$code"
}

section "discovery"
oidc_start
expect_ok curl -sf "$OIDC_ISSUER/.well-known/openid-configuration"
expect_eq "$OIDC_ISSUER" "$(jget issuer)" "issuer"
expect_eq "$OIDC_ISSUER/device/auth" "$(jget device_authorization_endpoint)" "device endpoint"
expect_contains "$(jget grant_types_supported)" "urn:ietf:params:oauth:grant-type:device_code"
expect_contains "$(jget scopes_supported)" '"groups"'
expect_contains "$(jget id_token_signing_alg_values_supported)" '"EdDSA"'
expect_ok curl -sf "$OIDC_ISSUER/jwks"
expect_eq 3 "$(jget keys.len)" "published keys"
kid_before=$(jget keys.0.kid)

section "device flow as alice"
oidc_set_groups alice g1,g2
expect_ok curl -s --max-time 10 -d client_id=cub-cli \
  -d "scope=openid profile email groups offline_access" "$OIDC_ISSUER/device/auth"
device_code=$(jget device_code)
uri=$(jget verification_uri_complete)
expect_match "$uri" "^$OIDC_ISSUER/device\\?user_code="
expect_ok device_grant "$device_code"
expect_eq authorization_pending "$(jget error)" "before the login"
expect_ok node "$OIDC_SRC/interact.mjs" --user alice "$uri"
expect_ok device_grant "$device_code"
id_token=$(jget id_token)
refresh_token=$(jget refresh_token)
expect_ne "" "$refresh_token" "refresh token"
claims=$(payload "$id_token")
expect_eq alice "$(jget sub "$claims")" "sub"
expect_eq alice "$(jget preferred_username "$claims")" "preferred_username"
expect_eq alice@example.com "$(jget email "$claims")" "email"
expect_eq '["g1","g2"]' "$(jget groups "$claims")" "groups"
expect_eq cub-cli "$(jget aud "$claims")" "aud"
expect_eq "$OIDC_ISSUER" "$(jget iss "$claims")" "iss"
expect_eq "$kid_before" "$(jget kid "$(header "$id_token")")" "kid of the ID token"
expect_ok oidc_verify --audience cub-cli "$id_token"
section "refresh"
expect_ok token_post -d client_id=cub-cli -d grant_type=refresh_token -d "refresh_token=$refresh_token"
expect_ne "" "$(jget id_token)" "refreshed ID token"
expect_eq '["g1","g2"]' "$(jget groups "$(payload "$(jget id_token)")")" "groups after refresh"
refresh_token=$(jget refresh_token)

section "a group removed at the provider is gone at the next login"
oidc_set_groups alice g2
device_login alice
expect_eq '["g2"]' "$(jget groups "$(payload "$(jget id_token)")")" "groups at the next login"
oidc_set_groups bob ""
device_login bob
expect_eq '[]' "$(jget groups "$(payload "$(jget id_token)")")" "bob's groups"
expect_eq bob "$(jget preferred_username "$(payload "$(jget id_token)")")" "bob's username"

section "authorization code with PKCE on a loopback port, interact.mjs as BROWSER"
cb_port=$(free_port)
# A stand-in for the CLI's loopback listener: answers until it got the /callback.
python3 - "$cb_port" >"$E2E_TMP/callback.log" 2>&1 <<'PY' &
import http.server, sys
done = False
class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        global done
        if self.path.startswith("/callback"):
            print(self.path, flush=True)
            done = True
        self.send_response(200); self.end_headers(); self.wfile.write(b"done")
    def log_message(self, *a): pass
server = http.server.HTTPServer(("127.0.0.1", int(sys.argv[1])), H)
while not done:
    server.handle_request()
PY
cb_pid=$!
for _ in $(seq 100); do curl -s -o /dev/null "http://127.0.0.1:$cb_port/ready" && break; sleep 0.1; done
verifier=$(python3 -c 'import secrets; print(secrets.token_urlsafe(48))')
challenge=$(printf %s "$verifier" | openssl dgst -sha256 -binary | base64 | tr '+/' '-_' | tr -d '=')
redirect="http://127.0.0.1:$cb_port/callback"
auth_url="$OIDC_ISSUER/auth?client_id=cub-cli&response_type=code&scope=openid%20profile%20email%20groups&redirect_uri=$redirect&code_challenge=$challenge&code_challenge_method=S256&state=s1"
BROWSER=$(oidc_browser alice)
expect_ok bash -c "$BROWSER \"\$1\"" _ "$auth_url"
wait "$cb_pid"
callback=$(cat "$E2E_TMP/callback.log")
expect_match "$callback" '^/callback\?code=[^&]+&state=s1' "the loopback listener's request"
code=$(sed -n 's/^.*code=\([^&]*\).*$/\1/p' <<<"$callback")
expect_ok token_post -d client_id=cub-cli -d grant_type=authorization_code -d "code=$code" \
  -d "code_verifier=$verifier" -d "redirect_uri=$redirect"
expect_eq '["g2"]' "$(jget groups "$(payload "$(jget id_token)")")" "groups by the code flow"
expect_ne "" "$(jget refresh_token)" "refresh token by the code flow"
# Without PKCE the public client is refused.
expect_ok curl -s -o /dev/null -w '%{redirect_url}' \
  "$OIDC_ISSUER/auth?client_id=cub-cli&response_type=code&scope=openid&redirect_uri=$redirect"
expect_contains "$OUT" "error=invalid_request" "no code_challenge"

section "client_credentials for CI"
ci=$(oidc_ci_token)
expect_ne "" "$ci" "CI access token"
claims=$(payload "$ci")
expect_eq cubd "$(jget aud "$claims")" "aud"
expect_eq cub-ci "$(jget sub "$claims")" "sub"
expect_eq acme/app "$(jget repository "$claims")" "repository"
expect_eq "$OIDC_ISSUER" "$(jget iss "$claims")" "iss"
expect_ok oidc_verify --audience cubd "$ci"
expect_eq elsewhere "$(jget aud "$(payload "$(oidc_ci_token elsewhere)")")" "aud asked for"
oidc_set_ci_claims '{"repository": "acme/other", "ref": "refs/heads/main"}'
claims=$(payload "$(oidc_ci_token)")
expect_eq acme/other "$(jget repository "$claims")" "repository after the edit"
expect_eq refs/heads/main "$(jget ref "$claims")" "ref"
expect_ok curl -s -u cub-ci:wrong -d grant_type=client_credentials "$OIDC_ISSUER/token"
expect_eq invalid_client "$(jget error)" "wrong secret"

section "key rotation"
oidc_rotate_keys
expect_ok curl -sf "$OIDC_ISSUER/jwks"
expect_eq "$OIDC_KID" "$(jget keys.0.kid)" "first published key"
expect_ne "$kid_before" "$OIDC_KID" "the kid"
expect_not_contains "$OUT" "$kid_before" "the JWKS after rotation"
expect_ok token_post -d client_id=cub-cli -d grant_type=refresh_token -d "refresh_token=$refresh_token"
expect_eq "$OIDC_KID" "$(jget kid "$(header "$(jget id_token)")")" "kid of a token after rotation"
expect_ok oidc_verify "$(jget id_token)"
expect_eq "$OIDC_KID" "$(jget kid "$(header "$(oidc_ci_token)")")" "kid of a CI token"
old_kid=$OIDC_KID
oidc_rotate_keys --keep-old
expect_ok curl -sf "$OIDC_ISSUER/jwks"
expect_contains "$OUT" "\"$old_kid\"" "the JWKS keeps the old key with --keep-old"
expect_eq 6 "$(jget keys.len)" "published keys with --keep-old"

section "mint.mjs"
for alg in RS256 ES256 EdDSA; do
  t=$(oidc_mint --alg "$alg" '{"sub": "carol", "groups": ["x"]}')
  expect_ok oidc_verify --audience cub-cli "$t"
  expect_eq "$alg" "$(jget header.alg)" "alg"
  expect_eq carol "$(jget payload.sub)" "sub"
  expect_eq "$OIDC_ISSUER" "$(jget payload.iss)" "iss"
  expect_fail 1 ERR_JWS_SIGNATURE_VERIFICATION_FAILED \
    oidc_verify "$(oidc_mint --alg "$alg" --stranger '{"sub": "carol"}')"
done
expect_fail 1 ERR_JWT_EXPIRED oidc_verify "$(oidc_mint --exp-in -120 '{"sub": "carol"}')"
expect_fail 1 ERR_JWT_CLAIM_VALIDATION_FAILED \
  oidc_verify --audience cub-cli "$(oidc_mint '{"sub": "carol", "aud": "other"}')"
expect_eq none "$(jget alg "$(header "$(oidc_mint --alg none '{"sub": "carol"}')")")" "unsigned"

section "stop"
oidc_stop
expect_fail 7 "" curl -s --max-time 2 "$OIDC_ISSUER/jwks"

e2e_finish
