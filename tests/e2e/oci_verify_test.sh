#!/usr/bin/env bash
# Verification before every deploy, against a real registry (Debian's docker-registry, which has
# no referrers API: evidence is found by its .sig/.att tags). A publish to an OCI Target pushes
# the artifact and its evidence, verifies them as the registry holds them and only then moves
# the Space's deploy tag; a rollback (publish --release N) verifies Release N's artifact again,
# in the registry. What an attacker with write access to the registry can do is refused there:
# a removed signature (SignatureMissing), a tampered layer under the Release's tag, carrying the
# original's evidence (SignatureInvalid), another Space's artifact copied with skopeo under the
# Release's tag (ProvenanceMismatch). The refused rollback is recorded Failed with the reason,
# the deploy tag stays where it was, and `release get` shows the Verification.
# After a key rotation, evidence the old key signed still verifies (KeyID names it), until the key
# is revoked: a rollback to what it signed is then refused (by the stored records' check, before
# the registry is read; the registry's SignatureInvalid for a revoked key is tested in
# tests/unit/oci_verify_registry_test.cc).
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
[[ -x /usr/bin/docker-registry ]] || { echo "oci_verify_test: docker-registry missing: skipped"; exit 0; }
command -v skopeo >/dev/null || { echo "oci_verify_test: skopeo missing: skipped"; exit 0; }
e2e_init oci_verify

read -r REG_PORT REG_PID < <(bash "$CUB_SOURCE_DIR/tests/harness/registry.sh" "$E2E_TMP/registry" plain) ||
  e2e_fail "the registry did not start"
trap 'e2e_rc=$?; kill "$REG_PID" 2>/dev/null; (exit $e2e_rc); _e2e_exit' EXIT
REPO="127.0.0.1:$REG_PORT/cub/prod"

e2e_start_cubd main
export CUB_SERVER=$E2E_SERVER CUB_TOKEN=$ADMIN_TOKEN

# reg OP ARGS...: the registry's HTTP API, for what an attacker would do by hand.
reg() {
  python3 - "$REG_PORT" "$@" <<'PY'
import gzip, hashlib, io, json, sys, tarfile, urllib.request
port, op, args = sys.argv[1], sys.argv[2], sys.argv[3:]
base = f"http://127.0.0.1:{port}/v2/cub/prod"
OCI = "application/vnd.oci.image.manifest.v1+json"
def req(method, path, data=None, ctype=None):
    r = urllib.request.Request(base + path, data=data, method=method)
    r.add_header("Accept", OCI)
    if ctype: r.add_header("Content-Type", ctype)
    with urllib.request.urlopen(r) as resp:
        return resp.read(), resp.headers
def digest(b): return "sha256:" + hashlib.sha256(b).hexdigest()
def put_blob(b):
    _, h = req("POST", "/blobs/uploads/")
    loc = h["Location"]
    sep = "&" if "?" in loc else "?"
    url = loc if loc.startswith("http") else f"http://127.0.0.1:{port}{loc}"
    r = urllib.request.Request(url + sep + "digest=" + digest(b), data=b, method="PUT")
    r.add_header("Content-Type", "application/octet-stream")
    urllib.request.urlopen(r).read()
def put_manifest(ref, body): req("PUT", "/manifests/" + ref, body, OCI)
def manifest(ref): return req("GET", "/manifests/" + ref)[0]
if op == "digest":        # digest TAG
    print(digest(manifest(args[0])))
elif op == "delete":      # delete TAG: removes the manifest it points at
    req("DELETE", "/manifests/" + digest(manifest(args[0])))
elif op == "tamper":      # tamper TAG FILE TEXT: the layer's FILE replaced, evidence copied
    old = manifest(args[0]); m = json.loads(old)
    layer = req("GET", "/blobs/" + m["layers"][0]["digest"])[0]
    src = tarfile.open(fileobj=io.BytesIO(gzip.decompress(layer)))
    out = io.BytesIO(); dst = tarfile.open(fileobj=out, mode="w", format=tarfile.USTAR_FORMAT)
    for e in src.getmembers():
        data = src.extractfile(e).read()
        if e.name == args[1]: data = args[2].encode()
        e.size = len(data); dst.addfile(e, io.BytesIO(data))
    dst.close()
    new_layer = gzip.compress(out.getvalue(), mtime=0)
    put_blob(new_layer)
    m["layers"][0]["digest"] = digest(new_layer); m["layers"][0]["size"] = len(new_layer)
    new = json.dumps(m, separators=(",", ":")).encode()
    put_manifest(args[0], new)
    old_d, new_d = digest(old), digest(new)
    for suffix in (".sig", ".att"):  # the original's evidence, its subject renamed
        ev = manifest("sha256-" + old_d[7:] + suffix).replace(old_d.encode(), new_d.encode())
        put_manifest("sha256-" + new_d[7:] + suffix, ev)
    print(new_d)
PY
}

verification() {  # verification SPACE NUM: the Release's Verification.Reason
  cub release get --space "$1" --release "$2" -o json >"$E2E_TMP/rel.json" || e2e_fail "release get $1 $2"
  python3 -c 'import json,sys; print(json.load(open(sys.argv[1])).get("Verification", {}).get("Reason", ""))' \
    "$E2E_TMP/rel.json"
}

section "setup: Spaces releasing to one OCI Target"
expect_ok cub space create platform
expect_ok cub target create --space platform oci --provider OCI \
  --param "repository=$REPO" --param insecure=true
for s in good unsigned tampered copied other rotated; do
  expect_ok cub space create "$s"
  printf 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: %s\ndata:\n  v: "1"\n' "$s" \
    >"$E2E_TMP/cm.yaml"
  expect_ok cub unit create --space "$s" config "$E2E_TMP/cm.yaml"
  expect_ok cub space update "$s" --release-target platform/oci
done

section "a publish pushes the artifact and its evidence, verifies them, then deploys"
for s in good unsigned tampered copied other rotated; do
  expect_ok cub release publish "$s"
  expect_contains "$OUT" "Delivery: Delivered"
  expect_eq Verified "$(verification "$s" 1)"
done
expect_ok cub release get --space good --release 1 -o json
R1=$(jget ArtifactDigest)
expect_match "$R1" '^sha256:[0-9a-f]{64}$'
expect_eq "$R1" "$(jget Verification.Digest)"
expect_match "$(jget Verification.KeyID)" '^sha256:[0-9a-f]{64}$'
expect_contains "$(jget Verification.Message)" "provenance names space good"
expect_eq "$R1" "$(reg digest good)"
# skopeo, another client, sees the artifact, the deploy tag and the cosign-style evidence tags.
expect_ok skopeo list-tags --tls-verify=false "docker://$REPO"
for t in good good-r1 "sha256-${R1#sha256:}.sig" "sha256-${R1#sha256:}.att"; do
  expect_contains "$OUT" "\"$t\""
done
expect_ok skopeo inspect --raw --tls-verify=false "docker://$REPO:sha256-${R1#sha256:}.sig"
expect_contains "$OUT" '"artifactType":"application/vnd.cub.signature.v1+json"'
expect_contains "$OUT" "\"subject\":{\"mediaType\":\"application/vnd.oci.image.manifest.v1+json\",\"digest\":\"$R1\""
expect_ok skopeo inspect --raw --tls-verify=false "docker://$REPO:sha256-${R1#sha256:}.att"
expect_contains "$OUT" '"cub.dev/evidence":"provenance"'

# A second Release in each Space, so that a rollback to Release 1 moves the deploy tag back.
for s in good unsigned tampered copied rotated; do
  printf 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: %s\ndata:\n  v: "2"\n' "$s" \
    >"$E2E_TMP/cm.yaml"
  expect_ok cub unit update --space "$s" config "$E2E_TMP/cm.yaml"
  expect_ok cub release publish "$s"
  expect_eq Verified "$(verification "$s" 2)"
done

section "a rollback verifies the earlier artifact in the registry and deploys it"
expect_ok cub release publish good --release 1
expect_contains "$OUT" "Delivery: Delivered"
expect_eq Verified "$(verification good 3)"
expect_eq "$R1" "$(reg digest good)"
expect_ok cub release get --space good --release 3 -o json
expect_eq "$R1" "$(jget ArtifactDigest)"
expect_eq "$REPO:good-r1" "$(jget ArtifactRef)"

# rollback_refused SPACE REASON TEXT: a rollback to Release 1 is Failed with REASON, and the
# deploy tag stays at Release 2.
rollback_refused() {
  local space=$1 reason=$2 text=$3 before
  before=$(reg digest "$space")
  expect_fail 1 "do not publish again" cub release publish "$space" --release 1
  expect_contains "$OUT" "Delivery: Failed"
  expect_contains "$OUT" "$reason: "
  expect_eq "$reason" "$(verification "$space" 3)"
  expect_ok cub release get --space "$space" --release 3 -o json
  expect_eq Failed "$(jget DeliveryState)"
  expect_contains "$(jget DeliveryError)" "$reason: "
  expect_contains "$(jget Verification.Message)" "$text"
  expect_eq "" "$(jget Verification.KeyID)"
  expect_eq "$before" "$(reg digest "$space")"
}

section "a removed signature: SignatureMissing"
U1=$(reg digest unsigned-r1)
reg delete "sha256-${U1#sha256:}.sig" || e2e_fail "deleting the signature failed"
rollback_refused unsigned SignatureMissing "no signature of $U1"

section "a tampered layer under the Release's tag, with the original's evidence: SignatureInvalid"
T1=$(reg tamper tampered-r1 config.yaml "kind: Secret") || e2e_fail "tampering failed"
expect_ok cub release get --space tampered --release 1 -o json
expect_ne "$T1" "$(jget Verification.Digest)" "the tampered digest"
rollback_refused tampered SignatureInvalid "not $T1"

section "another Space's artifact copied under the Release's tag: ProvenanceMismatch"
expect_ok skopeo copy --src-tls-verify=false --dest-tls-verify=false \
  "docker://$REPO:other-r1" "docker://$REPO:copied-r1"
expect_eq "$(reg digest other-r1)" "$(reg digest copied-r1)"
rollback_refused copied ProvenanceMismatch "Space 'other', this deploy expects 'copied'"

section "a new signing key: evidence the old key signed still verifies, until it is revoked"
KEY_A=$(cub server public-key -o json | python3 -c 'import json,sys; print(json.load(sys.stdin)["KeyID"])')
mv "$E2E_TMP/signing-key.pem" "$E2E_TMP/key-a.pem"
e2e_stop_cubd main
e2e_start_cubd main  # makes a new key at the same path
export CUB_SERVER=${CUBD_GRPC[main]}
expect_ok cub release publish rotated --release 1
expect_contains "$OUT" "Delivery: Delivered"
expect_ok cub release get --space rotated --release 3 -o json
expect_eq Verified "$(jget Verification.Reason)"
expect_eq "$KEY_A" "$(jget Verification.KeyID)" "the registry's signature is the old key's"
O3=$(reg digest rotated)
expect_ok cub key revoke "$KEY_A" --reason "rotated"
expect_fail 1 "does not verify with a key cubd trusts" cub release publish rotated --release 1
expect_eq "$O3" "$(reg digest rotated)" "the deploy tag"

section "a refused Release is retried, and stays refused while the registry holds the same"
expect_ok cub release get --space copied --release 3 -o json
expect_ne "" "$(jget NextDeliveryAt)" "NextDeliveryAt"
n=$(db -c "SELECT count(*) FROM release_verifications v JOIN releases r ON r.id = v.release_id
           WHERE r.space_slug = 'copied' AND r.release_num = 3")
((n >= 1)) || e2e_fail "no verification recorded for copied/3"
expect_fail 1 "append-only" db -c "UPDATE release_verifications SET reason = 'Verified'"

e2e_finish
