#!/usr/bin/env bash
# The dashboard's server side (server/ui_routes.h, server/ui_session.h): / and /ui/ served from
# the binary with their security headers, ETag and 304; login by token paste checked as the
# API checks tokens (bad, expired and revoked tokens 401); the session cookie's attributes,
# Secure on a TLS listener; the cookie accepted by the REST mirror only with the CSRF token
# and only from the same origin; a bearer token unaffected; logout.
# Secrets go to curl in files (-H @FILE, -d @FILE), never on its command line.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
e2e_init ui_session
e2e_start_cubd main
H=http://$E2E_HTTP
ALICE=$(create_user alice) || e2e_fail "user"

# req METHOD PATH [HEADER-LINE...] [-- BODY]: the answer in STATUS, HDRS (lowercased names)
# and BODY. Header lines and the body are written to files for curl.
req() {
  local method=$1 path=$2 hf=$E2E_TMP/req.h bf=$E2E_TMP/req.b data=()
  shift 2
  : >"$hf"
  chmod 600 "$hf"
  while (($#)); do
    if [[ $1 == -- ]]; then
      printf '%s' "$2" >"$bf"
      data=(--data-binary "@$bf")
      break
    fi
    printf '%s\n' "$1" >>"$hf"
    shift
  done
  rm -f "$E2E_TMP/resp.b" "$E2E_TMP/resp.h"
  STATUS=$(curl -s -X "$method" -H "@$hf" "${data[@]}" -D "$E2E_TMP/resp.h" \
    -o "$E2E_TMP/resp.b" -w '%{http_code}' ${CURL_EXTRA:-} "$BASE$path")
  HDRS=$(tr -d '\r' <"$E2E_TMP/resp.h" | sed -E 's/^([^:]*):/\L\1:/')
  BODY=$(cat "$E2E_TMP/resp.b" 2>/dev/null)
}
header() { sed -n "s/^$1: //p" <<<"$HDRS" | head -1; }
BASE=$H

section "/ and the assets, from the binary"
req GET /
expect_eq 302 "$STATUS" "GET / status"
expect_eq /ui/ "$(header location)" "GET / Location"
req GET /ui
expect_eq 301 "$STATUS" "GET /ui status"
req GET /ui/
expect_eq 200 "$STATUS" "GET /ui/ status"
expect_eq "text/html; charset=utf-8" "$(header content-type)" "index Content-Type"
expect_match "$BODY" '<script type="module" src="/ui/app\.[0-9a-f]{32}\.js">' "index loads app.js"
csp=$(header content-security-policy)
expect_contains "$csp" "default-src 'self'"
expect_contains "$csp" "frame-ancestors 'none'"
expect_not_contains "$csp" "unsafe-inline"
# The one inline script, the import map, is allowed by its hash and nothing else is.
importmap=$(sed -n 's|.*<script type="importmap">\(.*\)</script>.*|\1|p' <<<"$BODY")
expect_match "$importmap" '^\{"imports":\{' "index.html's import map"
expect_eq 1 "$(grep -o '<script[^>]*>' <<<"$BODY" | grep -vc ' src=')" "inline scripts in index.html"
map_hash=$(printf '%s' "$importmap" | openssl dgst -sha256 -binary | base64)
expect_contains "$csp" "script-src 'self' 'sha256-$map_hash';"
expect_eq nosniff "$(header x-content-type-options)" "X-Content-Type-Options"
expect_eq no-cache "$(header cache-control)" "asset Cache-Control"
etag=$(header etag)
expect_match "$etag" '^"[0-9a-f]{32}"$' "ETag"
req GET /ui/index.html "If-None-Match: $etag"
expect_eq 304 "$STATUS" "If-None-Match status"
expect_eq "" "$BODY" "304 body"
req GET /ui/index.html 'If-None-Match: "0000"'
expect_eq 200 "$STATUS" "other ETag status"
req GET /ui/app.js
expect_eq 200 "$STATUS" "app.js status"
expect_eq "text/javascript; charset=utf-8" "$(header content-type)" "app.js Content-Type"
expect_ne "$etag" "$(header etag)" "app.js ETag"
req GET /ui/style.css
expect_eq "text/css; charset=utf-8" "$(header content-type)" "style.css Content-Type"
req GET /ui/nothing-here.js
expect_eq 404 "$STATUS" "unknown asset status"
expect_eq NOT_FOUND "$(jget status "$BODY")"
req POST /ui/app.js
expect_eq 405 "$STATUS" "POST to an asset"
# Every page file is embedded: the dashboard makes no request to another origin.
for f in index.html style.css $(cd "$CUB_SOURCE_DIR/ui" && ls *.js); do
  req GET "/ui/$f"
  expect_eq 200 "$STATUS" "/ui/$f"
  expect_not_contains "$BODY" "https://" "/ui/$f"
done
# Each file but index.html is also served at its versioned path (its ETag's digest before the
# extension), cached for good; index.html names only those paths: it preloads every module but
# the entry point, so a cold load fetches them at once, and maps each module's plain path (the
# modules import each other by it) to the versioned one.
req GET /ui/index.html
index=$BODY
index_digest=$(header etag | tr -d '"')
for f in style.css $(cd "$CUB_SOURCE_DIR/ui" && ls *.js); do
  req GET "/ui/$f"
  plain=$BODY
  digest=$(header etag | tr -d '"')
  v="/ui/${f%.*}.$digest.${f##*.}"
  req GET "$v"
  expect_eq 200 "$STATUS" "$v"
  expect_eq "public, max-age=31536000, immutable" "$(header cache-control)" "$v Cache-Control"
  [[ $BODY == "$plain" ]] || e2e_fail "$v is not the bytes of /ui/$f"
  expect_not_contains "$index" "\"/ui/$f\">" "index.html names no plain /ui/$f"
  case $f in
    style.css) expect_contains "$index" "<link rel=\"stylesheet\" href=\"$v\">" ;;
    app.js) expect_contains "$index" "<script type=\"module\" src=\"$v\">" ;;
    *) expect_contains "$index" "<link rel=\"modulepreload\" href=\"$v\">" "index.html preloads $f"
       expect_contains "$importmap" "\"/ui/$f\":\"$v\"" "the import map maps $f" ;;
  esac
done
# Only an exact versioned path is one: another digest, index.html, or a path around one, 404.
req GET "/ui/app.${digest:-0}.js"
expect_eq 404 "$STATUS" "app.js at another file's digest"
req GET "/ui/app.00000000000000000000000000000000.js"
expect_eq 404 "$STATUS" "app.js at a made-up digest"
req GET "/ui/index.$index_digest.html"
expect_eq 404 "$STATUS" "index.html has no versioned path"
CURL_EXTRA=--path-as-is req GET "${v}/../app.js"
expect_eq 404 "$STATUS" "a path through a versioned one"
CURL_EXTRA=--path-as-is req GET "/ui/sub/..${v#/ui}"
expect_eq 404 "$STATUS" "a path with .. to a versioned one"
# The plain paths stay revalidated: another cubd's index.html names other versioned files.
req GET /ui/app.js
expect_eq no-cache "$(header cache-control)" "plain app.js Cache-Control"

section "login: the token is checked as the API checks it"
req POST /ui/session "Content-Type: application/json" -- '{"Token": "cub_not-a-real-token"}'
expect_eq 401 "$STATUS" "bad token status"
expect_eq UNAUTHENTICATED "$(jget status "$BODY")"
expect_eq "" "$(header set-cookie)" "no cookie for a bad token"
req POST /ui/session -- 'not json'
expect_eq 400 "$STATUS" "malformed login status"
expect_contains "$(jget message "$BODY")" '{"Token": "<cub token>"}'
req POST /ui/session -- '{"Token": "two words"}'
expect_eq 400 "$STATUS" "token a cookie cannot hold"
expect_contains "$(jget message "$BODY")" "byte offset 3"
# An expired token, and a revoked one.
printf 'Authorization: Bearer %s\nContent-Type: application/json\n' "$ALICE" >"$E2E_TMP/alice.h"
short=$(curl -s -H "@$E2E_TMP/alice.h" -d '{"ExpiresIn": "1s"}' "$H/v1/AuthService/CreateToken")
SHORT=$(jget Secret "$short")
revoked=$(curl -s -H "@$E2E_TMP/alice.h" -d '{}' "$H/v1/AuthService/CreateToken")
REVOKED=$(jget Secret "$revoked")
curl -s -H "@$E2E_TMP/alice.h" -d "{\"TokenID\": \"$(jget Token.TokenID "$revoked")\"}" \
  "$H/v1/AuthService/RevokeToken" >/dev/null
sleep 2
req POST /ui/session -- "{\"Token\": \"$SHORT\"}"
expect_eq 401 "$STATUS" "expired token status"
expect_contains "$(jget message "$BODY")" "expired"
req POST /ui/session -- "{\"Token\": \"$REVOKED\"}"
expect_eq 401 "$STATUS" "revoked token status"
req POST /ui/session "Origin: http://evil.example" -- "{\"Token\": \"$ALICE\"}"
expect_eq 403 "$STATUS" "cross-origin login"
expect_contains "$(jget message "$BODY")" "cross-origin request refused"

req POST /ui/session "Content-Type: application/json" "Origin: $H" -- "{\"Token\": \"$ALICE\"}"
expect_eq 200 "$STATUS" "login status"
expect_eq alice "$(jget User.Username "$BODY")"
CSRF=$(jget CsrfToken "$BODY")
expect_match "$CSRF" '^[0-9a-f]{64}$' "CsrfToken"
expect_ne "$ALICE" "$CSRF" "CsrfToken is not the token"
cookie=$(header set-cookie)
expect_eq "cub_session=$ALICE; Path=/; HttpOnly; SameSite=Strict" "$cookie" "Set-Cookie"
expect_eq no-store "$(header cache-control)" "login Cache-Control"
C="Cookie: cub_session=$ALICE"

# Behind a proxy terminating TLS the page is https://: its cookie is Secure there too.
req POST /ui/session "Origin: https://$E2E_HTTP" -- "{\"Token\": \"$ALICE\"}"
expect_eq 200 "$STATUS" "login from an https page"
expect_eq "cub_session=$ALICE; Path=/; HttpOnly; SameSite=Strict; Secure" "$(header set-cookie)" \
  "Set-Cookie Secure for an https page on a plaintext listener"

section "two session cookies: neither is used"
req GET /ui/session "Cookie: cub_session=$ALICE; cub_session=planted"
expect_eq 401 "$STATUS" "GET /ui/session with two cookies"
req POST /v1/AuthService/WhoAmI "Cookie: cub_session=planted; cub_session=$ALICE" \
  "X-CSRF-Token: $CSRF"
expect_eq 403 "$STATUS" "a call with two session cookies"
expect_contains "$(jget message "$BODY")" "two cub_session cookies"

section "the cookie as credentials: CSRF token and same origin required"
req POST /v1/AuthService/WhoAmI "$C"
expect_eq 403 "$STATUS" "cookie without X-CSRF-Token"
expect_eq PERMISSION_DENIED "$(jget status "$BODY")"
expect_contains "$(jget message "$BODY")" "missing X-CSRF-Token header"
req POST /v1/SpaceService/CreateSpace "$C" -- '{"Slug": "csrf-victim"}'
expect_eq 403 "$STATUS" "a write without X-CSRF-Token"
req POST /v1/SpaceService/CreateSpace "$C" "X-CSRF-Token: ${CSRF/a/b}" -- '{"Slug": "csrf-victim"}'
expect_eq 403 "$STATUS" "a wrong X-CSRF-Token"
expect_contains "$(jget message "$BODY")" "does not match the session cookie"
req POST /v1/SpaceService/CreateSpace "$C" "X-CSRF-Token: $CSRF" "Origin: http://evil.example" \
  -- '{"Slug": "csrf-victim"}'
expect_eq 403 "$STATUS" "cross-origin write"
expect_contains "$(jget message "$BODY")" "Origin \"http://evil.example\" is not this server's origin"
req POST /v1/AuthService/WhoAmI "$C" "X-CSRF-Token: $CSRF" "Origin: https://$E2E_HTTP"
expect_eq 200 "$STATUS" "an https:// Origin (a proxy terminating TLS) on a plaintext listener"
req POST /v1/AuthService/WhoAmI "$C" "X-CSRF-Token: $CSRF" "Origin: http://$E2E_HTTP.evil.example"
expect_eq 403 "$STATUS" "an Origin that only starts with the Host"
req POST /v1/SpaceService/CreateSpace "$C" "X-CSRF-Token: $CSRF" "Sec-Fetch-Site: cross-site" \
  -- '{"Slug": "csrf-victim"}'
expect_eq 403 "$STATUS" "Sec-Fetch-Site cross-site write"
expect_ok cub space list --server "$E2E_SERVER" --token "$ADMIN_TOKEN" -o json
expect_not_contains "$OUT" "csrf-victim" "refused writes changed nothing"
req POST /v1/AuthService/WhoAmI "$C" "X-CSRF-Token: $CSRF" "Origin: $H" "Sec-Fetch-Site: same-origin"
expect_eq 200 "$STATUS" "same-origin call with the CSRF token"
expect_eq alice "$(jget User.Username "$BODY")"
req POST /v1/SpaceService/CreateSpace "$C" "X-CSRF-Token: $CSRF" -- '{"Slug": "alice-space"}'
expect_eq 200 "$STATUS" "a write with the CSRF token"
# A bearer token is used as it is: no CSRF token needed, the cookie ignored.
req POST /v1/AuthService/WhoAmI "Authorization: Bearer $ADMIN_TOKEN" "$C"
expect_eq 200 "$STATUS" "Authorization header with a cookie"
expect_eq admin "$(jget User.Username "$BODY")"
req GET /ui/session "$C"
expect_eq 200 "$STATUS" "GET /ui/session"
expect_eq "$CSRF" "$(jget CsrfToken "$BODY")" "the session's CsrfToken again"
req GET /ui/session
expect_eq 401 "$STATUS" "GET /ui/session without a cookie"
req GET /ui/session "Cookie: cub_session=$SHORT"
expect_eq 401 "$STATUS" "GET /ui/session with an expired token's cookie"

section "logout"
req DELETE /ui/session "$C"
expect_eq 403 "$STATUS" "logout without the CSRF token"
req DELETE /ui/session "$C" "X-CSRF-Token: $CSRF"
expect_eq 200 "$STATUS" "logout status"
expect_eq "cub_session=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0" "$(header set-cookie)"

section "TLS: the cookie is Secure"
pki=$E2E_TMP/pki
mkdir -p "$pki"
openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=127.0.0.1" \
  -addext "subjectAltName=IP:127.0.0.1" -keyout "$pki/server.key" -out "$pki/server.pem" \
  >/dev/null 2>&1 || e2e_fail "openssl"
tls_http=$(free_port)
cubd serve --database-url "$E2E_SERVE_URL" --listen "127.0.0.1:$(free_port)" \
  --http-listen "127.0.0.1:$tls_http" --tls-cert "$pki/server.pem" --tls-key "$pki/server.key" \
  --signing-key "$E2E_TMP/signing-key.pem" --work-dir "$E2E_TMP/cubd-work" \
  >>"$E2E_TMP/cubd-tls.log" 2>&1 </dev/null &
CUBD_PID[tls]=$!
CUBD_LOG[tls]=$E2E_TMP/cubd-tls.log
BASE=https://127.0.0.1:$tls_http
CURL_EXTRA="--cacert $pki/server.pem"
for _ in $(seq 100); do
  req GET /healthz
  [[ $STATUS == 200 ]] && break
  sleep 0.2
done
req POST /ui/session "Origin: $BASE" -- "{\"Token\": \"$ALICE\"}"
expect_eq 200 "$STATUS" "TLS login status"
expect_eq "cub_session=$ALICE; Path=/; HttpOnly; SameSite=Strict; Secure" "$(header set-cookie)"
req POST /ui/session "Origin: http://127.0.0.1:$tls_http" -- "{\"Token\": \"$ALICE\"}"
expect_eq 403 "$STATUS" "http:// Origin on the TLS listener"

e2e_finish
