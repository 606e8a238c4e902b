#!/usr/bin/env bash
# TLS on both cubd listeners: cub verifies the server with --tls-ca, curl with --cacert; a
# plaintext client is refused, and a CA that did not sign the server's certificate is too.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
e2e_init tls

# A CA and a server certificate for 127.0.0.1, made here.
pki=$E2E_TMP/pki
mkdir -p "$pki"
openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=cub test CA" \
  -keyout "$pki/ca.key" -out "$pki/ca.pem" >/dev/null 2>&1
openssl req -newkey rsa:2048 -nodes -subj "/CN=127.0.0.1" \
  -keyout "$pki/server.key" -out "$pki/server.csr" >/dev/null 2>&1
printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\n' >"$pki/san.ext"
openssl x509 -req -in "$pki/server.csr" -CA "$pki/ca.pem" -CAkey "$pki/ca.key" \
  -CAcreateserial -days 2 -extfile "$pki/san.ext" -out "$pki/server.pem" >/dev/null 2>&1
openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=other CA" \
  -keyout "$pki/other.key" -out "$pki/other.pem" >/dev/null 2>&1

grpc_port=$(free_port)
http_port=$(free_port)
cubd serve --database-url "$E2E_SERVE_URL" --listen "127.0.0.1:$grpc_port" \
  --http-listen "127.0.0.1:$http_port" --tls-cert "$pki/server.pem" --tls-key "$pki/server.key" \
  >>"$E2E_TMP/cubd-tls.log" 2>&1 </dev/null &
CUBD_PID[tls]=$!
CUBD_LOG[tls]=$E2E_TMP/cubd-tls.log
server=127.0.0.1:$grpc_port
for _ in $(seq 150); do
  cub whoami --server "$server" --token "$ADMIN_TOKEN" --tls-ca "$pki/ca.pem" --timeout 2 \
    >/dev/null 2>&1 && break
  sleep 0.2
done

section "gRPC over TLS"
expect_ok cub whoami --server "$server" --token "$ADMIN_TOKEN" --tls-ca "$pki/ca.pem"
expect_contains "$OUT" "admin"
expect_ok cub space create secure --server "$server" --token "$ADMIN_TOKEN" --tls-ca "$pki/ca.pem"
expect_fail 1 "Failed:" cub whoami --server "$server" --token "$ADMIN_TOKEN" --timeout 5
expect_fail 1 "Failed:" cub whoami --server "$server" --token "$ADMIN_TOKEN" \
  --tls-ca "$pki/other.pem" --timeout 5

section "REST over TLS"
expect_ok curl -sS --fail --cacert "$pki/ca.pem" -X POST -H "Authorization: Bearer $ADMIN_TOKEN" \
  -d '{}' "https://127.0.0.1:$http_port/v1/SpaceService/ListSpaces"
expect_contains "$OUT" '"Slug":"secure"'
expect_fail 60 "" curl -sS --cacert "$pki/other.pem" -X POST -d '{}' \
  "https://127.0.0.1:$http_port/v1/SpaceService/ListSpaces"

e2e_finish
