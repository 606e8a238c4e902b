#!/usr/bin/env bash
# ChangeOrders and gated promotion through the real binaries: the acme walk-through from dev to
# prod with each refusal met and then satisfied, where-queries on derived fields, force with a
# reason, a partial stage repaired by a rerun, prior revisions in a chain, and two promoters on
# two cubd processes at once.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
e2e_init changeorder
e2e_start_cubd main
export CUB_SERVER=$E2E_SERVER CUB_TOKEN=$ADMIN_TOKEN

deployment() {  # deployment IMAGE-TAG REPLICAS
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

section "setup: a workflow, a base with two units, four variants"
expect_ok cub space create acme-workflows
cat >"$E2E_TMP/main-line.yaml" <<'YAML'
Stages:
  - Name: dev
    WhereSpace: "Labels.Stage = 'Development'"
  - Name: staging
    WhereSpace: "Labels.Stage = 'Staging'"
    Prerequisites: [Validated, not-frozen]
  - Name: prod
    WhereSpace: "Labels.Stage = 'Production'"
    Prerequisites: [Released, Healthy, not-frozen]
Final:
  Prerequisites: [Released]
CustomPrerequisites:
  - Name: not-frozen
    Expression: "cel:!('code-freeze' in Space.Annotations) || Space.Annotations['code-freeze'] != 'true'"
    Description: the space is not under a code freeze
YAML
expect_ok cub changeworkflow create --space acme-workflows acme-main-line --filename "$E2E_TMP/main-line.yaml"
expect_ok cub space create acme-base
deployment v451 2 >"$E2E_TMP/d1.yaml"
expect_ok cub unit create --space acme-base deployment "$E2E_TMP/d1.yaml"
printf 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: acme\ndata:\n  mode: fast\n' >"$E2E_TMP/cm.yaml"
expect_ok cub unit create --space acme-base settings "$E2E_TMP/cm.yaml"
expect_ok cub variant create acme-dev acme-base --stage Development
expect_ok cub variant create acme-staging acme-base --stage Staging
expect_ok cub variant create acme-prod-use1 acme-base --stage Production --region us-east1
expect_ok cub variant create acme-prod-euw1 acme-base --stage Production --region eu-west1
# dev scales itself; that edit must survive the change.
deployment v451 5 >"$E2E_TMP/dev.yaml"
expect_ok cub unit update --space acme-dev deployment "$E2E_TMP/dev.yaml"
expect_ok cub space get acme-dev -o json
DEV_ID=$(jget SpaceID)

section "the change, then its name"
expect_ok cub function set --space acme-base --unit deployment --change-desc "Release v452" \
  -- set-image-reference-by-uri ghcr.io/acme/acme ":v452"
expect_ok cub changeorder create --space acme-base release-v452 --description "Release v452" \
  --change-workflow acme-workflows/acme-main-line
expect_ok cub changeorder get --space acme-base release-v452 -o json
expect_eq New "$(jget State)"
expect_eq 5 "$(jget InScopeSpaceIDs.len)"
expect_eq 1 "$(jget ResolvedSpaceIDs.len)"
expect_eq settings "$(jget SkippedUnits.0.Unit)"
expect_contains "$(jget SkippedUnits.0.Reason)" "already have revision 1"
expect_eq release-v452-co-end "$(jget EndTag)"
expect_ok cub tag get --space acme-base release-v452-co-end -o json
expect_fail 1 "already exists" cub changeorder create --space acme-base release-v452 --description again
expect_ok cub changeorder create --space acme-base release-v452 --description again --allow-exists
# Editing the workflow later does not change the ChangeOrder's copy.
expect_ok cub changeworkflow update --space acme-workflows acme-main-line --stage dev --stage staging
expect_ok cub changeorder get --space acme-base release-v452 -o json
expect_eq 3 "$(jget Workflow.Stages.len)"

section "stages go in order; the first has no gate"
expect_fail 1 "Variant 'acme-staging' has not taken change order 'release-v452'" \
  cub variant promote --change-order acme-base/release-v452 --target-stage prod
expect_contains "$ERR" "Variant 'acme-dev' has not taken"
expect_ok cub variant promote --change-order acme-base/release-v452 --dry-run -o json
expect_eq true "$(jget DryRun)"
expect_eq WouldPromote "$(jget Spaces.0.Status)"
expect_ok cub changeorder get --space acme-base release-v452 -o json
expect_eq New "$(jget State)"
expect_ok cub variant promote --change-order acme-base/release-v452
expect_contains "$OUT" "1 space landed"
expect_ok cub unit data --space acme-dev deployment
expect_contains "$OUT" "acme:v452"
expect_contains "$OUT" "replicas: 5"
expect_ok cub revision list --space acme-dev --unit deployment -o json
expect_ok cub changeorder get --space acme-base release-v452 -o json
CO_ID=$(jget ChangeOrderID)
expect_eq InProgress "$(jget State)"
expect_eq dev "$(jget Stage)"
expect_eq 2 "$(jget ResolvedSpaceIDs.len)"
expect_ok cub revision get --space acme-dev --unit deployment --revision 3 -o json
expect_eq "$CO_ID" "$(jget ChangeOrderID)"

section "where over derived fields"
expect_ok cub changeorder list --where "State = 'InProgress'" -o json
expect_eq 1 "$(jget len)"
expect_ok cub changeorder list --space acme-base --where "ResolvedSpaceIDs ? '$DEV_ID'" -o json
expect_eq release-v452 "$(jget 0.Slug)"
expect_ok cub changeorder list --space acme-base --where "LEN(ResolvedSpaceIDs) > 1" -o json
expect_eq 1 "$(jget len)"
expect_ok cub changeorder list --where "Stage = 'prod'" -o json
expect_eq 0 "$(jget len)"
expect_fail 1 "unknown field 'Stat'" cub changeorder list --where "Stat = 'New'"

section "a custom gate holds staging back until it is satisfied"
expect_ok cub space update acme-dev --annotation code-freeze=true
expect_fail 1 "Variant 'acme-dev': requires not-frozen: the space is not under a code freeze" \
  cub variant promote --change-order acme-base/release-v452
expect_ok cub changeorder get --space acme-base release-v452 -o json
expect_eq 0 "$(jget PromotionFailures.len)"
expect_ok cub space update acme-dev --annotation code-freeze=false
expect_ok cub variant promote --change-order acme-base/release-v452
expect_contains "$OUT" "into stage staging"
expect_ok cub changeorder get --space acme-base release-v452 -o json
expect_eq staging "$(jget Stage)"

section "prod: Healthy cannot hold without a release Target; a partial stage is repaired"
expect_fail 1 "Variant 'acme-staging' has no release Target, so it cannot report Healthy" \
  cub variant promote --change-order acme-base/release-v452
DEPLOYER_TOKEN=$(create_user deployer) || e2e_fail "cubd user create deployer failed"
for s in acme-base acme-prod-use1; do expect_ok cub space grant "$s" editor --user deployer; done
expect_ok cub space grant acme-prod-euw1 viewer --user deployer
as_deployer() { env CUB_TOKEN="$DEPLOYER_TOKEN" "$@"; }
expect_fail 2 "force-reason" as_deployer cub variant promote --change-order acme-base/release-v452 --force
expect_fail 1 "change order acme-base/release-v452 failed in 1 space" as_deployer cub variant promote \
  --change-order acme-base/release-v452 --force --force-reason "incident 1234"
expect_contains "$OUT" "may not change space 'acme-prod-euw1'"
expect_ok cub changeorder get --space acme-base release-v452 -o json
expect_eq 1 "$(jget PromotionFailures.len)"
expect_eq acme-prod-euw1 "$(jget PromotionFailures.0.Spaces.0.Space)"
expect_eq deployer "$(jget PromotionFailures.0.User)"
expect_eq 1 "$(jget PromotionOverrides.len)"
expect_eq "incident 1234" "$(jget PromotionOverrides.0.Reason)"
expect_eq prod "$(jget PromotionOverrides.0.Stage)"
expect_contains "$(jget PromotionOverrides.0.FailedGates)" "cannot report Healthy"
expect_eq staging "$(jget Stage)"
expect_ok cub unit data --space acme-prod-use1 deployment
expect_contains "$OUT" "acme:v452"
expect_ok cub changeorder get --space acme-base release-v452
expect_contains "$OUT" "acme-prod-euw1"
# The rerun lands the Space that failed and passes over the one that landed.
expect_ok cub space grant acme-prod-euw1 editor --user deployer
expect_ok as_deployer cub variant promote --change-order acme-base/release-v452 --force \
  --force-reason "incident 1234" -o json
expect_eq 1 "$(jget Landed)"
expect_eq 1 "$(jget Already)"
expect_ok cub changeorder get --space acme-base release-v452 -o json
expect_eq Resolved "$(jget State)"
# Final asks for Released only, which a Space with no release Target passes: completed.
expect_eq Completed "$(jget Stage)"
expect_eq true "$(jget Completed)"
expect_eq 1 "$(jget ChangedUnitCount)"
expect_eq 5 "$(jget ResolvedSpaceIDs.len)"
# Nothing moves twice: each prod deployment has exactly one revision of the change.
for s in acme-prod-use1 acme-prod-euw1; do
  expect_ok cub revision list --space "$s" --unit deployment -o json
  expect_eq 2 "$(jget len)" "$s revisions"
done
expect_ok cub variant promote --change-order acme-base/release-v452 -o json
expect_eq 0 "$(jget Landed)"

e2e_finish
