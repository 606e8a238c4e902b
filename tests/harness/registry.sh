#!/usr/bin/env bash
# An OCI registry for tests: Debian's docker-registry (CNCF distribution 2.8) on 127.0.0.1 and a
# free high port, storing in DIR/data, with deletes enabled.
#
# Usage: registry.sh DIR plain|tls
#   plain  HTTP, anonymous: anyone may push and pull.
#   tls    HTTPS with a certificate for 127.0.0.1 and localhost signed by a CA made here, and
#          basic auth (htpasswd, bcrypt) for the one user "cub-test".
# Makes in DIR (created if needed): config.yml and registry.log; for tls also ca.pem (the CA),
# certs/ca.crt (the same, for skopeo --cert-dir), password (cub-test's), htpasswd, and
# docker-config.json (a docker config.json whose "auths" has 127.0.0.1:PORT for cub-test).
# Starts the registry, waits until it answers /v2/, and prints "PORT PID" on stdout. Stop it
# with kill PID.
set -euo pipefail

dir=${1:?usage: registry.sh DIR plain|tls}
mode=${2:?usage: registry.sh DIR plain|tls}
[[ $mode == plain || $mode == tls ]] || { echo "registry.sh: mode must be plain or tls" >&2; exit 2; }
REGISTRY=${REGISTRY:-/usr/bin/docker-registry}
[[ -x $REGISTRY ]] || { echo "registry.sh: $REGISTRY not found (apt-get install docker-registry)" >&2; exit 1; }
mkdir -p "$dir/data"
dir=$(cd "$dir" && pwd)

tls_config=""
auth_config=""
scheme=http
if [[ $mode == tls ]]; then
  command -v htpasswd >/dev/null || { echo "registry.sh: htpasswd not found (apt-get install apache2-utils)" >&2; exit 1; }
  scheme=https
  mkdir -p "$dir/certs"
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 \
    -subj "/CN=cub test registry CA" -keyout "$dir/ca.key" -out "$dir/ca.pem" 2>/dev/null
  openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
    -subj "/CN=127.0.0.1" -keyout "$dir/server.key" -out "$dir/server.csr" 2>/dev/null
  printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n' >"$dir/ext.cnf"
  openssl x509 -req -in "$dir/server.csr" -CA "$dir/ca.pem" -CAkey "$dir/ca.key" \
    -CAcreateserial -days 2 -extfile "$dir/ext.cnf" -out "$dir/server.pem" 2>/dev/null
  cp "$dir/ca.pem" "$dir/certs/ca.crt"
  head -c 18 /dev/urandom | base64 | tr -d '/+=' >"$dir/password"
  htpasswd -Bbc "$dir/htpasswd" cub-test "$(cat "$dir/password")" 2>/dev/null
  tls_config="  tls:
    certificate: $dir/server.pem
    key: $dir/server.key"
  auth_config="auth:
  htpasswd:
    realm: cub-test-registry
    path: $dir/htpasswd"
fi

for attempt in 1 2 3; do
  port=$(python3 -c 'import socket
s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')
  cat >"$dir/config.yml" <<CONF
version: 0.1
log:
  level: info
  accesslog:
    disabled: true
storage:
  filesystem:
    rootdirectory: $dir/data
  delete:
    enabled: true
http:
  addr: 127.0.0.1:$port
  secret: cub-test-$RANDOM$RANDOM
$tls_config
$auth_config
CONF
  "$REGISTRY" serve "$dir/config.yml" >>"$dir/registry.log" 2>&1 </dev/null &
  pid=$!
  for _ in $(seq 100); do
    if ! kill -0 "$pid" 2>/dev/null; then break; fi
    # 200 (plain) or 401 (auth): the registry answers.
    code=$(curl -s -o /dev/null -w '%{http_code}' --cacert "$dir/ca.pem" \
      "$scheme://127.0.0.1:$port/v2/" 2>/dev/null || true)
    if [[ $code == 200 || $code == 401 ]]; then
      if [[ $mode == tls ]]; then
        auth=$(printf 'cub-test:%s' "$(cat "$dir/password")" | base64 -w0)
        printf '{"auths":{"127.0.0.1:%s":{"auth":"%s"}}}\n' "$port" "$auth" >"$dir/docker-config.json"
      fi
      echo "$port $pid"
      exit 0
    fi
    sleep 0.1
  done
  kill "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
done
echo "registry.sh: docker-registry did not start; its log:" >&2
cat "$dir/registry.log" >&2
exit 1
