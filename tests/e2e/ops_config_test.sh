#!/usr/bin/env bash
# Configuring cubd as a Kubernetes Deployment does (docs/operations.md, "Configuration"):
# every flag from a CUBD_* variable (the flag winning), the database password from a file
# (checked against a role that really needs it), the embedded database refused behind a
# non-loopback listener, and TLS certificates reloaded on both listeners when a Secret-style
# ..data symlink is swapped, a mismatched or half-written pair keeping the last good one.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
e2e_init opsconf

# start_serve NAME ARGS...: cubd serve with ARGS (and the environment of the caller), waiting
# until its log says it serves gRPC or it exits; leaves its pid in CUBD_PID[NAME].
start_serve() {
  local name=$1
  shift
  local log=$E2E_TMP/cubd-$name.log
  cubd serve --work-dir "$E2E_TMP/cubd-work" "$@" >>"$log" 2>&1 </dev/null &
  CUBD_PID[$name]=$!
  CUBD_LOG[$name]=$log
  for _ in $(seq 300); do
    grep -q "serving gRPC" "$log" 2>/dev/null && return 0
    kill -0 "${CUBD_PID[$name]}" 2>/dev/null || return 1
    sleep 0.1
  done
  return 1
}

section "every flag from a CUBD_ variable; a flag wins"
expect_ok cubd serve --help
expect_contains "$OUT" "CUBD_HTTP_LISTEN"
expect_contains "$OUT" "CUBD_DATABASE_PASSWORD_FILE"
expect_contains "$OUT" "CUBD_ALLOW_EMBEDDED_DATABASE"
expect_contains "$OUT" "CUBD_OIDC_ISSUER"
expect_ok cubd migrate --help
expect_contains "$OUT" "CUBD_DATABASE_URL"

g1=$(free_port)
h1=$(free_port)
if ! CUBD_DATABASE_URL=$E2E_SERVE_URL CUBD_LISTEN=127.0.0.1:$g1 CUBD_HTTP_LISTEN=127.0.0.1:$h1 \
  CUBD_SIGNING_KEY=$E2E_TMP/signing-key.pem CUBD_NO_ENGINE=true CUBD_THREADS=3 \
  CUBD_OIDC_ISSUER=https://a.example,https://b.example CUBD_OIDC_CLIENT_ID=cub-a,cub-b \
  start_serve env; then
  e2e_fail "cubd configured by its environment did not start"
fi
expect_ok cub whoami --server "127.0.0.1:$g1" --token "$ADMIN_TOKEN"
expect_ok curl -sS --fail "http://127.0.0.1:$h1/healthz"
log=$(cat "${CUBD_LOG[env]}")
expect_contains "$log" "engine off (--no-engine)" "CUBD_NO_ENGINE=true"
expect_contains "$log" "OpenID issuer https://a.example (client cub-a)" "CUBD_OIDC_* first"
expect_contains "$log" "OpenID issuer https://b.example (client cub-b)" "CUBD_OIDC_* second"
e2e_stop_cubd env
expect_eq 0 "$CUBD_RC" "env cubd exit code"

# The flag wins over its variable; a false flag variable leaves the engine on.
g2=$(free_port)
if ! CUBD_DATABASE_URL=$E2E_SERVE_URL CUBD_LISTEN=127.0.0.1:1 CUBD_NO_ENGINE=false \
  start_serve flagwins --listen "127.0.0.1:$g2" --signing-key "$E2E_TMP/signing-key.pem"; then
  e2e_fail "cubd with --listen over CUBD_LISTEN did not start"
fi
expect_ok cub whoami --server "127.0.0.1:$g2" --token "$ADMIN_TOKEN"
expect_not_contains "$(cat "${CUBD_LOG[flagwins]}")" "engine off" "CUBD_NO_ENGINE=false"
e2e_stop_cubd flagwins

# A variable's value is checked like the flag's.
CUBD_THREADS=0 expect_fail 105 "threads" cubd serve --database-url "$E2E_SERVE_URL"
# The admin commands take the database flags from the environment too.
CUBD_DATABASE_URL=$E2E_DB_URL expect_ok cubd migrate
expect_contains "$OUT" "schema is up to date"

section "the database password from a file"
# A superuser of its own that must give its password: pg_hba gets a line for it alone.
pwrole="cub_pw_$$"
hba=$(_e2e_psql -A -t -c "SHOW hba_file")
if [[ ! -w $hba ]]; then
  e2e_fail "cannot write $hba to require a password of $pwrole"
fi
cp "$hba" "$E2E_TMP/pg_hba.conf.orig"
restore_hba() {
  cp "$E2E_TMP/pg_hba.conf.orig" "$hba" && _e2e_psql -c "SELECT pg_reload_conf()" >/dev/null
  _e2e_psql -c "DROP ROLE IF EXISTS $pwrole" >/dev/null 2>&1
}
{
  printf 'host all %s 127.0.0.1/32 scram-sha-256\n' "$pwrole"
  cat "$E2E_TMP/pg_hba.conf.orig"
} >"$hba"
_e2e_psql -c "CREATE ROLE $pwrole LOGIN SUPERUSER PASSWORD 'pw-0f-$$'" >/dev/null
_e2e_psql -c "SELECT pg_reload_conf()" >/dev/null
pw_url=${E2E_DB_URL/cub_test@/$pwrole:wrong@}
printf 'pw-0f-%s\n' "$$" >"$E2E_TMP/db-password"
chmod 0640 "$E2E_TMP/db-password"
expect_fail 1 "password authentication failed" cubd migrate --database-url "$pw_url"
expect_ok cubd migrate --database-url "$pw_url" --database-password-file "$E2E_TMP/db-password"
expect_contains "$OUT" "schema is up to date"
# From the environment, as a Deployment would give them; a Secret-style symlink.
mkdir -p "$E2E_TMP/dbsecret/..v1"
cp "$E2E_TMP/db-password" "$E2E_TMP/dbsecret/..v1/password"
ln -s ..v1 "$E2E_TMP/dbsecret/..data"
ln -s ..data/password "$E2E_TMP/dbsecret/password"
CUBD_DATABASE_URL=$pw_url CUBD_DATABASE_PASSWORD_FILE=$E2E_TMP/dbsecret/password \
  expect_ok cubd user list
expect_contains "$OUT" "admin"
# cubd serve: checks pass (the role is a superuser, so the runtime-role check refuses it, and
# says so: the password got it that far).
expect_fail 1 "--database-url" cubd serve --database-url "$pw_url" \
  --database-password-file "$E2E_TMP/db-password" --listen "127.0.0.1:$(free_port)"
expect_not_contains "$ERR" "password authentication failed"
expect_not_contains "$ERR" "pw-0f-$$" "serve's error"
# Unfit files: refused, naming the file, never showing the password.
chmod 0644 "$E2E_TMP/db-password"
expect_fail 1 "--database-password-file $E2E_TMP/db-password: has mode 0644" \
  cubd migrate --database-url "$pw_url" --database-password-file "$E2E_TMP/db-password"
expect_not_contains "$ERR" "pw-0f-$$"
: >"$E2E_TMP/empty-password"
chmod 0600 "$E2E_TMP/empty-password"
expect_fail 1 "$E2E_TMP/empty-password: empty" \
  cubd migrate --database-url "$pw_url" --database-password-file "$E2E_TMP/empty-password"
expect_fail 1 "$E2E_TMP/nope: No such file" \
  cubd migrate --database-url "$pw_url" --database-password-file "$E2E_TMP/nope"
expect_fail 1 "$E2E_TMP: not a regular file" \
  cubd migrate --database-url "$pw_url" --database-password-file "$E2E_TMP"
expect_fail 1 "goes with --database-url" \
  cubd migrate --data-dir "$E2E_TMP/nodb" --database-password-file "$E2E_TMP/dbsecret/password"
restore_hba

section "the embedded database refused behind a non-loopback listener"
for listen in "0.0.0.0:$(free_port)" ":$(free_port)" "[::]:$(free_port)" "cubd.example:7070"; do
  expect_fail 2 "refusing to serve $listen, which is not a loopback address" \
    cubd serve --data-dir "$E2E_TMP/embedded" --listen "$listen"
  expect_contains "$ERR" "--allow-embedded-database"
done
expect_fail 2 "refusing to serve 0.0.0.0:1" cubd serve --data-dir "$E2E_TMP/embedded" \
  --listen "127.0.0.1:$(free_port)" --http-listen "0.0.0.0:1"
[[ ! -e $E2E_TMP/embedded ]] || e2e_fail "a refused cubd serve created its data directory"
# Allowed: it gets past the guard and serves from the embedded database.
chmod 0711 "$E2E_TMP"  # as root the embedded server runs as postgres, which must pass through
emb_port=$(free_port)
if ! CUBD_ALLOW_EMBEDDED_DATABASE=true start_serve embedded --data-dir "$E2E_TMP/embedded" \
  --listen "0.0.0.0:$emb_port"; then
  e2e_fail "cubd --allow-embedded-database on 0.0.0.0 did not start"
fi
e2e_stop_cubd embedded
expect_eq 0 "$CUBD_RC" "embedded cubd exit code"

section "TLS certificates reloaded when a Secret's files change"
pki=$E2E_TMP/pki
mkdir -p "$pki"
openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=cub test CA" \
  -keyout "$pki/ca.key" -out "$pki/ca.pem" >/dev/null 2>&1
printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\n' >"$pki/san.ext"
declare -A fp=()
for n in a b c; do
  openssl req -newkey rsa:2048 -nodes -subj "/CN=127.0.0.1/O=$n" \
    -keyout "$pki/$n.key" -out "$pki/$n.csr" >/dev/null 2>&1
  openssl x509 -req -in "$pki/$n.csr" -CA "$pki/ca.pem" -CAkey "$pki/ca.key" \
    -CAcreateserial -days 2 -extfile "$pki/san.ext" -out "$pki/$n.pem" >/dev/null 2>&1
  fp[$n]=$(openssl x509 -in "$pki/$n.pem" -noout -fingerprint -sha256)
done
# The kubelet's layout: tls.crt -> ..data/tls.crt, ..data -> ..<version>/, swapped atomically.
secret=$E2E_TMP/tls-secret
version() { # version NAME CERT KEY: a new ..NAME directory holding the pair
  mkdir -p "$secret/..$1"
  cp "$2" "$secret/..$1/tls.crt"
  cp "$3" "$secret/..$1/tls.key"
}
swap_to() {
  ln -sfn "..$1" "$secret/..data_tmp" && mv -T "$secret/..data_tmp" "$secret/..data"
}
version v1 "$pki/a.pem" "$pki/a.key"
ln -s ..v1 "$secret/..data"
ln -s ..data/tls.crt "$secret/tls.crt"
ln -s ..data/tls.key "$secret/tls.key"

served() { # served HOST:PORT: the SHA-256 fingerprint of the certificate a new connection gets
  openssl s_client -connect "$1" -servername 127.0.0.1 -alpn "$2" </dev/null 2>/dev/null |
    openssl x509 -noout -fingerprint -sha256 2>/dev/null
}
# wait_served FP: until both listeners serve FP (10 s at most).
wait_served() {
  for _ in $(seq 100); do
    [[ $(served "$tg" h2) == "$1" && $(served "$th" http/1.1) == "$1" ]] && return 0
    sleep 0.1
  done
  return 1
}
tg=127.0.0.1:$(free_port)
th=127.0.0.1:$(free_port)
if ! start_serve tls --database-url "$E2E_SERVE_URL" --listen "$tg" --http-listen "$th" \
  --signing-key "$E2E_TMP/signing-key.pem" --tls-cert "$secret/tls.crt" \
  --tls-key "$secret/tls.key" --tls-reload-interval 0.2; then
  e2e_fail "cubd with TLS did not start"
fi
expect_eq "${fp[a]}" "$(served "$tg" h2)" "gRPC certificate at start"
expect_eq "${fp[a]}" "$(served "$th" http/1.1)" "REST certificate at start"
expect_ok cub whoami --server "$tg" --token "$ADMIN_TOKEN" --tls-ca "$pki/ca.pem"

version v2 "$pki/b.pem" "$pki/b.key"
swap_to v2
wait_served "${fp[b]}" || e2e_fail "B not served on both listeners after the swap"
expect_eq "${fp[b]}" "$(served "$tg" h2)" "gRPC certificate after the swap"
expect_eq "${fp[b]}" "$(served "$th" http/1.1)" "REST certificate after the swap"
expect_ok cub whoami --server "$tg" --token "$ADMIN_TOKEN" --tls-ca "$pki/ca.pem"
expect_ok curl -sS --fail --cacert "$pki/ca.pem" "https://$th/healthz"
expect_contains "$(cat "${CUBD_LOG[tls]}")" "TLS certificate reloaded from $secret/tls.crt"

# A mismatched pair (C's certificate with A's key): logged, B kept.
version v3 "$pki/c.pem" "$pki/a.key"
swap_to v3
for _ in $(seq 50); do
  grep -q "is not the key of --tls-cert" "${CUBD_LOG[tls]}" && break
  sleep 0.1
done
expect_contains "$(cat "${CUBD_LOG[tls]}")" \
  "TLS certificate not reloaded, still serving the previous one: --tls-key $secret/tls.key is not the key of --tls-cert $secret/tls.crt"
expect_eq "${fp[b]}" "$(served "$tg" h2)" "gRPC certificate after a mismatched pair"
expect_eq "${fp[b]}" "$(served "$th" http/1.1)" "REST certificate after a mismatched pair"
expect_ok cub whoami --server "$tg" --token "$ADMIN_TOKEN" --tls-ca "$pki/ca.pem"

# Half-written in place (the files themselves, no symlink swap): B kept until C is whole.
head -c 300 "$pki/c.pem" >"$secret/..v3/tls.crt"
sleep 0.5
cp "$pki/c.key" "$secret/..v3/tls.key"
sleep 1
expect_eq "${fp[b]}" "$(served "$tg" h2)" "gRPC certificate while half-written"
expect_eq "${fp[b]}" "$(served "$th" http/1.1)" "REST certificate while half-written"
cp "$pki/c.pem" "$secret/..v3/tls.crt"
wait_served "${fp[c]}" || e2e_fail "C not served once written whole"
expect_ok curl -sS --fail --cacert "$pki/ca.pem" "https://$th/healthz"
expect_ok cub whoami --server "$tg" --token "$ADMIN_TOKEN" --tls-ca "$pki/ca.pem"
e2e_stop_cubd tls
expect_eq 0 "$CUBD_RC" "TLS cubd exit code"

e2e_finish
