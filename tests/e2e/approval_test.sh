#!/usr/bin/env bash
# Approvals through the real binaries, with several users and groups: who may vote, authors
# excluded, latest vote wins, rejections block, expiry, DistinctGroups, content-based coverage,
# release prerequisites and sealed votes, revocation, and attestations that cannot be changed
# and outlive their Space.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
e2e_init approval
e2e_start_cubd main
export CUB_SERVER=$E2E_SERVER CUB_TOKEN=$ADMIN_TOKEN
user_id() {  # user_id NAME
  db -c "SELECT id FROM users WHERE username = '$1'"
}

deployment() {  # deployment TAG REPLICAS
  cat <<YAML
apiVersion: apps/v1
kind: Deployment
metadata:
  name: acme
spec:
  replicas: $2
  template:
    spec:
      containers:
        - name: acme
          image: ghcr.io/acme/acme:$1
YAML
}

section "setup: users, groups, a workflow with approval requirements"
ALICE=$(create_user alice --group release-approvers) || e2e_fail "user"
BOB=$(create_user bob --group release-approvers) || e2e_fail "user"
CAROL=$(create_user carol --group sre) || e2e_fail "user"
DAVE=$(create_user dave) || e2e_fail "user"
DEPLOYER=$(create_user deployer) || e2e_fail "user"
CI=$(create_user ci-bot --service-account) || e2e_fail "user"
CAROL_ID=$(user_id carol)
ALICE_ID=$(user_id alice)

expect_ok cub space create platform
expect_ok cub target create --space platform local --provider Directory --param "path=$E2E_TMP/deploy"
cat >"$E2E_TMP/flow.yaml" <<YAML
Stages:
  - Name: dev
    WhereSpace: "Labels.Stage = 'Development'"
  - Name: staging
    WhereSpace: "Labels.Stage = 'Staging'"
  - Name: prod
    WhereSpace: "Labels.Stage = 'Production'"
    Prerequisites: [two-approvers, two-groups]
    ReleasePrerequisites: [release-manager]
AttestationPrerequisites:
  - Name: two-approvers
    Count: 2
    Description: two approvals of the change in staging
  - Name: two-groups
    Count: 2
    FromGroups: [release-approvers, sre]
    DistinctGroups: true
  - Name: release-manager
    FromUserIDs: [$CAROL_ID]
    MaxAge: 1h
YAML
expect_ok cub changeworkflow create --space platform flow --filename "$E2E_TMP/flow.yaml"
expect_ok cub space create acme-base
deployment v1 2 >"$E2E_TMP/v1.yaml"
expect_ok cub unit create --space acme-base deployment "$E2E_TMP/v1.yaml"
expect_ok cub variant create acme-dev acme-base --stage Development
expect_ok cub variant create acme-staging acme-base --stage Staging
expect_ok cub variant create acme-prod acme-base --stage Production
expect_ok cub space update acme-prod --release-target platform/local
for s in acme-base acme-dev acme-staging acme-prod; do
  expect_ok cub space grant "$s" editor --user deployer
done
for s in acme-staging acme-prod; do
  expect_ok cub space grant "$s" approver --group release-approvers
  expect_ok cub space grant "$s" approver --group sre
  expect_ok cub space grant "$s" approver --user deployer
  expect_ok cub space grant "$s" approver --user ci-bot
  expect_ok cub space grant "$s" viewer --user dave
done

section "the change goes to staging; prod waits for approvals there"
expect_ok as "$DEPLOYER" cub function set --space acme-base --unit deployment \
  -- set-image-reference-by-uri ghcr.io/acme/acme ":v2"
expect_ok cub changeorder create --space acme-base v2 --description v2 \
  --change-workflow platform/flow
expect_ok as "$DEPLOYER" cub variant promote --change-order acme-base/v2
expect_ok as "$DEPLOYER" cub variant promote --change-order acme-base/v2
expect_fail 1 "Variant 'acme-staging': requires two-approvers: 2 Approval attestation(s) from eligible attesters who did not write the change; deployment revision 2 has 0 of 2" \
  as "$DEPLOYER" cub variant promote --change-order acme-base/v2
expect_ok cub changeorder get --space acme-base v2 -o json
expect_eq Entry "$(jget PendingRequirements.0.Kind)"
expect_contains "$(jget NeedsApprovalFrom)" "$ALICE_ID"
expect_ok cub changeorder list --where "NeedsApprovalFrom ? '$ALICE_ID'" -o json
expect_eq 1 "$(jget len)"
expect_ok cub changeorder get --space acme-base v2
expect_contains "$OUT" "Waiting For"

section "who may vote"
expect_fail 1 "needs the approver or admin role" as "$DAVE" cub variant approve acme-staging \
  --change-order acme-base/v2
expect_fail 1 "service account and cannot vote" as "$CI" cub variant approve acme-staging \
  --change-order acme-base/v2
expect_fail 1 "server administrator and cannot vote" cub variant approve acme-staging \
  --change-order acme-base/v2
# The promoter wrote the change in staging: their approval does not count.
expect_ok as "$DEPLOYER" cub variant approve acme-staging --change-order acme-base/v2
expect_fail 1 "deployment revision 2 has 0 of 2" as "$DEPLOYER" cub variant promote \
  --change-order acme-base/v2 --dry-run
expect_ok as "$ALICE" cub variant approve --change-order acme-base/v2 --stage staging --dry-run
expect_contains "$OUT" "Would record Approval Pass in acme-staging of deployment@2"
expect_fail 1 "has 0 of 2" as "$DEPLOYER" cub variant promote --change-order acme-base/v2 --dry-run

section "expiry, rejection, the latest vote, distinct groups"
expect_ok as "$ALICE" cub variant approve --change-order acme-base/v2 --stage staging \
  --expires-in 1s --note "quick look"
sleep 2
expect_fail 1 "deployment revision 2 has 0 of 2" as "$DEPLOYER" cub variant promote \
  --change-order acme-base/v2 --dry-run
expect_ok as "$ALICE" cub variant approve --change-order acme-base/v2 --stage staging \
  --claim ticket=CHG-1
expect_fail 1 "has 1 of 2" as "$DEPLOYER" cub variant promote --change-order acme-base/v2 --dry-run
expect_ok as "$BOB" cub variant approve acme-staging --change-order acme-base/v2 --reject \
  --note "breaks the EU ingress"
expect_fail 1 "is rejected by bob" as "$DEPLOYER" cub variant promote --change-order acme-base/v2 \
  --dry-run
expect_ok as "$BOB" cub variant approve acme-staging --change-order acme-base/v2
# Two approvals, but both from release-approvers: two-groups still waits for sre.
expect_fail 1 "requires two-groups" as "$DEPLOYER" cub variant promote --change-order acme-base/v2 \
  --dry-run
expect_not_contains "$ERR" "requires two-approvers"
expect_ok as "$CAROL" cub variant approve acme-staging --change-order acme-base/v2
expect_ok as "$DEPLOYER" cub variant promote --change-order acme-base/v2 --dry-run
# A group counts while the voter is still in it (a provider's groups are taken at every login):
# carol leaves sre, and her vote stops counting for two-groups until she is back.
expect_ok db -c "DELETE FROM user_groups WHERE user_id = '$CAROL_ID' AND group_name = 'sre'"
expect_fail 1 "requires two-groups" as "$DEPLOYER" cub variant promote \
  --change-order acme-base/v2 --dry-run
expect_ok db -c "INSERT INTO user_groups (user_id, group_name) VALUES ('$CAROL_ID', 'sre')"
expect_ok as "$DEPLOYER" cub variant promote --change-order acme-base/v2 --dry-run

section "an approval covers content, not a revision number"
deployment v2 3 >"$E2E_TMP/r3.yaml"
expect_ok cub unit data --space acme-staging deployment
printf '%s\n' "$OUT" >"$E2E_TMP/r2.yaml"
expect_ok as "$DEPLOYER" cub unit update --space acme-staging deployment "$E2E_TMP/r3.yaml"
expect_ok as "$DEPLOYER" cub unit update --space acme-staging deployment "$E2E_TMP/r2.yaml"
expect_ok as "$DEPLOYER" cub unit tag ChangeOrder:acme-base/v2 --move --space acme-staging \
  --unit deployment
expect_ok as "$DEPLOYER" cub variant promote --change-order acme-base/v2 --dry-run
expect_ok as "$DEPLOYER" cub unit update --space acme-staging deployment "$E2E_TMP/r3.yaml"
expect_ok as "$DEPLOYER" cub unit tag ChangeOrder:acme-base/v2 --move --space acme-staging \
  --unit deployment
expect_fail 1 "deployment revision 5 has 0 of 2" as "$DEPLOYER" cub variant promote \
  --change-order acme-base/v2 --dry-run
expect_ok as "$DEPLOYER" cub unit tag ChangeOrder:acme-base/v2 --move --revision 4 \
  --space acme-staging --unit deployment
expect_ok as "$DEPLOYER" cub variant promote --change-order acme-base/v2
expect_contains "$OUT" "into stage prod"
expect_ok cub changeorder list --where "NeedsApprovalFrom ? '$ALICE_ID'" -o json
expect_eq 0 "$(jget len)"

section "a release prerequisite, and the votes sealed onto the Release"
expect_fail 1 "unable to publish a release of change order 'v2' in stage 'prod', Variant 'acme-prod': requires release-manager" \
  as "$DEPLOYER" cub release publish acme-prod --revision ChangeOrder:acme-base/v2
expect_ok as "$ALICE" cub variant approve acme-prod --change-order acme-base/v2
expect_fail 1 "requires release-manager" as "$DEPLOYER" cub release publish acme-prod \
  --revision ChangeOrder:acme-base/v2
expect_ok as "$CAROL" cub variant approve acme-prod --change-order acme-base/v2
expect_ok as "$DEPLOYER" cub release publish acme-prod --revision ChangeOrder:acme-base/v2
expect_ok cub release get --space acme-prod --release 1 -o json
SEALED=$(jget SealedApprovals)
expect_ne "" "$SEALED" "sealed approvals"
expect_contains "$(python3 -c 'import base64,json,sys; print(base64.b64decode(json.loads(sys.argv[1])["payload"]).decode())' "$SEALED")" '"User":"carol"'
expect_ok cub release verify --space acme-prod --release 1
expect_contains "$OUT" "sealed approvals verify"
# A vote cast after sealing changes nothing on that Release.
expect_ok as "$BOB" cub variant approve acme-prod --change-order acme-base/v2 --reject
expect_ok cub release get --space acme-prod --release 1 -o json
expect_eq "$SEALED" "$(jget SealedApprovals)"

section "revocation, immutability, and attestations that outlive their Space"
expect_ok cub attestation list --space acme-staging --where "User = 'bob' AND Result = 'Pass'" -o json
BOB_VOTE=$(jget 0.AttestationID)
expect_fail 1 "only bob, who recorded it" as "$ALICE" cub attestation revoke "$BOB_VOTE" --note no
expect_ok as "$BOB" cub attestation revoke "$BOB_VOTE" --note "looked again"
expect_ok cub attestation get "$BOB_VOTE" -o json
expect_ne "" "$(jget RevokedByID)"
expect_fail 1 "already revoked" as "$BOB" cub attestation revoke "$BOB_VOTE" --note again
run db -c "UPDATE attestations SET note = 'x'"
expect_ne 0 "$RC" "attestations refuse UPDATE"
expect_contains "$ERR" "attestations is append-only: UPDATE refused"
run db -c "DELETE FROM attestations"
expect_ne 0 "$RC" "attestations refuse DELETE"
expect_contains "$ERR" "attestations is append-only: DELETE refused"
expect_ok as "$CI" cub attestation create --space acme-prod --type ChangeRecord \
  --change-order acme-base/v2 --claim servicenow.com/change=CHG0012345
expect_ok cub space create scratch
expect_ok cub unit create --space scratch web "$E2E_TMP/v1.yaml"
expect_ok cub space grant scratch approver --user alice
expect_ok as "$ALICE" cub variant approve scratch --all
expect_ok cub space delete scratch
expect_ok cub attestation list --where "SpaceSlug = 'scratch'" -o json
expect_eq 1 "$(jget len)"
expect_eq alice "$(jget 0.User)"

e2e_finish
