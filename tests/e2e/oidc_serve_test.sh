#!/usr/bin/env bash
# cubd serve's --oidc-* flags and --oidc-config through the real binaries, with no provider
# running: refusals at startup (exit 2, naming the flag or key), a start that does not wait for
# a provider that is down (one log line per issuer), GetLoginConfig without a token, the
# refusals of provider tokens that need no provider to decide (an issuer cubd does not trust)
# or cannot be decided without it (keys not fetched), and `cubd serviceaccount create|list`.
# The logins themselves are tested against a real provider in oidc_test.sh and
# tests/integration/oidc_login_test.cc.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
e2e_init oidc_serve

# A JWT that names `iss` (its signature is nonsense: these refusals come before any check).
jwt() {
  python3 - "$1" <<'PY'
import base64, json, sys
b = lambda d: base64.urlsafe_b64encode(json.dumps(d).encode()).rstrip(b"=").decode()
print(b({"alg": "RS256", "kid": "k1"}) + "." + b({"iss": sys.argv[1], "sub": "alice",
      "aud": "cub-cli", "exp": 4102444800}) + ".c2ln")
PY
}
runtime() { "$E2E_PSQL" -X -q -A -t -v ON_ERROR_STOP=1 "$E2E_SERVE_URL" "$@"; }
serve() {
  cubd serve --database-url "$E2E_SERVE_URL" --listen "127.0.0.1:$(free_port)" "$@"
}

section "refused at startup, naming what is wrong"
expect_fail 2 "--oidc-client-id is given 1 time(s) for 2 --oidc-issuer" \
  serve --oidc-issuer http://127.0.0.1:9 --oidc-issuer https://sso.example.com \
  --oidc-client-id cub-cli
expect_fail 2 "--oidc-groups-prefix is given 1 time(s) for 2 --oidc-issuer" \
  serve --oidc-issuer http://127.0.0.1:9 --oidc-client-id a --oidc-issuer https://sso.example.com \
  --oidc-client-id b --oidc-groups-prefix dex:
expect_fail 2 "--oidc-issuer http://idp.example.com: http:// is accepted only on a loopback" \
  serve --oidc-issuer http://idp.example.com --oidc-client-id cub-cli
cat >"$E2E_TMP/bad.yaml" <<'YAML'
- Issuer: https://sso.example.com
  ClientID: cub-cli
  ClientSecret: hunter2
YAML
expect_fail 2 "--oidc-config $E2E_TMP/bad.yaml[0]: unknown key 'ClientSecret'" \
  serve --oidc-config "$E2E_TMP/bad.yaml"
expect_fail 2 "--oidc-config: cannot read $E2E_TMP/absent.yaml" \
  serve --oidc-config "$E2E_TMP/absent.yaml"
expect_fail 2 "OpenID issuer https://sso.example.com is configured twice" \
  serve --oidc-issuer https://sso.example.com --oidc-client-id x --oidc-config <(
    printf -- '- Issuer: https://sso.example.com\n  ClientID: y\n')

section "starts while its provider is down"
DEAD=$(free_port)  # nothing listens there
cat >"$E2E_TMP/oidc.yaml" <<'YAML'
- Issuer: https://sso.example.com/realms/acme
  ClientID: cub
  UsernamePrefix: "kc:"
  GroupsPrefix: "kc:"
  Scopes: [openid, email]
YAML
e2e_start_cubd main --oidc-issuer "http://127.0.0.1:$DEAD" --oidc-client-id cub-cli \
  --oidc-groups-prefix dex: --oidc-config "$E2E_TMP/oidc.yaml"
LOG=$(cat "${CUBD_LOG[main]}")
expect_contains "$LOG" "people may log in with OpenID issuer http://127.0.0.1:$DEAD (client cub-cli)"
expect_contains "$LOG" "people may log in with OpenID issuer https://sso.example.com/realms/acme (client cub)"
H=http://$E2E_HTTP
run curl -sS -X POST -H 'Content-Type: application/json' --data '{}' \
  "$H/v1/AuthService/GetLoginConfig"
expect_eq 0 "$RC" "GetLoginConfig needs no token"
expect_eq "http://127.0.0.1:$DEAD" "$(jget Issuers.0.Issuer)"
expect_eq cub-cli "$(jget Issuers.0.ClientID)"
expect_eq https://sso.example.com/realms/acme "$(jget Issuers.1.Issuer)"
expect_eq '["openid","email"]' "$(jget Issuers.1.Scopes)"

section "provider tokens that cubd cannot accept"
expect_fail 1 "the token was issued by 'https://stranger.example', which cubd does not trust" \
  cub whoami --server "$E2E_SERVER" --token "$(jwt https://stranger.example)"
run curl -sS -o /dev/null -w '%{http_code}' -X POST -H 'Content-Type: application/json' \
  -H "Authorization: Bearer $(jwt https://stranger.example)" --data '{}' "$H/v1/AuthService/WhoAmI"
expect_eq 401 "$OUT" "an untrusted issuer over REST"
expect_fail 1 "cannot read the keys of OpenID issuer http://127.0.0.1:$DEAD" \
  cub whoami --server "$E2E_SERVER" --token "$(jwt "http://127.0.0.1:$DEAD")"
expect_fail 1 "the bearer token is not valid" cub whoami --server "$E2E_SERVER" --token nonsense

section "cubd serviceaccount: CI tokens mapped to service accounts"
sa() { cubd serviceaccount "$@" --database-url "$E2E_DB_URL"; }
expect_ok sa create acme-ci --oidc-issuer https://token.actions.githubusercontent.com \
  --subject 'repo:acme/app:*' --claim repository=acme/app --claim ref=refs/heads/main
expect_contains "$OUT" "created service account acme-ci"
expect_ok sa create acme-ci --oidc-issuer https://gitlab.example.com \
  --subject 'project_path:acme/app:*' --audience https://cub.example.com
expect_contains "$OUT" "service account acme-ci gained a mapping"
expect_ok sa list
expect_contains "$OUT" "ref=refs/heads/main,repository=acme/app"
expect_contains "$OUT" "https://cub.example.com"
expect_eq 2 "$(grep -c '^acme-ci ' <<<"$OUT")" "two mappings listed"
expect_eq t "$(db -c "SELECT service_account AND NOT admin FROM users WHERE username = 'acme-ci'")"
expect_fail 1 "user 'admin' is a server admin" sa create admin \
  --oidc-issuer https://token.actions.githubusercontent.com --subject 'repo:acme/*'
expect_fail 1 "user 'automatic' is cubd's promotion engine" sa create automatic \
  --oidc-issuer https://token.actions.githubusercontent.com --subject 'repo:acme/*'
# A wildcard before the owner would admit every repository on the provider.
expect_fail 1 "--subject 'repo:*' has a wildcard before any owner" sa create other \
  --oidc-issuer https://token.actions.githubusercontent.com --subject 'repo:*'
expect_fail 1 "--subject '*' has a wildcard before any owner" sa create other \
  --oidc-issuer https://token.actions.githubusercontent.com --subject '*'
expect_fail 1 "--claim 'sub=x': 'sub' is checked by cubd itself" sa create other \
  --oidc-issuer https://token.actions.githubusercontent.com --subject '*' --claim sub=x
expect_fail 1 "--oidc-issuer http://ci.example.com: http:// is accepted only on a loopback" \
  sa create other --oidc-issuer http://ci.example.com --subject '*'
# The runtime role reads the mappings but cannot add one.
run runtime -c "INSERT INTO workload_identities (user_id, issuer, audience, subject_pattern)
  SELECT id, 'https://evil.example', 'cubd', '*' FROM users WHERE username = 'acme-ci'"
expect_ne 0 "$RC" "the runtime may not write mappings"
expect_contains "$ERR" "permission denied"
