#!/usr/bin/env bash
# `cub auth login --oidc` against the real test provider (tests/oidc) and a cubd that trusts
# it: the device flow completed by interact.mjs; `cub whoami` showing issuer, subject, email
# and groups; the browser flow (PKCE on a loopback redirect) with interact.mjs as $BROWSER; the
# context that --oidc makes current only when asked; the silent refresh of an expired ID token
# (and that a --token/CUB_TOKEN one is never refreshed); a revoked or invalid refresh token
# giving the message that says to log in again; the refusals of the issuer choice.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
e2e_init oidc_login

# cfg PATH: the value at PATH (jget syntax) of the CLI's config file.
cfg() { jget "$1" "$(cat "$CUB_CONFIG")"; }
# The payload of JWT $1 as JSON (not verified).
payload() {
  python3 -c 'import base64, json, sys
p = sys.argv[1].split(".")[1]
print(json.dumps(json.loads(base64.urlsafe_b64decode(p + "=" * (-len(p) % 4)))))' "$1"
}
# set_token CONTEXT TOKEN [REFRESH]: edits the config file as another program could.
set_token() {
  python3 - "$CUB_CONFIG" "$@" <<'PY'
import json, os, sys
path, name, token = sys.argv[1:4]
c = json.load(open(path))
c["Contexts"][name]["Token"] = token
if len(sys.argv) > 4:
    c["Contexts"][name]["RefreshToken"] = sys.argv[4]
open(path + ".edit", "w").write(json.dumps(c))
os.replace(path + ".edit", path)
PY
}

oidc_start >/dev/null
oidc_set_groups alice devs,ops
oidc_set_groups bob devs
e2e_start_cubd main --oidc-issuer "$OIDC_ISSUER" --oidc-client-id cub-cli
S=$E2E_SERVER
# Not a browser at hand, unless a test says so.
unset BROWSER DISPLAY WAYLAND_DISPLAY

section "a token login is the current context"
expect_ok cub auth login --server "$S" --token "$ADMIN_TOKEN" --context admin
expect_eq admin "$(cfg CurrentContext)" "current context"

section "device flow"
expect_ok oidc_device_login_as alice -- cub auth login --oidc --device --server "$S" --context alice
expect_eq "Logged in to $S as alice (issuer $OIDC_ISSUER); saved as context alice, the current context is still admin (cub context use alice to switch)" "$OUT"
expect_match "$ERR" "Open $OIDC_ISSUER/device[^ ]* and enter the code [A-Z-]+"
expect_contains "$ERR" "Or open: $OIDC_ISSUER/device?user_code="
# --oidc leaves another current context alone, and says so (above).
expect_eq admin "$(cfg CurrentContext)" "current context after --oidc"
expect_eq "$OIDC_ISSUER" "$(cfg Contexts.alice.OidcIssuer)" "saved issuer"
expect_eq cub-cli "$(cfg Contexts.alice.OidcClientID)" "saved client"
expect_eq "$S" "$(cfg Contexts.alice.Server)" "saved server"
alice_refresh=$(cfg Contexts.alice.RefreshToken)
expect_ne "" "$alice_refresh" "saved refresh token"
alice_id=$(cfg Contexts.alice.Token)
expect_eq alice "$(jget sub "$(payload "$alice_id")")" "the saved token is alice's ID token"
expect_eq 600 "$(stat -c %a "$CUB_CONFIG")" "config file mode"

section "whoami"
expect_ok cub whoami --context alice -o json
expect_eq alice "$(jget User.Username)" "username"
expect_eq "$OIDC_ISSUER" "$(jget User.Issuer)" "issuer"
expect_eq alice "$(jget User.Subject)" "subject"
expect_eq alice@example.com "$(jget User.Email)" "email"
expect_eq '["devs","ops"]' "$(jget User.Groups)" "groups"
expect_eq OIDC "$(jget AuthenticatedBy)" "authenticated by"
expect_eq false "$(jget User.ServiceAccount)" "service account"
expect_ne "" "$(jget ExpiresAt)" "expiry"
expect_ok cub auth whoami --context alice
expect_eq "FIELD Username UserID Issuer Subject Email Groups Admin ServiceAccount AuthenticatedBy ExpiresAt" \
  "$(awk '{print $1}' <<<"$OUT" | xargs)" "whoami table rows"
expect_match "$OUT" "Issuer +$OIDC_ISSUER"
expect_match "$OUT" "AuthenticatedBy +OIDC"
expect_contains "$OUT" "devs, ops"
expect_ok cub whoami
expect_contains "$OUT" "admin"

section "browser flow (PKCE) with \$BROWSER"
expect_ok env BROWSER="$(oidc_browser bob)" cub auth login --oidc --browser --server "$S" \
  --context bob --use
expect_eq "Logged in to $S as bob (issuer $OIDC_ISSUER); saved as context bob (current)" "$OUT"
expect_contains "$ERR" "redirect_uri=http%3A%2F%2F127.0.0.1%3A"
expect_contains "$ERR" "code_challenge_method=S256"
expect_eq bob "$(cfg CurrentContext)" "--use makes it current"
expect_ok cub whoami -o json
expect_eq bob "$(jget User.Username)" "current user"
expect_eq '["devs"]' "$(jget User.Groups)" "bob's groups"
# Without --device or --browser, $BROWSER chooses the browser flow; logging in again to the
# current context keeps it current.
expect_ok env BROWSER="$(oidc_browser bob)" cub auth login --oidc --server "$S" --context bob
expect_contains "$ERR" "code_challenge="
expect_not_contains "$ERR" "enter the code"
expect_eq bob "$(cfg CurrentContext)" "re-login keeps the current context"
# A browser that fails ends the wait at once, naming it.
expect_fail 1 "the browser command (\$BROWSER) failed" env BROWSER=false \
  cub auth login --oidc --server "$S" --context bob

section "silent refresh of an expired ID token"
expired=$(oidc_mint --exp-in -120 '{"sub": "alice", "preferred_username": "alice"}')
set_token alice "$expired"
expect_ok cub whoami --context alice -o json
expect_eq alice "$(jget User.Username)" "refreshed login"
new_id=$(cfg Contexts.alice.Token)
expect_ne "$expired" "$new_id" "the saved ID token was replaced"
expect_eq alice "$(jget sub "$(payload "$new_id")")" "the new token's subject"
exp=$(jget exp "$(payload "$new_id")")
(( exp > $(date +%s) + 60 )) || e2e_fail "the refreshed token expires at $exp, within a minute"
expect_ne "$alice_refresh" "$(cfg Contexts.alice.RefreshToken)" "the rotated refresh token"
expect_eq bob "$(cfg CurrentContext)" "the refresh changed only alice's tokens"
expect_eq "$ADMIN_TOKEN" "$(cfg Contexts.admin.Token)" "other contexts untouched"
# The next command uses the saved token as it is.
refreshed_once=$(cfg Contexts.alice.Token)
expect_ok cub whoami --context alice
expect_eq "$refreshed_once" "$(cfg Contexts.alice.Token)" "a fresh token is not refreshed again"

section "a token given by --token or CUB_TOKEN is never refreshed"
expect_fail 1 "expired" cub whoami --server "$S" --token "$expired"
expect_fail 1 "expired" env CUB_TOKEN="$expired" cub whoami --context alice
expect_eq "$refreshed_once" "$(cfg Contexts.alice.Token)" "the context's token is untouched"

section "a revoked or invalid refresh token: log in again"
expect_ok curl -sf "$OIDC_ISSUER/.well-known/openid-configuration"
revocation=$(jget revocation_endpoint)
expect_ok curl -s --max-time 10 -d client_id=cub-cli -d token_type_hint=refresh_token \
  -d "token=$(cfg Contexts.alice.RefreshToken)" "$revocation"
set_token alice "$expired"
expect_fail 1 "the login at $OIDC_ISSUER expired; run \`cub auth login --oidc --server $S --context alice\` again" \
  cub whoami --context alice
expect_contains "$ERR" "invalid_grant"
expect_eq "$expired" "$(cfg Contexts.alice.Token)" "nothing saved after a failed refresh"
set_token alice "$expired" not-a-refresh-token
expect_fail 1 "the login at $OIDC_ISSUER expired; run \`cub auth login --oidc --server $S --context alice\` again" \
  cub space list --context alice
# Logging in again repairs it.
expect_ok oidc_device_login_as alice -- cub auth login --oidc --server "$S" --context alice
expect_ok cub whoami --context alice
expect_contains "$OUT" "alice@example.com"

section "which issuer"
expect_fail 1 "--oidc-issuer https://idp.example.com is not an issuer cubd at $S trusts; it trusts: $OIDC_ISSUER" \
  cub auth login --oidc --device --server "$S" --oidc-issuer https://idp.example.com
expect_fail 2 "--device and --browser exclude each other" \
  cub auth login --oidc --device --browser --server "$S"
expect_fail 2 "go with --oidc" cub auth login --device --server "$S" --token "$ADMIN_TOKEN"
e2e_start_cubd plain
expect_fail 1 "trusts no OpenID provider" \
  cub auth login --oidc --device --server "${CUBD_GRPC[plain]}"
e2e_stop_cubd plain
e2e_start_cubd two --oidc-issuer "$OIDC_ISSUER" --oidc-client-id cub-cli \
  --oidc-issuer https://idp.example.com --oidc-client-id other
expect_fail 1 "trusts several OpenID providers ($OIDC_ISSUER, https://idp.example.com): choose one with --oidc-issuer" \
  cub auth login --oidc --device --server "${CUBD_GRPC[two]}"
expect_ok oidc_device_login_as bob -- cub auth login --oidc --server "${CUBD_GRPC[two]}" \
  --oidc-issuer "$OIDC_ISSUER" --context two
expect_contains "$OUT" "as bob (issuer $OIDC_ISSUER)"

e2e_finish
