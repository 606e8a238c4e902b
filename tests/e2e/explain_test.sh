#!/usr/bin/env bash
# "Why not, and until when" through the real binaries: `cub changeorder explain|get`,
# ExplainChangeOrder over REST and `cub promotion list` name each gate that holds a ChangeOrder,
# the Space it waits in by slug, what it needs (Healthy not yet reported for a Release,
# approvals n of m from users by name, a CEL gate and its expression) and a queued promotion's
# Stage; nothing is printed as a bare UUID.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
e2e_init explain
e2e_start_cubd main
export CUB_SERVER=$E2E_SERVER CUB_TOKEN=$ADMIN_TOKEN
UUID='[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}'
# no_uuid WHAT TEXT: TEXT names nothing by a bare UUID.
no_uuid() {
  if grep -Eq "$UUID" <<<"$2"; then
    _E2E_LAST_CMD="grep -E UUID ($1)"
    e2e_fail "$1 prints a bare UUID: $(grep -Eo "$UUID" <<<"$2" | head -1)"
  fi
  _e2e_pass "$1 prints no bare UUID"
}
explain_rest() {  # explain_rest BASE NAME: ExplainChangeOrder over the REST mirror, into $OUT
  run curl -sS -X POST -H "Authorization: Bearer $ADMIN_TOKEN" \
    -H 'Content-Type: application/json' \
    --data "{\"Space\":\"$1\",\"ChangeOrder\":\"$2\"}" \
    "http://$E2E_HTTP/v1/ChangeOrderService/ExplainChangeOrder"
  expect_eq 0 "$RC" "curl ExplainChangeOrder"
}
latest_release() {
  db -c "SELECT max(r.release_num) FROM releases r JOIN spaces s ON s.id = r.space_id WHERE s.slug = '$1'"
}

section "setup: dev, staging gated on Healthy, prod on two approvals and a CEL gate"
ALICE=$(create_user alice --group release-approvers) || e2e_fail "user"
BOB=$(create_user bob --group release-approvers) || e2e_fail "user"
CAROL=$(create_user carol --group release-approvers) || e2e_fail "user"
DEPLOYER=$(create_user deployer) || e2e_fail "user"
ARGO=$(create_user argocd --service-account) || e2e_fail "user"
VIEWER=$(create_user vic) || e2e_fail "user"
NOBODY=$(create_user nobody) || e2e_fail "user"
expect_ok cub space create platform
expect_ok cub target create --space platform local --provider Directory \
  --param "path=$E2E_TMP/deploy/{space}"
cat >"$E2E_TMP/flow.yaml" <<'YAML'
Stages:
  - Name: dev
    WhereSpace: "Labels.Stage = 'Development'"
  - Name: staging
    WhereSpace: "Labels.Stage = 'Staging'"
    Prerequisites: [Healthy]
  - Name: prod
    WhereSpace: "Labels.Stage = 'Production'"
    Prerequisites: [two-approvers, after-launch]
AttestationPrerequisites:
  - Name: two-approvers
    Count: 2
    FromGroups: [release-approvers]
CustomPrerequisites:
  - Name: after-launch
    Expression: "cel:now > timestamp('2099-01-01T00:00:00Z')"
    Description: not before the launch
YAML
expect_ok cub changeworkflow create --space platform flow --filename "$E2E_TMP/flow.yaml"
expect_ok cub space create acme-base
deployment v1 >"$E2E_TMP/v1.yaml"
expect_ok cub unit create --space acme-base deployment "$E2E_TMP/v1.yaml"
expect_ok cub variant create acme-dev acme-base --stage Development
expect_ok cub variant create acme-staging acme-base --stage Staging
expect_ok cub variant create acme-prod acme-base --stage Production
for s in acme-dev acme-staging acme-prod; do
  expect_ok cub space update "$s" --release-target platform/local
  expect_ok cub space grant "$s" reporter --user argocd
done
for s in acme-base acme-dev acme-staging acme-prod; do
  expect_ok cub space grant "$s" editor --user deployer
done
expect_ok cub space grant acme-staging approver --group release-approvers
expect_ok cub space grant acme-base viewer --user vic
expect_ok cub space grant platform viewer --user deployer

section "the change in dev, released; staging waits for Healthy"
expect_ok as "$DEPLOYER" cub function set --space acme-base --unit deployment \
  -- set-image-reference-by-uri ghcr.io/acme/acme ":v2"
expect_ok cub changeorder create --space acme-base v2 --description v2 \
  --change-workflow platform/flow
expect_ok cub changeorder explain --space acme-base v2 -o json
expect_eq dev "$(jget Stages.0.Stage)"
expect_eq true "$(jget Stages.0.Next)"
expect_eq 0 "$(jget Stages.0.Waits.len)" "nothing holds the first Stage"
expect_ok as "$DEPLOYER" cub variant promote --change-order acme-base/v2
expect_ok as "$DEPLOYER" cub release publish acme-dev --revision ChangeOrder:acme-base/v2
DEV_RELEASE=$(latest_release acme-dev)
expect_ok as "$VIEWER" cub changeorder explain --space acme-base v2 -o json
expect_eq staging "$(jget Stages.0.Stage)"
expect_eq Entry "$(jget Stages.0.Phase)"
expect_eq Manual "$(jget Stages.0.Mode)"
expect_eq Healthy "$(jget Stages.0.Waits.0.Gate)"
expect_eq acme-dev "$(jget Stages.0.Waits.0.Space)"
expect_contains "$(jget Stages.0.Waits.0.Needs)" "Release $DEV_RELEASE"
expect_eq "" "$(jget Stages.0.Earliest)" "Healthy waits for a report, not for time"
expect_ok as "$VIEWER" cub changeorder explain --space acme-base v2
EXPLAIN_HEALTHY=$OUT
expect_contains "$OUT" "staging (next stage, Manual): 1 gate does not hold"
expect_match "$OUT" "staging +Healthy +Builtin +acme-dev +.*Release $DEV_RELEASE"
no_uuid "changeorder explain (Healthy)" "$EXPLAIN_HEALTHY"
expect_fail 1 "" as "$NOBODY" cub changeorder explain --space acme-base v2

section "a promotion queued into prod, two Stages ahead: its Stage is explained too"
expect_ok as "$DEPLOYER" cub variant promote --change-order acme-base/v2 --target-stage prod --queue
expect_ok cub changeorder explain --space acme-base v2 -o json
expect_eq prod "$(jget Stages.1.Stage)"
expect_eq true "$(jget Stages.1.Queued)"
expect_eq deployer "$(jget Stages.1.QueuedBy)"
expect_eq false "$(jget Stages.1.Next)"
expect_contains "$(jget Stages.1.Waits)" '"Space":"acme-staging"'
expect_contains "$(jget Stages.1.Waits)" '"Kind":"Taken"'
expect_ok cub changeorder explain --space acme-base v2
expect_contains "$OUT" "prod (Manual; promotion queued by deployer at "
no_uuid "changeorder explain (queued)" "$OUT"
expect_ok cub promotion list --space acme-base
expect_match "$OUT" "acme-base/v2 +prod +deployer"
expect_contains "$OUT" "Healthy in acme-dev"
no_uuid "promotion list" "$OUT"
expect_ok cub promotion list --space acme-base -o json
expect_eq true "$(jget 0.Explained)"
expect_eq Healthy "$(jget 0.Waits.0.Gate)"

section "Healthy reported, staging promoted: prod waits for approvals and the CEL gate"
expect_ok as "$ARGO" cub release set-status --space acme-dev --release "$DEV_RELEASE" \
  --sync Synced --health Healthy
expect_ok as "$DEPLOYER" cub variant promote --change-order acme-base/v2
expect_contains "$OUT" "into stage staging"
expect_ok as "$ALICE" cub variant approve acme-staging --change-order acme-base/v2
expect_ok cub changeorder explain --space acme-base v2 -o json
expect_eq prod "$(jget Stages.0.Stage)"
expect_eq true "$(jget Stages.0.Next)"
expect_eq true "$(jget Stages.0.Queued)"
expect_eq 2 "$(jget Stages.0.Waits.len)"
expect_eq two-approvers "$(jget Stages.0.Waits.0.Gate)"
expect_eq Attestation "$(jget Stages.0.Waits.0.Kind)"
expect_eq acme-staging "$(jget Stages.0.Waits.0.Space)"
expect_contains "$(jget Stages.0.Waits.0.Message)" "has 1 of 2"
expect_eq '["bob","carol"]' "$(jget Stages.0.Waits.0.NeedsFrom)"
expect_eq after-launch "$(jget Stages.0.Waits.1.Gate)"
expect_eq Custom "$(jget Stages.0.Waits.1.Kind)"
expect_contains "$(jget Stages.0.Waits.1.Needs)" "now > timestamp('2099-01-01T00:00:00Z')"
# A CEL gate reading `now` cannot say when it will hold: no earliest.
expect_eq "" "$(jget Stages.0.Waits.1.Earliest)"
expect_eq "" "$(jget Stages.0.Earliest)"
JSON=$OUT

expect_ok cub changeorder explain --space acme-base v2
EXPLAIN=$OUT
expect_contains "$OUT" "prod (next stage, Manual; promotion queued by deployer at "
expect_contains "$OUT" "2 gates do not hold; it waits for more than time"
expect_match "$OUT" "prod +two-approvers +Attestation +acme-staging +.*1 of 2"
expect_match "$OUT" "bob.*carol"
expect_match "$OUT" "prod +after-launch +Custom +acme-staging +.*now > timestamp"
no_uuid "changeorder explain" "$EXPLAIN"

expect_ok cub changeorder get --space acme-base v2
GET=$OUT
expect_contains "$OUT" "Waiting For"
expect_match "$OUT" "prod +two-approvers +Attestation +acme-staging +.*1 of 2"
expect_match "$OUT" "In-Scope Spaces +4: acme-base, acme-"
expect_match "$OUT" "Resolved Spaces +[0-9]+: .*acme-staging"
# The ChangeOrder's own ID row is its identity, not a reference to something else.
no_uuid "changeorder get" "$(grep -v '^ID ' <<<"$GET")"
# The API field keeps user IDs, as before, filled from the same findings.
expect_ok cub changeorder get --space acme-base v2 -o json
expect_eq two-approvers "$(jget PendingRequirements.0.Prerequisite)"
expect_eq Entry "$(jget PendingRequirements.0.Kind)"
expect_contains "$(jget PendingRequirements.0.NeedsApprovalFrom)" "$(db -c "SELECT id FROM users WHERE username = 'bob'")"
expect_not_contains "$(jget PendingRequirements.0.NeedsApprovalFrom)" "$(db -c "SELECT id FROM users WHERE username = 'alice'")"
expect_eq 1 "$(jget PendingRequirements.len)"

expect_ok cub promotion list --space acme-base
expect_contains "$OUT" "two-approvers in acme-staging"
expect_contains "$OUT" "(+1 more)"
no_uuid "promotion list" "$OUT"
expect_ok cub event list --change-order acme-base/v2
no_uuid "event list" "$OUT"

section "the REST mirror gives the same answer"
explain_rest acme-base v2
expect_eq acme-base/v2 "$(jget ChangeOrder)"
waits() { python3 -c 'import json,sys; print(json.dumps(json.loads(sys.argv[1])["Stages"], sort_keys=True))' "$1"; }
expect_eq "$(waits "$JSON")" "$(waits "$OUT")" "REST and cub give the same Stages"
expect_eq '["bob","carol"]' "$(jget Stages.0.Waits.0.NeedsFrom)"
run curl -sS -X POST -H "Authorization: Bearer $NOBODY" -H 'Content-Type: application/json' \
  --data '{"Space":"acme-base","ChangeOrder":"v2"}' \
  "http://$E2E_HTTP/v1/ChangeOrderService/ExplainChangeOrder"
expect_ne "" "$(jget message)" "a user with no role on the base is refused"

section "the second approval: only the CEL gate holds prod"
expect_ok as "$BOB" cub variant approve acme-staging --change-order acme-base/v2
expect_ok cub changeorder explain --space acme-base v2 -o json
expect_eq 1 "$(jget Stages.0.Waits.len)"
expect_eq after-launch "$(jget Stages.0.Waits.0.Gate)"
expect_ok cub changeorder get --space acme-base v2 -o json
expect_eq 0 "$(jget PendingRequirements.len)"

e2e_finish
