#!/usr/bin/env bash
# The dashboard's OpenID login (server/ui_oidc.h) against the real test provider (tests/oidc)
# and a cubd that trusts it: in Debian's headless Chromium (tests/ui/oidc_login.mjs), a person
# logs in at the provider and lands in the dashboard as themselves; then, with curl, what
# /ui/oidc/start sends the browser to and sets, and the refusals: no issuer, an issuer cubd does
# not trust, a callback with a state other than the log-in cookie's, the provider's refusal,
# and a method other than GET. Screenshots go to build/ui-screenshots/.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
UI_SRC=$CUB_SOURCE_DIR/tests/ui
[[ -x /usr/bin/chromium ]] || _e2e_die_setup "/usr/bin/chromium is missing: apt-get install chromium"
[[ -d $UI_SRC/node_modules/playwright-core ]] ||
  _e2e_die_setup "$UI_SRC/node_modules is missing: run (cd tests/ui && npm ci)"
e2e_init ui_oidc
oidc_start >/dev/null
oidc_set_groups carol devs
e2e_start_cubd main --oidc-issuer "$OIDC_ISSUER" --oidc-client-id cub-cli
U="http://$E2E_HTTP"

section "log in at the provider in Chromium"
shots=$CUB_BIN_DIR/../ui-screenshots
CUB_UI_URL=$U CUB_UI_SHOTS=$shots CUB_UI_OIDC_USER=carol CUB_UI_ISSUER=$OIDC_ISSUER \
  E2E_CMD_TIMEOUT=180 expect_ok node "$UI_SRC/oidc_login.mjs"
printf '%s\n' "$OUT"
for f in oidc-01-login oidc-02-logged-in oidc-03-refused; do
  [[ -s $shots/$f.png ]] || e2e_fail "screenshot $f.png is missing"
done
_e2e_pass "3 screenshots in $shots"

section "what /ui/oidc/start sends the browser to"
enc=$(python3 -c 'import sys, urllib.parse; print(urllib.parse.quote(sys.argv[1], safe=""))' "$OIDC_ISSUER")
headers=$(curl -sS -o /dev/null -D - "$U/ui/oidc/start?issuer=$enc")
expect_match "$headers" "HTTP/1.1 302"
location=$(printf '%s' "$headers" | tr -d '\r' | sed -n 's/^[Ll]ocation: //p')
expect_match "$location" "^$OIDC_ISSUER/auth\\?"
for p in response_type=code client_id=cub-cli code_challenge_method=S256 \
  "redirect_uri=http%3A%2F%2F127.0.0.1%3A${E2E_HTTP#*:}%2Fui%2Foidc%2Fcallback"; do
  expect_contains "$location" "$p"
done
cookie=$(printf '%s' "$headers" | tr -d '\r' | sed -n 's/^[Ss]et-[Cc]ookie: //p')
expect_match "$cookie" "^cub_oidc=[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+; Path=/ui/oidc/; HttpOnly; SameSite=Lax; Max-Age=600$"
state=$(printf '%s' "$location" | sed -n 's/.*[?&]state=\([^&]*\).*/\1/p')
expect_ne "" "$state" "the authorization request carries a state"
login_cookie=${cookie%%;*}

section "refusals change nothing"
# status_of URL [curl args]: the HTTP status, and the page's failure text in $PAGE.
status_of() {
  local url=$1; shift
  PAGE=$(curl -sS -w '\n%{http_code}' "$@" "$url")
  STATUS=${PAGE##*$'\n'}
  PAGE=${PAGE%$'\n'*}
}
status_of "$U/ui/oidc/start"
expect_eq 400 "$STATUS" "start with no issuer"
expect_contains "$PAGE" "needs the query parameter issuer"
status_of "$U/ui/oidc/start?issuer=https%3A%2F%2Fevil.example"
expect_eq 400 "$STATUS" "start at an untrusted issuer"
expect_contains "$PAGE" "&#39;https://evil.example&#39; is not an issuer this cubd trusts; it trusts: $OIDC_ISSUER"
status_of "$U/ui/oidc/callback?code=c&state=other" -H "Cookie: $login_cookie"
expect_eq 400 "$STATUS" "callback with another state"
expect_contains "$PAGE" "state does not match this login"
expect_not_contains "$PAGE" "cub_session"
status_of "$U/ui/oidc/callback?error=access_denied&error_description=nope&state=$state" \
  -H "Cookie: $login_cookie"
expect_eq 400 "$STATUS" "callback with the provider's refusal"
expect_contains "$PAGE" "the provider refused the login: access_denied"
status_of "$U/ui/oidc/callback?code=c&state=$state" -H "Cookie: $login_cookie" -D "$E2E_TMP/h"
expect_eq 400 "$STATUS" "callback with a code the provider never issued"
expect_contains "$PAGE" "invalid_grant"
expect_not_contains "$(cat "$E2E_TMP/h")" "cub_session="
status_of "$U/ui/oidc/start?issuer=$enc" -X POST
expect_eq 405 "$STATUS" "POST to start"
status_of "$U/ui/oidc/callback?code=<script>&state=x" -H "Cookie: $login_cookie"
expect_not_contains "$PAGE" "<script>"

e2e_finish
