#!/usr/bin/env bash
# Undoing a rollout through the real binaries: abort, demote with a dry run that names what a
# restore drops, a rerun that finds nothing left to do, States Restored and RestoreReleased;
# and, within one Space, reverting a range of revisions and restoring to before a ChangeSet.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
e2e_init demote
e2e_start_cubd main
export CUB_SERVER=$E2E_SERVER CUB_TOKEN=$ADMIN_TOKEN

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
state() {
  local json
  json=$(cub changeorder get --space acme-base v2 -o json) && jget State "$json"
}

section "a change released in two stages"
expect_ok cub space create platform
expect_ok cub target create --space platform local --provider Directory --param "path=$E2E_TMP/deploy"
expect_ok cub changeworkflow create --space platform flow --stage Development --stage Production
expect_ok cub space create acme-base
deployment v1 2 >"$E2E_TMP/v1.yaml"
expect_ok cub unit create --space acme-base deployment "$E2E_TMP/v1.yaml"
expect_ok cub variant create acme-dev acme-base --stage Development
expect_ok cub variant create acme-prod acme-base --stage Production
expect_ok cub space create other
expect_ok cub unit create --space other deployment "$E2E_TMP/v1.yaml"
for s in acme-dev acme-prod; do expect_ok cub space update "$s" --release-target platform/local; done
expect_ok cub function set --space acme-base --unit deployment \
  -- set-image-reference-by-uri ghcr.io/acme/acme ":v2"
expect_ok cub changeorder create --space acme-base v2 --description v2 --change-workflow platform/flow
for s in acme-dev acme-prod; do
  expect_ok cub variant promote --change-order acme-base/v2
  expect_ok cub release publish "$s" --revision ChangeOrder:acme-base/v2
done
# prod moves on after the change.
expect_ok cub function set --space acme-prod --unit deployment --change-desc "scale for the sale" \
  -- set-replicas 4
expect_eq Released "$(state)"
# A Basic list (the dashboard's) derives State without the Space ID lists: the same answer.
expect_basic_as_full acme-base
expect_eq Released "$OUT" "State in a Basic list"

section "demote needs the abort; an aborted change order is not promoted"
expect_fail 1 "has not been aborted" cub variant demote acme-prod --change-order acme-base/v2
expect_ok cub changeorder update --space acme-base v2 --aborted-reason "superseded by v3"
expect_eq Aborted "$(state)"
expect_basic_as_full acme-base
expect_fail 1 "was aborted" cub variant promote acme-prod --change-order acme-base/v2
expect_fail 1 "never reached space 'other'" cub variant demote other --change-order acme-base/v2

section "demote: a dry run names what would be dropped, then one step per Unit"
expect_ok cub variant demote acme-prod --change-order acme-base/v2 --dry-run -o json
expect_eq WouldDemote "$(jget Spaces.0.Status)"
expect_contains "$(jget Spaces.0.Units.0.Dropped)" "scale for the sale"
expect_ok cub unit data --space acme-prod deployment
expect_contains "$OUT" "acme:v2"
expect_ok cub variant demote acme-prod --change-order acme-base/v2 --change-desc "back out v2"
expect_contains "$OUT" "acme-prod: Demoted"
expect_ok cub unit data --space acme-prod deployment
expect_contains "$OUT" "acme:v1"
expect_contains "$OUT" "replicas: 2"
expect_ok cub revision list --space acme-prod --unit deployment -o json
expect_eq 4 "$(jget len)"
expect_eq 1 "$(jget 3.RestoredFromNum)"
expect_eq "back out v2" "$(jget 3.Description)"
expect_eq Aborted "$(state)" "dev still has the change"
expect_basic_as_full acme-base
expect_eq Aborted "$OUT" "State in a Basic list, one Space demoted"
expect_fail 1 "cannot be cleared" cub changeorder update --space acme-base v2 --aborted-reason ""

section "a rerun does nothing; a Unit edited forward since keeps that work"
expect_ok cub function set --space acme-prod --unit deployment -- set-replicas 6
expect_ok cub variant demote acme-prod --change-order acme-base/v2
expect_contains "$OUT" "acme-prod: AlreadyDemoted"
expect_ok cub unit data --space acme-prod deployment
expect_contains "$OUT" "replicas: 6"
expect_ok cub variant demote acme-dev --change-order acme-base/v2
expect_eq Restored "$(state)"
expect_basic_as_full acme-base
expect_eq Restored "$OUT" "State in a Basic list"
expect_ok cub changeorder get --space acme-base v2 -o json
expect_eq 2 "$(jget RestoredSpaceIDs.len)"

section "RestoreReleased once every Space that released the change released the restore"
expect_ok cub release publish acme-dev
expect_eq Restored "$(state)"
expect_basic_as_full acme-base
expect_eq Restored "$OUT" "State in a Basic list, one Space re-released"
expect_ok cub release publish acme-prod
expect_eq RestoreReleased "$(state)"
expect_basic_as_full acme-base
expect_eq RestoreReleased "$OUT" "State in a Basic list"
expect_basic_as_full "" "State = 'RestoreReleased'"
expect_eq RestoreReleased "$OUT" "a Basic list of every Space, filtered by State"
expect_contains "$(cat "$E2E_TMP/deploy/acme-prod/deployment.yaml")" "acme:v1"

section "within one Space: revert a range, restore to before a ChangeSet"
expect_ok cub function set --space other --unit deployment -- set-image-reference-by-uri \
  ghcr.io/acme/acme ":v7"
expect_ok cub function set --space other --unit deployment -- set-replicas 3
expect_ok cub unit update --space other deployment --revert 2
expect_ok cub unit data --space other deployment
expect_contains "$OUT" "acme:v1"
expect_contains "$OUT" "replicas: 3"
expect_fail 1 "is not a range of revisions" cub unit update --space other deployment --revert 5..9
expect_ok cub changeset create --space other cs
deployment v8 9 >"$E2E_TMP/v8.yaml"
expect_ok cub unit update --space other deployment "$E2E_TMP/v8.yaml" --changeset other/cs
expect_ok cub changeset close --space other cs
expect_ok cub unit update --space other deployment --restore Before:ChangeSet:cs
expect_ok cub unit data --space other deployment
expect_contains "$OUT" "acme:v1"
expect_contains "$OUT" "replicas: 3"

e2e_finish
