#!/usr/bin/env bash
# Trusted keys and signing-key rotation through the real binaries: `cub key list | trust |
# revoke` and their refusals; a restart with a new signing key (the old one stays trusted, so
# Releases it signed verify and roll back) until it is revoked; and a cubd started without its
# key file (--no-create-signing-key) that refuses to sign with SigningKeyNotReady until the file
# appears, then signs.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
e2e_init keys
e2e_start_cubd main
export CUB_SERVER=$E2E_SERVER CUB_TOKEN=$ADMIN_TOKEN
KEY_FILE=$E2E_TMP/signing-key.pem  # the file e2e_start_cubd gives every cubd
# restart [cubd serve flags...]: stops cubd and starts it again (on new ports).
restart() {
  e2e_stop_cubd main
  e2e_start_cubd main "$@"
  export CUB_SERVER=${CUBD_GRPC[main]}
}

cat >"$E2E_TMP/cm.yaml" <<'YAML'
apiVersion: v1
kind: ConfigMap
metadata:
  name: app
data:
  greeting: hello
YAML

section "the server's key is recorded as a trusted Server key, current"
ALICE=$(create_user alice) || e2e_fail "create_user alice"
expect_ok cub server public-key -o json
KEY_A=$(jget KeyID)
expect_ok as "$ALICE" cub key list -o json
expect_eq 1 "$(jget len)" "one key"
expect_eq "$KEY_A" "$(jget 0.KeyID)"
expect_eq Server "$(jget 0.Origin)"
expect_eq true "$(jget 0.Current)"
expect_ok cub key list
expect_contains "$OUT" "KEY ID"
expect_contains "$OUT" "$KEY_A"
expect_ok curl -sS -X POST -H "Authorization: Bearer $ALICE" -H 'Content-Type: application/json' \
  "http://$E2E_HTTP/v1/KeyService/ListKeys" -d '{"All": true}'
expect_eq "$KEY_A" "$(jget Keys.0.KeyID)" "ListKeys over REST"

section "setup: a Space publishing to a directory, Release 1 signed with key A"
expect_ok cub space create app
expect_ok cub target create --space app out --provider Directory --param "path=$E2E_TMP/out"
expect_ok cub space update app --release-target app/out
expect_ok cub unit create --space app cm "$E2E_TMP/cm.yaml"
expect_ok cub release publish app
expect_ok cub release verify --space app --release 1 -o json
expect_eq true "$(jget Verified)"
expect_eq "$KEY_A" "$(jget KeyID)"

section "trust: an offline key, and the refusals"
openssl genpkey -algorithm ed25519 -out "$E2E_TMP/offline.key" 2>/dev/null || e2e_fail "openssl"
openssl pkey -in "$E2E_TMP/offline.key" -pubout -out "$E2E_TMP/offline.pub" || e2e_fail "openssl"
OFFLINE=sha256:$(openssl pkey -in "$E2E_TMP/offline.key" -pubout -outform DER | sha256sum | cut -d' ' -f1)
expect_fail 1 "needs a server admin" as "$ALICE" cub key trust --file "$E2E_TMP/offline.pub"
expect_ok cub key trust --file "$E2E_TMP/offline.pub" --note "release engineering laptop"
expect_contains "$OUT" "Key $OFFLINE trusted"
expect_fail 1 "is trusted already" cub key trust --file - <"$E2E_TMP/offline.pub"
expect_fail 1 "PEM: this is a private key" cub key trust --file "$E2E_TMP/offline.key"
openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 2>/dev/null |
  openssl pkey -pubout -out "$E2E_TMP/ec.pub" || e2e_fail "openssl ec"
expect_fail 1 "PEM: not an Ed25519 public key" cub key trust --file "$E2E_TMP/ec.pub"
echo "hello" >"$E2E_TMP/junk.pem"
expect_fail 1 "PEM: expected exactly one" cub key trust --file "$E2E_TMP/junk.pem"
expect_fail 1 "cannot read" cub key trust --file "$E2E_TMP/missing.pem"
expect_ok cub key list -o json
expect_eq 2 "$(jget len)" "two keys"
expect_eq Trusted "$(jget 1.Origin)"
expect_eq "release engineering laptop" "$(jget 1.Note)"
expect_eq false "$(jget 1.Current)"
expect_ok cub event list -o json --where "Kind = 'KeyTrusted'"
expect_eq 1 "$(jget len)" "a KeyTrusted event"
expect_ok as "$ALICE" cub event list -o json --where "Kind = 'KeyTrusted'"
expect_eq 0 "$(jget len)" "key events are an admin's to see"

section "revoke: the refusals"
expect_fail 1 "is the key this cubd signs with now" cub key revoke "$KEY_A"
expect_fail 1 "KeyID: 'nope' is not a key id" cub key revoke nope
expect_fail 1 "is recorded" cub key revoke "sha256:$(printf '0%.0s' {1..64})"
expect_fail 1 "needs a server admin" as "$ALICE" cub key revoke "$OFFLINE"
expect_ok cub key revoke "$OFFLINE" --reason "laptop lost"
expect_contains "$OUT" "Key $OFFLINE revoked"
expect_fail 1 "was revoked already" cub key revoke "$OFFLINE"
expect_fail 1 "never trusted again" cub key trust --file "$E2E_TMP/offline.pub"
expect_ok cub key list -o json
expect_eq 1 "$(jget len)" "revoked keys are not listed"
expect_ok cub key list --all -o json
expect_eq 2 "$(jget len)" "but are with --all"
expect_eq "laptop lost" "$(jget 1.RevokeReason)"
expect_eq admin "$(jget 1.RevokedBy)"
run db -c "UPDATE trusted_keys SET revoked_at = NULL, revoked_by = NULL WHERE key_id = '$OFFLINE'"
expect_contains "$ERR" "it stays revoked"
run db -c "DELETE FROM trusted_keys"
expect_contains "$ERR" "trusted_keys is append-only"

section "rotation: cubd restarted with a new key; what key A signed still verifies"
mv "$KEY_FILE" "$E2E_TMP/key-a.pem"
restart  # makes a new key at the same path
expect_ok cub server public-key -o json
KEY_B=$(jget KeyID)
expect_ne "$KEY_A" "$KEY_B" "a new key"
expect_ok cub key list -o json
expect_eq 2 "$(jget len)" "both Server keys trusted"
expect_eq "$KEY_A" "$(jget 0.KeyID)"
expect_eq false "$(jget 0.Current)"
expect_eq "$KEY_B" "$(jget 1.KeyID)"
expect_eq true "$(jget 1.Current)"
expect_ok cub release verify --space app --release 1 -o json
expect_eq true "$(jget Verified)" "release 1, signed with the old key"
expect_eq "$KEY_A" "$(jget KeyID)"
sed 's/hello/hi/' "$E2E_TMP/cm.yaml" >"$E2E_TMP/cm2.yaml"
expect_ok cub unit update --space app cm "$E2E_TMP/cm2.yaml"
expect_ok cub release publish app
expect_ok cub release verify --space app --release 2 -o json
expect_eq true "$(jget Verified)"
expect_eq "$KEY_B" "$(jget KeyID)" "release 2, signed with the new key"
expect_ok cub release publish app --release 1  # a rollback: delivered after verification
expect_ok cub release get --space app --release 3 -o json
expect_eq Delivered "$(jget DeliveryState)"
expect_eq "greeting: hello" "$(grep -rh greeting "$E2E_TMP/out" | tr -s ' ' | sed 's/^ //')" \
  "the rolled-back content in the Target"

section "the old key revoked: what it signed is refused"
expect_ok cub key revoke "$KEY_A" --reason "rotated"
expect_fail 1 "release 1 of app does not verify" cub release verify --space app --release 1
expect_contains "$OUT" "keyid $KEY_A): not a trusted key"
expect_fail 1 "does not verify with a key cubd trusts" cub release publish app --release 1
expect_ok cub release verify --space app --release 2
expect_ok cub release verify --space app --release 3

section "not ready: started without its key file, cubd refuses to sign until it appears"
mv "$KEY_FILE" "$E2E_TMP/key-b.pem"
restart --no-create-signing-key
expect_contains "$(cat "${CUBD_LOG[main]}")" "no signing key yet: waiting for its key file $KEY_FILE"
[[ ! -e $KEY_FILE ]] || e2e_fail "cubd created $KEY_FILE despite --no-create-signing-key"
expect_ok cub key list -o json
expect_eq 1 "$(jget len)" "key B still trusted"
expect_eq false "$(jget 0.Current)" "nothing signs now"
expect_fail 1 "SigningKeyNotReady" cub server public-key
expect_fail 1 "SigningKeyNotReady: cubd has no signing key yet (waiting for its key file $KEY_FILE" \
  cub release publish app
expect_ok cub release verify --space app --release 2  # verifying needs no signing key
cp "$E2E_TMP/key-b.pem" "$E2E_TMP/mount.tmp" && mv "$E2E_TMP/mount.tmp" "$KEY_FILE"
for _ in $(seq 1 150); do
  grep -qF "signing with key $KEY_B ($KEY_FILE, appeared)" "${CUBD_LOG[main]}" && break
  sleep 0.2
done
expect_contains "$(cat "${CUBD_LOG[main]}")" "signing with key $KEY_B ($KEY_FILE, appeared)"
expect_ok cub release publish app
expect_ok cub key list -o json
expect_eq true "$(jget 0.Current)"
expect_ok cub server public-key -o json
expect_eq "$KEY_B" "$(jget KeyID)"

section "a key file that exists but does not load stops cubd at start"
e2e_stop_cubd main
echo "not a key" >"$E2E_TMP/bad.pem" && chmod 600 "$E2E_TMP/bad.pem"
expect_fail 1 "bad.pem" cubd serve --database-url "$E2E_SERVE_URL" --listen 127.0.0.1:0 \
  --signing-key "$E2E_TMP/bad.pem" --no-create-signing-key

e2e_finish
