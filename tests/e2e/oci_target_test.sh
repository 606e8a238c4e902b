#!/usr/bin/env bash
# OCI Targets through the real binaries against Debian's docker-registry on loopback
# (tests/harness/registry.sh): plain HTTP, and HTTPS with a private CA and basic auth from a
# docker config.json in --git-credentials-dir. Each Release is pushed as an artifact tagged
# <space>-r<N>, the Space's tag <space> follows the newest, and the digest is on the Release;
# skopeo, another client, reads it back and its layer holds the Space's files. Refused: bad
# params when the Target is made; a wrong password, a missing or world-readable credential
# file when publishing, leaving the Release recorded but not Delivered.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
[[ -x /usr/bin/docker-registry ]] || { echo "oci_target_test: docker-registry is required" >&2; exit 1; }
command -v skopeo >/dev/null || { echo "oci_target_test: skopeo is required" >&2; exit 1; }
e2e_init oci_target
HARNESS=$CUB_SOURCE_DIR/tests/harness

SERVER_PIDS=()
stop_servers() {
  local rc=$?
  local pid
  for pid in "${SERVER_PIDS[@]}"; do kill "$pid" 2>/dev/null; done
  (exit "$rc")
  _e2e_exit
}
trap stop_servers EXIT

section "registries: plain, and TLS with basic auth"
read -r PLAIN_PORT PLAIN_PID < <(bash "$HARNESS/registry.sh" "$E2E_TMP/reg-plain" plain) ||
  e2e_fail "registry.sh plain failed"
SERVER_PIDS+=("$PLAIN_PID")
read -r TLS_PORT TLS_PID < <(bash "$HARNESS/registry.sh" "$E2E_TMP/reg-tls" tls) ||
  e2e_fail "registry.sh tls failed"
SERVER_PIDS+=("$TLS_PID")
PLAIN=127.0.0.1:$PLAIN_PORT
TLS=127.0.0.1:$TLS_PORT
TLS_DIR=$E2E_TMP/reg-tls

# The Targets belong to the Space platform: their files are in CREDS_ROOT/platform.
CREDS_ROOT=$E2E_TMP/creds
CREDS=$CREDS_ROOT/platform
mkdir -p "$CREDS"
cp "$TLS_DIR/docker-config.json" "$CREDS/registry.json"
cp "$TLS_DIR/ca.pem" "$CREDS/registry-ca.pem"
printf '{"auths":{"%s":{"username":"cub-test","password":"wrong"}}}\n' "$TLS" >"$CREDS/wrong.json"
printf '{"auths":{"other.example.com":{"auth":"eDp5"}}}\n' >"$CREDS/other.json"
cp "$CREDS/registry.json" "$CREDS/open.json"
chmod 600 "$CREDS"/*.json
chmod 644 "$CREDS/open.json" "$CREDS/registry-ca.pem"

e2e_start_cubd main --git-credentials-dir "$CREDS_ROOT"
export CUB_SERVER=$E2E_SERVER CUB_TOKEN=$ADMIN_TOKEN

target() {  # target NAME PARAM=VALUE...
  local name=$1
  shift
  local args=() p
  for p in "$@"; do args+=(--param "$p"); done
  expect_ok cub target create --space platform "$name" --provider OCI "${args[@]}"
}
unit_yaml() {  # unit_yaml SPACE VALUE: the Space's one ConfigMap
  printf 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: %s\ndata:\n  k: %s\n' "$1" "$2" \
    >"$E2E_TMP/$1.yaml"
}
space() {  # space NAME TARGET: a Space with one Unit, releasing to platform/TARGET
  expect_ok cub space create "$1"
  unit_yaml "$1" v1
  expect_ok cub unit create --space "$1" config "$E2E_TMP/$1.yaml"
  expect_ok cub space update "$1" --release-target "platform/$2"
}
delivered_of() {  # the number of Releases of space $1 recorded Delivered
  db -c "SELECT count(*) FROM releases r JOIN spaces s ON s.id = r.space_id
         WHERE s.slug = '$1' AND r.delivery_state = 'Delivered'"
}

section "params are checked when the Target is made"
expect_ok cub space create platform
expect_fail 1 "OCI target: missing param 'repository'" cub target create --space platform bad \
  --provider OCI
expect_fail 1 "OCI target: param 'repository': repository \"oci://$PLAIN/cub\"" \
  cub target create --space platform bad --provider OCI --param "repository=oci://$PLAIN/cub"
expect_fail 1 "the path component \"Cub\" is not lowercase" cub target create --space platform \
  bad --provider OCI --param "repository=$PLAIN/Cub"
expect_fail 1 "param 'insecure=true' (plain HTTP) is accepted only for a registry on a loopback" \
  cub target create --space platform bad --provider OCI --param repository=registry.example.com/cub \
  --param insecure=true
expect_fail 1 "OCI target: param 'credentials' must be a plain file name" cub target create \
  --space platform bad --provider OCI --param "repository=$TLS/cub" \
  --param credentials=/root/.docker/config.json
expect_fail 1 "OCI target: unknown param 'tag'; known: repository, insecure, credentials, ca-file" \
  cub target create --space platform bad --provider OCI --param "repository=$TLS/cub" --param tag=x

section "publish to a plain registry"
target plain "repository=$PLAIN/cub/plain" insecure=true
space app plain
expect_ok cub release publish app
expect_contains "$OUT" "Release 1 of app published to platform/plain"
expect_ok cub release get --space app --release 1 -o json
DIGEST1=$(jget ArtifactDigest)
expect_match "$DIGEST1" '^sha256:[0-9a-f]{64}$' "Release 1's ArtifactDigest"
expect_eq "$PLAIN/cub/plain:app-r1" "$(jget ArtifactRef)" "Release 1's ArtifactRef"
expect_eq "Delivered" "$(jget DeliveryState)"
expect_ok skopeo inspect --raw --tls-verify=false "docker://$PLAIN/cub/plain:app-r1"
expect_eq "$DIGEST1" "sha256:$(printf '%s' "$OUT" | sha256sum | cut -d' ' -f1)" "the manifest skopeo reads"
expect_contains "$OUT" '"cub.dev/space":"app"'
expect_contains "$OUT" '"mediaType":"application/vnd.oci.image.layer.v1.tar+gzip"'
expect_ok skopeo inspect --raw --tls-verify=false "docker://$PLAIN/cub/plain:app"
expect_contains "$OUT" '"cub.dev/release":"1"'

section "the layer holds the Space's files"
expect_ok skopeo copy --src-tls-verify=false "docker://$PLAIN/cub/plain:app" "dir:$E2E_TMP/pulled"
LAYER=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["layers"][0]["digest"][7:])' \
  "$E2E_TMP/pulled/manifest.json")
expect_ok tar -tzf "$E2E_TMP/pulled/$LAYER"
expect_eq "config.yaml" "$OUT" "the layer's entries"
mkdir -p "$E2E_TMP/files"
expect_ok tar -xzf "$E2E_TMP/pulled/$LAYER" -C "$E2E_TMP/files"
expect_contains "$(cat "$E2E_TMP/files/config.yaml")" "name: app"

section "a second Release: its own tag, and the Space's tag follows"
unit_yaml app v2
expect_ok cub unit update --space app config "$E2E_TMP/app.yaml"
expect_ok cub release publish app
expect_ok cub release get --space app --release 2 -o json
DIGEST2=$(jget ArtifactDigest)
expect_ne "$DIGEST1" "$DIGEST2" "Release 2's digest"
expect_ok skopeo list-tags --tls-verify=false "docker://$PLAIN/cub/plain"
for tag in app app-r1 app-r2; do expect_contains "$OUT" "\"$tag\""; done
expect_ok skopeo inspect --raw --tls-verify=false "docker://$PLAIN/cub/plain:app"
expect_eq "$DIGEST2" "sha256:$(printf '%s' "$OUT" | sha256sum | cut -d' ' -f1)" "the tag app"
expect_ok cub release get --space app --release 1 -o json
expect_eq "$DIGEST1" "$(jget ArtifactDigest)" "Release 1's digest, unchanged"

section "publish over TLS with credentials from a docker config"
target secure "repository=$TLS/cub/secure" credentials=registry.json ca-file=registry-ca.pem
space shop secure
expect_ok cub release publish shop
expect_ok cub release get --space shop --release 1 -o json
SHOP=$(jget ArtifactDigest)
expect_ok skopeo inspect --raw --cert-dir "$TLS_DIR/certs" --authfile "$CREDS/registry.json" \
  "docker://$TLS/cub/secure:shop"
expect_eq "$SHOP" "sha256:$(printf '%s' "$OUT" | sha256sum | cut -d' ' -f1)" "shop's manifest over TLS"
# Without the credentials, the registry lets nobody read it.
echo '{}' >"$E2E_TMP/no-auth.json"
expect_fail 1 "authentication required" skopeo inspect --raw --cert-dir "$TLS_DIR/certs" \
  --authfile "$E2E_TMP/no-auth.json" "docker://$TLS/cub/secure:shop"

section "Argo CD Applications of an OCI Release point at its digest"
target fleet "repository=$PLAIN/cub/fleet" insecure=true \
  "clusters=east=https://east.example.com:6443,west=https://10.0.0.2" namespace=shop
space fleet-app fleet
expect_ok cub release publish fleet-app
expect_ok cub release get --space fleet-app --release 1 -o json
FLEET=$(jget ArtifactDigest)
expect_ok cub release applications --space fleet-app -o json
expect_eq 2 "$(jget items.len)" "one Application per cluster"
expect_eq "oci://$PLAIN/cub/fleet" "$(jget items.0.spec.source.repoURL)"
expect_eq "$FLEET" "$(jget items.0.spec.source.targetRevision)" "pinned to the verified digest"
expect_eq shop "$(jget items.1.spec.destination.namespace)"
expect_ok cub release applications --space fleet-app -o yaml
mkdir -p "$E2E_TMP/apps"
printf '%s\n' "$OUT" >"$E2E_TMP/apps/oci.yaml"
expect_ok python3 "$CUB_SOURCE_DIR/tests/harness/argocd_schema_check.py" \
  "$CUB_SOURCE_DIR/tests/testdata/argocd/application-crd.yaml" "$E2E_TMP/apps/oci.yaml"
expect_contains "$OUT" "2 Application(s) checked, 0 problem(s)"

section "refusals: nothing Delivered"
target wrong "repository=$TLS/cub/secure" credentials=wrong.json ca-file=registry-ca.pem
space bad-pass wrong
expect_fail 1 "registry $TLS: GET manifest bad-pass-r1: refused (401)" cub release publish bad-pass
expect_not_contains "$ERR" "wrong\""
expect_eq 0 "$(delivered_of bad-pass)" "Delivered releases of bad-pass"

target missing "repository=$TLS/cub/secure" credentials=missing.json ca-file=registry-ca.pem
space no-file missing
expect_fail 1 "param 'credentials': $CREDS/missing.json: cannot open: No such file or directory" \
  cub release publish no-file
expect_eq 0 "$(delivered_of no-file)" "Delivered releases of no-file"

target open "repository=$TLS/cub/secure" credentials=open.json ca-file=registry-ca.pem
space open-file open
expect_fail 1 "$CREDS/open.json: readable by others (mode 0644)" cub release publish open-file

target other "repository=$TLS/cub/secure" credentials=other.json ca-file=registry-ca.pem
space other-host other
expect_fail 1 "$CREDS/other.json: its \"auths\" has no entry for $TLS" cub release publish other-host

target anon "repository=$TLS/cub/secure" ca-file=registry-ca.pem
space anonymous anon
expect_fail 1 "the registry asks for a user name and password (401), and none is configured" \
  cub release publish anonymous

target untrusted "repository=$TLS/cub/secure" credentials=registry.json
space no-ca untrusted
expect_fail 1 "registry $TLS: GET manifest no-ca-r1: GET https://$TLS/v2/cub/secure/manifests/no-ca-r1:" \
  cub release publish no-ca

cp "$CREDS/registry-ca.pem" "$CREDS/shared-ca.pem"
chmod 664 "$CREDS/shared-ca.pem"
target writable-ca "repository=$TLS/cub/secure" credentials=registry.json ca-file=shared-ca.pem
space group-ca writable-ca
expect_fail 1 "$CREDS/shared-ca.pem is writable by others (mode 0664)" cub release publish group-ca

section "the refused Release is delivered once the file is fixed"
chmod 600 "$CREDS/open.json"
for _ in $(seq 300); do  # retried after 2 s, 4 s, 8 s...: at most a minute
  [[ $(delivered_of open-file) == 1 ]] && break
  sleep 0.2
done
expect_eq 1 "$(delivered_of open-file)" "Delivered releases of open-file after the fix"
expect_ok cub release get --space open-file --release 1 -o json
expect_eq "$TLS/cub/secure:open-file-r1" "$(jget ArtifactRef)"

e2e_finish
