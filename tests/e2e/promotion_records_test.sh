#!/usr/bin/env bash
# Signed promotion records through the real binaries: a typed promotion, an automatic one (by
# the engine, as `automatic`), a queued one (carried out for the user who queued it) and a
# forced one (with its reason) each leave one record per Space; `cub changeorder records`
# lists them and --space-name filters; `cub release verify` checks them; a record checks with
# openssl alone, as docs/operations.md shows, and fails once its payload is changed; the
# runtime role can neither change nor remove a record, and a swapped envelope is reported.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
e2e_init promotion_records
e2e_start_cubd main
export CUB_SERVER=$E2E_SERVER CUB_TOKEN=$ADMIN_TOKEN
owner() { "$E2E_PSQL" -X -q -A -t -v ON_ERROR_STOP=1 "$E2E_DB_URL" "$@"; }
runtime() { "$E2E_PSQL" -X -q -A -t -v ON_ERROR_STOP=1 "$E2E_SERVE_URL" "$@"; }
records() { owner -c "SELECT count(*) FROM promotion_records WHERE stage = '$1'"; }

# wait_for DESCRIPTION SQL: polls SQL (as the owner) until it prints 't', for up to 30 s.
wait_for() {
  local what=$1 sql=$2 deadline=$((SECONDS + 30))
  while ((SECONDS < deadline)); do
    [[ $(owner -c "$sql") == t ]] && { _e2e_pass "$what"; return 0; }
    sleep 0.1
  done
  _E2E_LAST_CMD="$sql"
  e2e_fail "timed out waiting for: $what"
}
# The decoded payload of the record of SPACE in the JSON of `changeorder records -o json`.
payload_of() {
  python3 -c '
import base64, json, sys
for r in json.loads(sys.argv[1]):
    if r["Space"] == sys.argv[2]:
        print(base64.b64decode(json.loads(r["Envelope"])["payload"]).decode())
' "$OUT" "$1"
}

section "setup: four stages (typed, automatic, queued for approvals, forced past Healthy)"
ALICE=$(create_user alice --group release-approvers) || e2e_fail "user"
BOB=$(create_user bob --group release-approvers) || e2e_fail "user"
DEPLOYER=$(create_user deployer) || e2e_fail "user"
expect_ok cub space create platform
expect_ok cub target create --space platform local --provider Directory \
  --param "path=$E2E_TMP/deploy/{space}"
cat >"$E2E_TMP/flow.yaml" <<'YAML'
Stages:
  - Name: dev
    WhereSpace: "Labels.Stage = 'Development'"
  - Name: staging
    WhereSpace: "Labels.Stage = 'Staging'"
    Mode: Automatic
  - Name: prod
    WhereSpace: "Labels.Stage = 'Production'"
    Prerequisites: [two-approvers]
  - Name: edge
    WhereSpace: "Labels.Stage = 'Edge'"
    Prerequisites: [Healthy]
AttestationPrerequisites:
  - Name: two-approvers
    Count: 2
YAML
expect_ok cub changeworkflow create --space platform flow --filename "$E2E_TMP/flow.yaml"
expect_ok cub space create acme-base
cat >"$E2E_TMP/app.yaml" <<'YAML'
apiVersion: apps/v1
kind: Deployment
metadata:
  name: app
spec:
  template:
    spec:
      containers:
        - name: app
          image: ghcr.io/acme/app:v1
YAML
expect_ok cub unit create --space acme-base app "$E2E_TMP/app.yaml"
for s in dev-1 dev-2; do expect_ok cub variant create "acme-$s" acme-base --stage Development; done
expect_ok cub variant create acme-staging acme-base --stage Staging
expect_ok cub variant create acme-prod acme-base --stage Production
expect_ok cub variant create acme-edge acme-base --stage Edge
for s in acme-base acme-dev-1 acme-dev-2 acme-staging acme-prod acme-edge; do
  expect_ok cub space grant "$s" editor --user deployer
done
expect_ok cub space grant acme-staging approver --group release-approvers
expect_ok cub space grant platform viewer --user deployer
expect_ok cub space update acme-dev-1 --release-target platform/local
expect_ok as "$DEPLOYER" cub function set --space acme-base --unit app \
  -- set-image-reference-by-uri ghcr.io/acme/app ":v2"
expect_ok as "$DEPLOYER" cub changeorder create --space acme-base v2 --description v2 \
  --change-workflow platform/flow
CO_ID=$(owner -c "SELECT id FROM change_orders WHERE slug = 'v2'")
expect_eq 0 "$(owner -c 'SELECT count(*) FROM promotion_records')" "no record before a promotion"

section "a typed promotion: one record per Space, by the user; the engine then promotes staging"
expect_ok as "$DEPLOYER" cub variant promote --change-order acme-base/v2
expect_eq 2 "$(records dev)" "records of the dev promotion"
expect_eq deployer "$(owner -c "SELECT DISTINCT promoted_by FROM promotion_records WHERE stage = 'dev'")"
wait_for "the engine promoted staging, and recorded it" \
  "SELECT count(*) = 1 FROM promotion_records WHERE stage = 'staging'"
expect_eq "automatic||f" "$(owner -c "SELECT promoted_by, queued_by, forced FROM promotion_records WHERE stage = 'staging'" -F '|')"

section "a queued promotion: recorded when the engine carries it out, naming who queued it"
expect_ok as "$DEPLOYER" cub variant promote --change-order acme-base/v2 --queue -o json
expect_eq prod "$(jget Queued.Stage)"
expect_eq 0 "$(records prod)" "nothing recorded while queued"
expect_ok as "$ALICE" cub variant approve --change-order acme-base/v2 --stage staging
expect_ok as "$BOB" cub variant approve --change-order acme-base/v2 --stage staging
wait_for "the queued promotion into prod, recorded" \
  "SELECT count(*) = 1 FROM promotion_records WHERE stage = 'prod'"
expect_eq "deployer|deployer|f" "$(owner -c "SELECT promoted_by, queued_by, forced FROM promotion_records WHERE stage = 'prod'" -F '|')"

section "a forced promotion: recorded with the reason and the gate forced past"
expect_fail 1 "cannot report Healthy" as "$DEPLOYER" cub variant promote --change-order acme-base/v2
expect_eq 0 "$(records edge)" "a refusal records nothing"
expect_ok as "$DEPLOYER" cub variant promote --change-order acme-base/v2 --dry-run --force \
  --force-reason "dry"
expect_eq 0 "$(records edge)" "a dry run records nothing"
expect_ok as "$DEPLOYER" cub variant promote --change-order acme-base/v2 --force \
  --force-reason "edge hotfix, Healthy is not reported there yet"
expect_eq "deployer|t" "$(owner -c "SELECT promoted_by, forced FROM promotion_records WHERE stage = 'edge'" -F '|')"
expect_ok as "$DEPLOYER" cub variant promote --change-order acme-base/v2 --force --force-reason again
expect_eq 1 "$(records edge)" "a rerun that lands nothing records nothing"

section "cub changeorder records lists them; --space-name filters"
expect_ok as "$DEPLOYER" cub changeorder records --space acme-base v2
expect_contains "$OUT" "SPACE"
expect_contains "$OUT" "PROMOTED-BY"
expect_contains "$OUT" "DIGEST"
expect_match "$OUT" "acme-staging +staging +automatic +[0-9T:.Z-]+ +no +sha256:[0-9a-f]{64}"
expect_match "$OUT" "acme-prod +prod +deployer \(queued by deployer\) +[0-9T:.Z-]+ +no "
expect_match "$OUT" "acme-edge +edge +deployer +[0-9T:.Z-]+ +yes "
expect_eq 6 "$(printf '%s\n' "$OUT" | wc -l)" "header and five records"
expect_ok as "$DEPLOYER" cub changeorder records --space acme-base v2 --space-name acme-prod
expect_eq 2 "$(printf '%s\n' "$OUT" | wc -l)" "header and the record of acme-prod"
expect_contains "$OUT" "acme-prod"
expect_not_contains "$OUT" "acme-edge"
PROD_ID=$(owner -c "SELECT id FROM spaces WHERE slug = 'acme-prod'")
expect_ok cub changeorder records --space acme-base v2 --space-name "$PROD_ID" -o json
expect_eq 1 "$(jget len)" "filtered by the Space's ID"
expect_ok cub changeorder records --space acme-base v2 --space-name nowhere -o json
expect_eq 0 "$(jget len)" "no Space of that name"
expect_fail 1 "not found" cub changeorder records --space acme-base nope

section "-o json gives the envelopes; their statements say who, what and why"
expect_ok cub changeorder records --space acme-base v2 -o json
expect_eq 5 "$(jget len)"
expect_eq application/vnd.in-toto+json "$(jget 0.Envelope | python3 -c 'import json,sys; print(json.load(sys.stdin)["payloadType"])')"
ST=$(payload_of acme-edge)
expect_eq https://cub.dev/promotion/v1 "$(jget predicateType "$ST")"
expect_eq space/acme-edge "$(jget subject.0.name "$ST")"
expect_eq acme-edge/app@2 "$(jget subject.1.name "$ST")"
expect_eq acme-base/v2 "$(jget predicate.ChangeOrder "$ST")"
expect_eq "$CO_ID" "$(jget predicate.ChangeOrderID "$ST")"
expect_eq edge "$(jget predicate.Stage "$ST")"
expect_eq acme-edge "$(jget predicate.Space.Slug "$ST")"
expect_eq deployer "$(jget predicate.PromotedBy "$ST")"
expect_eq true "$(jget predicate.Forced "$ST")"
expect_eq "edge hotfix, Healthy is not reported there yet" "$(jget predicate.ForceReason "$ST")"
expect_contains "$(jget predicate.OverriddenGates "$ST")" "cannot report Healthy"
expect_contains "$(jget predicate.GatesEvaluated "$ST")" "two-approvers"
expect_contains "$(jget predicate.Gates "$ST")" "cannot report Healthy"
expect_eq Upgraded "$(jget predicate.Units.0.Action "$ST")"
HASH=$(owner -c "SELECT r.data_hash FROM revisions r JOIN units u ON u.id = r.unit_id AND r.revision_num = u.head_revision_num JOIN spaces s ON s.id = u.space_id WHERE s.slug = 'acme-edge'")
expect_eq "$HASH" "$(jget predicate.Units.0.DataHash "$ST")" "the Unit's data hash as it landed"
expect_eq "${HASH#sha256:}" "$(jget subject.1.digest.sha256 "$ST")"
ST=$(payload_of acme-prod)
expect_eq deployer "$(jget predicate.QueuedBy "$ST")"
# The evidence of the gate that let it in: both votes, by attestation ID and voter.
GATE=$(python3 -c 'import json,sys; print(json.dumps([g for g in json.loads(sys.argv[1])["predicate"]["Gates"] if g["Gate"] == "two-approvers"][0]))' "$ST")
expect_eq true "$(jget Held "$GATE")"
expect_eq acme-staging "$(jget Space "$GATE")"
expect_eq 2 "$(jget Evidence.Votes.len "$GATE")"
expect_contains "$(jget Evidence.Votes "$GATE")" '"User":"alice"'
expect_contains "$(jget Evidence.Votes "$GATE")" '"User":"bob"'
expect_contains "$(jget Evidence.Votes "$GATE")" "$(owner -c "SELECT id FROM attestations WHERE username = 'alice'")"
expect_eq true "$(jget predicate.ByEngine "$ST")"
expect_eq false "$(jget predicate.Forced "$ST")"
ST=$(payload_of acme-staging)
expect_eq automatic "$(jget predicate.PromotedBy "$ST")"
expect_eq "" "$(jget predicate.QueuedBy "$ST")"
# The stored digest is that of the statement signed.
expect_eq "sha256:$(payload_of acme-staging | tr -d '\n' | sha256sum | cut -d' ' -f1)" \
  "$(python3 -c 'import json,sys; print([r for r in json.loads(sys.argv[1]) if r["Space"] == "acme-staging"][0]["StatementDigest"])' "$OUT")"

section "cub release verify checks the records of its ChangeOrder in the Space"
expect_ok as "$DEPLOYER" cub release publish acme-dev-1 --revision ChangeOrder:acme-base/v2
expect_ok cub release verify --space acme-dev-1 --release 1 -o json
expect_eq true "$(jget Verified)"
expect_contains "$(jget Checks)" "provenance signature verifies"
expect_contains "$(jget Checks)" "(stage 'dev', by deployer"
expect_contains "$(jget Checks)" "verifies and names this space and change order"
expect_ok cub release verify --space acme-dev-1 --release 1
expect_contains "$OUT" "verifies and names this space and change order"

section "a record checks with openssl alone (docs/operations.md)"
cub server public-key >"$E2E_TMP/server.pub.pem" || e2e_fail "cub server public-key failed"
expect_ok cub changeorder records --space acme-base v2 --space-name acme-edge -o json
# jq's part of the documented recipe, in python (jq is not among the build's dependencies).
python3 -c 'import json,sys; print(json.loads(sys.argv[1])[0]["Envelope"])' "$OUT" >"$E2E_TMP/envelope.json"
field() { python3 -c 'import json,sys; e = json.load(open(sys.argv[1])); print(e["payloadType"] if sys.argv[2] == "type" else e["payload"] if sys.argv[2] == "payload" else e["signatures"][0]["sig"])' "$E2E_TMP/envelope.json" "$1"; }
(
  cd "$E2E_TMP" || exit 1
  TYPE=$(field type)
  field payload | base64 -d >payload.bin
  field sig | base64 -d >sig.bin
  { printf 'DSSEv1 %d %s %d ' "$(printf %s "$TYPE" | wc -c)" "$TYPE" "$(wc -c <payload.bin)"
    cat payload.bin; } >pae.bin
)
expect_ok openssl pkeyutl -verify -pubin -inkey "$E2E_TMP/server.pub.pem" -rawin \
  -in "$E2E_TMP/pae.bin" -sigfile "$E2E_TMP/sig.bin"
expect_contains "$OUT" "Signature Verified Successfully"
expect_eq "edge hotfix, Healthy is not reported there yet" "$(jq -r .predicate.ForceReason "$E2E_TMP/payload.bin" 2>/dev/null || jget predicate.ForceReason "$(cat "$E2E_TMP/payload.bin")")"
# One changed byte of the payload (the force reason): the signature no longer verifies.
sed 's/edge hotfix/edge hotfiX/' "$E2E_TMP/pae.bin" >"$E2E_TMP/tampered.bin"
expect_ne "$(sha256sum <"$E2E_TMP/pae.bin")" "$(sha256sum <"$E2E_TMP/tampered.bin")" "the tampered bytes differ"
run openssl pkeyutl -verify -pubin -inkey "$E2E_TMP/server.pub.pem" -rawin \
  -in "$E2E_TMP/tampered.bin" -sigfile "$E2E_TMP/sig.bin"
expect_eq 1 "$RC" "openssl exit status on a tampered payload"
expect_contains "$OUT$ERR" "Signature Verification Failure"

section "the records are append-only"
expect_eq cub_serve "$(runtime -c 'SELECT current_user')" "cubd's role in the tests"
run runtime -c "UPDATE promotion_records SET forced = false"
expect_ne 0 "$RC" "runtime UPDATE"
expect_contains "$ERR" "permission denied for table promotion_records"
run runtime -c "DELETE FROM promotion_records"
expect_contains "$ERR" "permission denied for table promotion_records"
run runtime -c "TRUNCATE promotion_records"
expect_contains "$ERR" "permission denied for table promotion_records"
run runtime -c "ALTER TABLE promotion_records DISABLE TRIGGER promotion_records_append_only"
expect_contains "$ERR" "must be owner of table promotion_records"
run owner -c "UPDATE promotion_records SET forced = false"
expect_contains "$ERR" "promotion_records is append-only: UPDATE refused"
run owner -c "DELETE FROM promotion_records"
expect_contains "$ERR" "promotion_records is append-only: DELETE refused"
run owner -c "TRUNCATE promotion_records"
expect_contains "$ERR" "promotion_records is append-only: TRUNCATE refused"
expect_eq 5 "$(owner -c 'SELECT count(*) FROM promotion_records')" "every record kept"

section "an envelope swapped behind the triggers' back is reported by release verify"
# Only the owner can do this, with the triggers off: the signature still holds (it is another
# genuine record), but the statement names another Space.
expect_ok owner -c "ALTER TABLE promotion_records DISABLE TRIGGER promotion_records_append_only;
  UPDATE promotion_records p SET envelope = o.envelope, statement_digest = o.statement_digest
    FROM promotion_records o WHERE p.space_slug = 'acme-dev-1' AND o.space_slug = 'acme-dev-2';
  ALTER TABLE promotion_records ENABLE TRIGGER promotion_records_append_only"
run cub release verify --space acme-dev-1 --release 1 -o json
expect_eq 1 "$RC" "release verify exit status"
expect_eq false "$(jget Verified)"
expect_contains "$(jget Checks)" "provenance signature verifies"
expect_contains "$(jget Checks)" "the signed statement differs in Space.ID"
expect_fail 1 "does not verify" cub release verify --space acme-dev-1 --release 1

e2e_finish
