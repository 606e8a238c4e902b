#!/usr/bin/env bash
# Invoke ChangeOrders through the real binaries: an Invocation fixed at creation, run in each
# Stage's Spaces (which are not variants of one another) on the Units its selection picks; a
# Unit added mid-rollout reads as not having the change until promoted again; demote.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
e2e_init invoke
e2e_start_cubd main
export CUB_SERVER=$E2E_SERVER CUB_TOKEN=$ADMIN_TOKEN

deployment() {  # deployment NAME TAG
  cat <<YAML
apiVersion: apps/v1
kind: Deployment
metadata:
  name: $1
spec:
  template:
    spec:
      containers:
        - name: $1
          image: ghcr.io/acme/acme:$2
YAML
}

section "setup: three independent Spaces, an Invocation, a three-stage workflow"
expect_ok cub space create platform
expect_ok cub invocation create --space platform set-image Kubernetes/YAML \
  --parameter tag:string:true -- set-image-reference-by-uri \
  --repository-uri=ghcr.io/acme/acme '--image-reference=template:{{ .Params.tag }}'
expect_ok cub changeworkflow create --space platform flow --stage Development --stage Staging \
  --stage Production --prerequisites Validated
cat >"$E2E_TMP/gated.yaml" <<'YAML'
Stages:
  - Name: dev
    WhereSpace: "Labels.Stage = 'Development'"
    Prerequisites: [Validated]
YAML
expect_ok cub changeworkflow create --space platform gated --filename "$E2E_TMP/gated.yaml"
for st in Development Staging Production; do
  s="acme-${st,,}"
  expect_ok cub space create "$s" --label "Stage=$st" --label app=acme
  deployment web v452 >"$E2E_TMP/web.yaml"
  expect_ok cub unit create --space "$s" web "$E2E_TMP/web.yaml" --label tier=frontend
  deployment api v452 >"$E2E_TMP/api.yaml"
  expect_ok cub unit create --space "$s" api "$E2E_TMP/api.yaml" --label tier=backend
done
expect_ok cub space create acme-base

section "creation fixes the Invocation and the selection"
expect_fail 1 "gates its first stage" cub changeorder create --space acme-base bad \
  --description x --update-type Invoke --invocation platform/set-image --param tag=:v453 \
  --where-space-field "Labels.app = 'acme'" --change-workflow platform/gated
expect_fail 1 "needs --invocation" cub changeorder create --space acme-base bad --description x \
  --update-type Invoke
expect_fail 1 "needs parameter 'tag'" cub changeorder create --space acme-base bad --description x \
  --update-type Invoke --invocation platform/set-image --where-space-field "Labels.app = 'acme'"
expect_fail 1 "unknown field 'Lables'" cub changeorder create --space acme-base bad \
  --description x --update-type Invoke --invocation platform/set-image --param tag=:v453 \
  --where-unit "Lables.tier = 'frontend'" --where-space-field "Labels.app = 'acme'"
expect_ok cub changeorder create --space acme-base acme-v453 --description "acme v453" \
  --update-type Invoke --invocation platform/set-image --param tag=:v453 \
  --where-unit "Labels.tier = 'frontend'" --where-space-field "Labels.app = 'acme'" \
  --change-workflow platform/flow
expect_ok cub changeorder get --space acme-base acme-v453 -o json
expect_eq 3 "$(jget InScopeSpaceIDs.len)"
expect_eq New "$(jget State)"
expect_eq set-image-reference-by-uri "$(jget FunctionName)"
expect_basic_as_full acme-base
expect_eq New "$OUT" "State in a Basic list"
expect_fail 1 "is of type Invoke" cub unit update --space acme-development web --upgrade \
  --change-order acme-base/acme-v453

section "stage by stage; only the selected Units change"
expect_ok cub variant promote --change-order acme-base/acme-v453 -o json
expect_eq Invoked "$(jget Spaces.0.Units.1.Action)"
expect_ok cub unit data --space acme-development web
expect_contains "$OUT" "acme:v453"
expect_ok cub unit data --space acme-development api
expect_contains "$OUT" "acme:v452"
expect_ok cub variant promote --change-order acme-base/acme-v453
expect_contains "$OUT" "into stage Staging"
expect_ok cub unit data --space acme-staging web
expect_contains "$OUT" "acme:v453"

section "a Unit added mid-rollout has not had it until promoted again"
deployment web2 v452 >"$E2E_TMP/web2.yaml"
expect_ok cub unit create --space acme-development web2 "$E2E_TMP/web2.yaml" --label tier=frontend
expect_ok cub changeorder get --space acme-base acme-v453 -o json
expect_eq 1 "$(jget ResolvedSpaceIDs.len)"
# The selection is asked again at every read: a Basic list too (an Invoke ChangeOrder is read
# in full there).
expect_basic_as_full acme-base
expect_eq InProgress "$OUT" "State in a Basic list, a selected Unit not yet invoked"
expect_fail 1 "Variant 'acme-development' has not taken change order 'acme-v453'" \
  cub variant promote --change-order acme-base/acme-v453 --target-stage Production --dry-run
expect_ok cub variant promote acme-development --change-order acme-base/acme-v453 -o json
expect_eq 1 "$(jget RevisionsWritten)"
expect_ok cub unit data --space acme-development web2
expect_contains "$OUT" "acme:v453"
expect_ok cub variant promote --change-order acme-base/acme-v453
expect_contains "$OUT" "into stage Production"
expect_ok cub changeorder get --space acme-base acme-v453 -o json
expect_eq Resolved "$(jget State)"
expect_eq 3 "$(jget ResolvedSpaceIDs.len)"
expect_basic_as_full acme-base
expect_eq Resolved "$OUT" "State in a Basic list"

section "demote takes it back out"
expect_ok cub changeorder update --space acme-base acme-v453 --aborted-reason "bad build"
expect_ok cub variant demote acme-production --change-order acme-base/acme-v453
expect_ok cub unit data --space acme-production web
expect_contains "$OUT" "acme:v452"
expect_basic_as_full acme-base
expect_eq Aborted "$OUT" "State in a Basic list, one Space demoted"

section "selected Units added where it was not demoted: those Spaces have not taken it"
deployment web3 v452 >"$E2E_TMP/web3.yaml"
for s in acme-development acme-staging; do
  expect_ok cub unit create --space "$s" web3 "$E2E_TMP/web3.yaml" --label tier=frontend
done
expect_ok cub changeorder get --space acme-base acme-v453 -o json
expect_eq 1 "$(jget ResolvedSpaceIDs.len)"
expect_eq Restored "$(jget State)" "demoted wherever it still is"
# A Basic list asks the selection again too: an Invoke ChangeOrder is read in full there.
expect_basic_as_full acme-base
expect_eq Restored "$OUT" "State in a Basic list"

e2e_finish
