#!/usr/bin/env bash
# Scans and checks through the real binaries: a scanner service account records a Release's
# vulnerability findings (by number and by digest), malformed findings are refused and store
# nothing, release get and history show them, a CEL gate on Release.Vulnerabilities.critical
# holds a Stage until a clean scan (by hand, then an Automatic Stage promoted by the engine),
# an increase over the previous Release is an event, findings never change what is deployed,
# and a LoadTest check with Pass/Fail is required by an AttestationPrerequisite.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
e2e_init scan
e2e_start_cubd main
export CUB_SERVER=$E2E_SERVER CUB_TOKEN=$ADMIN_TOKEN

scans() { db -c "SELECT count(*) FROM release_scans"; }
increased() { db -c "SELECT count(*) FROM events WHERE kind = 'VulnerabilitiesIncreased'"; }
# rest PATH JSON TOKEN: POSTs the body; sets OUT (body) and HTTP_CODE.
rest() {
  printf '%s' "$2" >"$E2E_TMP/rest.json"
  run curl -sS -o "$E2E_TMP/rest.body" -w '%{http_code}' -X POST \
    -H "Authorization: Bearer $3" --data-binary "@$E2E_TMP/rest.json" "http://$E2E_HTTP$1"
  ((RC == 0)) || e2e_fail "curl failed"
  HTTP_CODE=$OUT
  OUT=$(cat "$E2E_TMP/rest.body")
}

section "setup: a scanner, a reporter, a workflow gated on a clean scan"
SCANNER=$(create_user scanner --service-account) || e2e_fail "user"
ARGO=$(create_user argocd --service-account) || e2e_fail "user"
SAM=$(create_user sam) || e2e_fail "user"
VIEWER=$(create_user vera) || e2e_fail "user"
expect_ok cub space create platform
# One Target per Space: Release numbers are counted per Target.
expect_ok cub target create --space platform local --provider Directory \
  --param "path=$E2E_TMP/deploy/{space}"
expect_ok cub target create --space platform local-prod --provider Directory \
  --param "path=$E2E_TMP/deploy-prod/{space}"
cat >"$E2E_TMP/flow.yaml" <<'YAML'
Stages:
  - Name: dev
    WhereSpace: "Labels.Stage = 'Development'"
  - Name: prod
    WhereSpace: "Labels.Stage = 'Production'"
    Prerequisites: [Released, clean-scan]
CustomPrerequisites:
  - Name: clean-scan
    Expression: "cel:Release.Vulnerabilities.critical == 0"
    Description: no critical vulnerabilities
YAML
expect_ok cub changeworkflow create --space platform flow --filename "$E2E_TMP/flow.yaml"
expect_ok cub space create acme-base
deployment v1 >"$E2E_TMP/v1.yaml"
expect_ok cub unit create --space acme-base deployment "$E2E_TMP/v1.yaml"
expect_ok cub variant create acme-dev acme-base --stage Development
expect_ok cub variant create acme-prod acme-base --stage Production
expect_ok cub space update acme-dev --release-target platform/local
expect_ok cub space update acme-prod --release-target platform/local-prod
for s in acme-dev acme-prod; do
  expect_ok cub space grant "$s" scanner --user scanner
  expect_ok cub space grant "$s" reporter --user argocd
  expect_ok cub space grant "$s" viewer --user vera
done
expect_ok cub space permissions acme-dev
expect_contains "$OUT" "scanner"
expect_fail 1 "unknown role 'auditor': use viewer, editor, approver, admin, reporter or scanner" \
  cub space grant acme-dev auditor --user vera
expect_ok cub function set --space acme-base --unit deployment \
  -- set-image-reference-by-uri ghcr.io/acme/acme ":v2"
expect_ok cub changeorder create --space acme-base v2 --description v2 \
  --change-workflow platform/flow
expect_ok cub variant promote --change-order acme-base/v2
expect_ok cub release publish acme-dev --revision ChangeOrder:acme-base/v2
expect_ok cub release get --space acme-dev --release 1 -o json
DIGEST=$(jget BundleDigest)
expect_eq "{}" "$(jget Vulnerabilities)" "an unscanned Release has no findings"
expect_eq "" "$(jget ScannedAt)"

section "an unscanned Release holds the gate: the expression cannot evaluate"
expect_fail 1 "Variant 'acme-dev': requires clean-scan" cub variant promote --change-order acme-base/v2
expect_contains "$ERR" "no critical vulnerabilities"

section "the scanner records findings by number; the live status is left as it is"
expect_ok as "$SCANNER" cub release set-status --space acme-dev --release 1 \
  --vulnerabilities critical=1,high=2,medium=5,low=9
expect_contains "$OUT" "findings critical=1,high=2,medium=5,low=9 recorded by scanner"
expect_eq 1 "$(scans)"
expect_ok cub release get --space acme-dev --release 1 -o json
expect_eq '{"critical":1,"high":2,"low":9,"medium":5}' "$(jget Vulnerabilities)"
expect_eq scanner "$(jget ScannedBy)"
expect_ne "" "$(jget ScannedAt)"
expect_eq Unknown "$(jget LiveStatus.Sync)" "findings alone leave the sync status"
expect_eq Unknown "$(jget LiveStatus.Health)" "findings alone leave the health"
expect_eq "" "$(jget LiveStatus.ReportedAt)"
expect_ok cub release get --space acme-dev --release 1
expect_match "$OUT" "Vulnerabilities +critical=1,high=2,low=9,medium=5"
expect_match "$OUT" "ScannedBy +scanner"
expect_ok cub release history --space acme-dev
expect_contains "$OUT" "VULNERABILITIES"
expect_contains "$OUT" "critical=1,high=2,medium=5,low=9"
expect_ok cub release history --space acme-dev -o json
expect_eq 1 "$(jget 0.Vulnerabilities.critical)"
expect_ne "" "$(jget 0.ScannedAt)"

section "a critical finding holds the gate"
expect_fail 1 "unable to promote to stage 'prod', Variant 'acme-dev': requires clean-scan: no critical vulnerabilities (expression evaluated to false)" \
  cub variant promote --change-order acme-base/v2

section "malformed findings are refused, naming the bad part, and store nothing"
for bad in "urgent=1|--vulnerabilities 'urgent=1': unknown severity 'urgent' (use critical, high, medium or low)" \
  "Critical=0|unknown severity 'Critical'" \
  "critical=0,high=-2|'high=-2': the count '-2' is not a non-negative integer" \
  "high=2.5|the count '2.5' is not a non-negative integer" \
  "high=2,high=3|'high=3': high is given twice" \
  "high|'high': not SEVERITY=COUNT" \
  "critical=0,,low=1|an empty item in 'critical=0,,low=1'" \
  "critical=0,|an empty item" \
  "high=99999999999|at most 2147483647"; do
  expect_fail 2 "${bad#*|}" as "$SCANNER" cub release set-status \
    --space acme-dev --release 1 --vulnerabilities "${bad%%|*}"
done
expect_fail 2 "give --sync and --health (a live status), --vulnerabilities (scan findings), or both" \
  as "$SCANNER" cub release set-status --space acme-dev --release 1
expect_fail 2 "--sync requires --health" as "$ARGO" cub release set-status --space acme-dev \
  --release 1 --sync Synced
# The server checks what a REST caller sends, too.
rest /v1/ReleaseService/SetReleaseStatus \
  '{"Space":"acme-dev","Release":1,"Vulnerabilities":{"Critical":0}}' "$SCANNER"
expect_eq 400 "$HTTP_CODE" "an unknown severity over REST"
expect_eq "Vulnerabilities: unknown severity 'Critical' (use critical, high, medium or low)" \
  "$(jget message)"
rest /v1/ReleaseService/SetReleaseStatus \
  '{"Space":"acme-dev","Release":1,"Vulnerabilities":{"high":-1}}' "$SCANNER"
expect_eq 400 "$HTTP_CODE" "a negative count over REST"
expect_eq "Vulnerabilities: high -1 is not a non-negative count" "$(jget message)"
rest /v1/ReleaseService/SetReleaseStatus '{"Space":"acme-dev","Release":1}' "$SCANNER"
expect_eq 400 "$HTTP_CODE" "neither a status nor findings over REST"
expect_eq 1 "$(scans)" "no refused scan was stored"
expect_ok cub release get --space acme-dev --release 1 -o json
expect_eq 1 "$(jget Vulnerabilities.critical)" "the findings are unchanged"

section "a scanner records findings and reads, nothing else; a viewer may not record them"
expect_fail 1 "user 'scanner' may not report the live status of releases in space 'acme-dev'" \
  as "$SCANNER" cub release set-status --space acme-dev --release 1 --sync Synced --health Healthy
expect_fail 1 "user 'scanner' may not report the live status" \
  as "$SCANNER" cub release set-status --space acme-dev --release 1 --sync Synced \
  --health Healthy --vulnerabilities critical=0
expect_fail 1 "may not change space 'acme-dev'" as "$SCANNER" cub release publish acme-dev
expect_fail 1 "may not change space 'acme-dev'" as "$SCANNER" cub unit update --space acme-dev \
  deployment "$E2E_TMP/v1.yaml"
expect_fail 1 "may not administer space 'acme-dev'" as "$SCANNER" cub space grant acme-dev \
  admin --user scanner
expect_fail 1 "user 'vera' may not record scan findings or checks in space 'acme-dev': that needs the scanner, reporter or admin role" \
  as "$VIEWER" cub release set-status --space acme-dev --release 1 --vulnerabilities critical=0
expect_ok as "$SCANNER" cub release get --space acme-dev --release 1
expect_eq 1 "$(scans)"

section "a status report alone leaves the findings"
expect_ok as "$ARGO" cub release set-status --space acme-dev --release 1 --sync Synced --health Healthy
expect_ok cub release get --space acme-dev --release 1 -o json
expect_eq Healthy "$(jget LiveStatus.Health)"
expect_eq '{"critical":1,"high":2,"low":9,"medium":5}' "$(jget Vulnerabilities)"
expect_eq 1 "$(scans)"

section "a clean scan by digest (the reporter role may record findings) opens the gate"
expect_ok as "$ARGO" cub release set-status --space acme-dev --digest "$DIGEST" \
  --vulnerabilities critical=0,high=1
expect_eq 2 "$(scans)"
expect_eq 0 "$(increased)" "fewer findings are no event"
expect_ok cub release get --space acme-dev --release 1 -o json
expect_eq '{"critical":0,"high":1}' "$(jget Vulnerabilities)" "only what the newest scan reported"
expect_eq argocd "$(jget ScannedBy)"
expect_eq Healthy "$(jget LiveStatus.Health)" "the status is kept"
expect_ok cub variant promote --change-order acme-base/v2
expect_contains "$OUT" "acme-prod"

section "findings never change what is deployed: prod keeps its Release and status"
expect_ok cub release publish acme-prod --revision ChangeOrder:acme-base/v2
expect_ok as "$ARGO" cub release set-status --space acme-prod --release 1 --sync Synced --health Healthy
expect_ok cub changeorder get --space acme-base v2 -o json
STAGE_BEFORE=$(jget Stage)
expect_ok cub release get --space acme-prod --release 1 -o json
PROD_DIGEST=$(jget BundleDigest)
expect_ok as "$SCANNER" cub release set-status --space acme-prod --bundle-digest "$PROD_DIGEST" \
  --vulnerabilities critical=7,high=0
expect_fail 2 "excludes" as "$SCANNER" cub release set-status --space acme-prod --release 1 \
  --digest "$DIGEST" --vulnerabilities critical=0
expect_ok cub release get --space acme-prod --release 1 -o json
expect_eq 7 "$(jget Vulnerabilities.critical)"
expect_eq Synced "$(jget LiveStatus.Sync)"
expect_eq Healthy "$(jget LiveStatus.Health)"
expect_ok cub release history --space acme-prod -o json
expect_eq 1 "$(jget len)"
expect_eq "" "$(jget 0.EndedAt)" "the deployment stays current"
expect_ne "" "$(jget 0.HealthyAt)"
expect_ok cub changeorder get --space acme-base v2 -o json
expect_eq "$STAGE_BEFORE" "$(jget Stage)" "the ChangeOrder's Stage is unchanged"

section "more findings than the Release before it are an event"
expect_ok cub changeworkflow update --space platform flow --stage-mode prod=Automatic
expect_ok cub function set --space acme-base --unit deployment \
  -- set-image-reference-by-uri ghcr.io/acme/acme ":v3"
expect_ok cub changeorder create --space acme-base v3 --description v3 \
  --change-workflow platform/flow
expect_ok cub variant promote --change-order acme-base/v3
expect_ok cub release publish acme-dev --revision ChangeOrder:acme-base/v3
expect_ok as "$SCANNER" cub release set-status --space acme-dev --release 2 \
  --vulnerabilities critical=2,high=1,low=4
expect_eq 1 "$(increased)" "critical rose over Release 1's newest scan"
expect_ok cub event list --where "Kind = 'VulnerabilitiesIncreased'" -o json
expect_eq 1 "$(jget len)"
expect_eq acme-dev "$(jget 0.Space)"
expect_eq scanner "$(jget 0.User)"
expect_eq "Release 2 of space 'acme-dev' has more findings than the Release before it: critical 0 -> 2" \
  "$(jget 0.Message)"
expect_eq acme-base/v3 "$(jget 0.ChangeOrder)"
expect_ok as "$SCANNER" cub release set-status --space acme-dev --release 2 --vulnerabilities critical=2
expect_eq 2 "$(increased)" "each scan is compared with the Release before"
expect_ok as "$SCANNER" cub release set-status --space acme-dev --release 1 --vulnerabilities high=9
expect_eq 2 "$(increased)" "Release 1 has no Release before it"

section "an Automatic Stage waits for the clean scan, then the engine promotes it"
engine_idle
expect_eq 0 "$(db -c "SELECT count(*) FROM events WHERE kind = 'Promoted' AND change_order = 'acme-base/v3' AND stage = 'prod'")" \
  "the engine does not promote past a critical finding"
expect_ok cub release get --space acme-prod --release 1 -o json
expect_eq 7 "$(jget Vulnerabilities.critical)" "prod still runs Release 1"
expect_ok as "$SCANNER" cub release set-status --space acme-dev --release 2 \
  --vulnerabilities critical=0,high=0,medium=0,low=0
wait_for "the engine promotes v3 into prod once dev's Release is clean" \
  "SELECT count(*) = 1 FROM events WHERE kind = 'Promoted' AND change_order = 'acme-base/v3' AND stage = 'prod'"
expect_eq automatic "$(db -c "SELECT username FROM events WHERE kind = 'Promoted' AND change_order = 'acme-base/v3' AND stage = 'prod'")"

section "records: scans are append-only"
run db -c "UPDATE release_scans SET critical = 0"
expect_ne 0 "$RC" "release_scans refuse UPDATE"
expect_contains "$ERR" "release_scans is append-only: UPDATE refused"
run db -c "DELETE FROM release_scans"
expect_ne 0 "$RC" "release_scans refuse DELETE"
# A purge of a deleted Space removes its Releases' scans with them.
expect_ok cub space get acme-prod -o json
PROD_ID=$(jget SpaceID)
expect_ne 0 "$(db -c "SELECT count(*) FROM release_scans WHERE space_id = '$PROD_ID'")"
expect_ok cub space delete acme-prod
expect_ok cubd purge space "$PROD_ID" --reason "test" --database-url "$E2E_DB_URL"
expect_eq 0 "$(db -c "SELECT count(*) FROM release_scans WHERE space_id = '$PROD_ID'")" \
  "the purge took the scans"
expect_ne 0 "$(scans)" "other Spaces' scans are kept"

section "a LoadTest check, Pass or Fail, required by an AttestationPrerequisite"
LOADTEST=$(create_user loadtest --service-account) || e2e_fail "user"
cat >"$E2E_TMP/checks.yaml" <<'YAML'
Stages:
  - Name: dev
    WhereSpace: "Labels.Stage = 'Development'"
  - Name: prod
    WhereSpace: "Labels.Stage = 'Production'"
    Prerequisites: [load-tested]
AttestationPrerequisites:
  - Name: load-tested
    Type: LoadTest
YAML
expect_ok cub changeworkflow create --space platform checks --filename "$E2E_TMP/checks.yaml"
expect_ok cub space create lt-base
expect_ok cub unit create --space lt-base deployment "$E2E_TMP/v1.yaml"
expect_ok cub variant create lt-dev lt-base --stage Development
expect_ok cub variant create lt-prod lt-base --stage Production
expect_ok cub space grant lt-dev scanner --user loadtest
expect_ok cub space grant lt-dev scanner --user sam
expect_ok cub space grant lt-dev viewer --user vera
expect_ok cub function set --space lt-base --unit deployment \
  -- set-image-reference-by-uri ghcr.io/acme/acme ":v2"
expect_ok cub changeorder create --space lt-base c1 --description c1 --change-workflow platform/checks
expect_ok cub variant promote --change-order lt-base/c1
expect_fail 1 "Variant 'lt-dev': requires load-tested: 1 LoadTest attestation(s) from eligible attesters who did not write the change; deployment revision 2 has 0 of 1" \
  cub variant promote --change-order lt-base/c1
expect_fail 2 "--result: Maybe not in" as "$LOADTEST" cub attestation create --space lt-dev \
  --type LoadTest --result Maybe --change-order lt-base/c1
expect_fail 2 "excludes" as "$LOADTEST" cub attestation create --space lt-dev \
  --type LoadTest --result Pass --fail --change-order lt-base/c1
expect_ok as "$LOADTEST" cub attestation create --space lt-dev --type LoadTest --result Fail \
  --change-order lt-base/c1 --claim p99-ms=900
expect_contains "$OUT" "Recorded LoadTest Fail in lt-dev"
expect_fail 1 "has 0 of 1 and is rejected by loadtest" cub variant promote --change-order lt-base/c1
expect_ok as "$LOADTEST" cub attestation create --space lt-dev --type LoadTest --result Pass \
  --change-order lt-base/c1 --claim p99-ms=180
expect_contains "$OUT" "Recorded LoadTest Pass in lt-dev"
expect_ok cub attestation list --space lt-dev --where "Type = 'LoadTest'" -o json
expect_eq 2 "$(jget len)"
expect_eq loadtest "$(jget 1.User)"
expect_eq Pass "$(jget 1.Result)"

section "a check identity never votes, and a viewer records no check"
expect_fail 1 "user 'loadtest' is a service account and cannot vote" \
  as "$LOADTEST" cub variant approve lt-dev --change-order lt-base/c1
expect_fail 1 "is a service account and cannot vote" \
  as "$LOADTEST" cub attestation create --space lt-dev --change-order lt-base/c1
expect_fail 1 "user 'sam' may not approve in space 'lt-dev': that needs the approver or admin role" \
  as "$SAM" cub variant approve lt-dev --change-order lt-base/c1
expect_fail 1 "user 'vera' may not record a LoadTest attestation in space 'lt-dev': that needs the approver, editor, scanner, reporter or admin role" \
  as "$VIEWER" cub attestation create --space lt-dev --type LoadTest --change-order lt-base/c1
expect_eq 0 "$(db -c "SELECT count(*) FROM attestations WHERE type = 'Approval'")" "no vote was recorded"

section "the Pass counts: the promotion passes"
expect_ok cub variant promote --change-order lt-base/c1
expect_contains "$OUT" "lt-prod"

e2e_finish
