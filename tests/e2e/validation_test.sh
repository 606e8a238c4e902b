#!/usr/bin/env bash
# Validation on write through the real binaries: a Space's validating Invocations vet every
# new revision, and what they find is recorded on it (the write itself is not refused).
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
e2e_init validation
e2e_start_cubd main
export CUB_SERVER=$E2E_SERVER CUB_TOKEN=$ADMIN_TOKEN

expect_ok cub space create platform
expect_ok cub space create app
expect_ok cub invocation create --space platform schemas Kubernetes/YAML -- vet-schemas
expect_ok cub invocation create --space platform min-replicas Kubernetes/YAML \
  -- vet-cel "r.kind != 'Deployment' || r.spec.replicas >= 2"
expect_ok cub invocation create --space platform scale Kubernetes/YAML \
  --parameter n:int:true -- set-replicas 'template:{{ .Params.n }}'

section "configuring validators"
expect_fail 1 "not a vet function" cub space update app --validator platform/scale
expect_fail 1 "SPACE/INVOCATION" cub space update app --validator schemas
expect_fail 1 "not found" cub space update app --validator platform/nope
expect_ok cub space update app --validator platform/schemas --validator platform/min-replicas
expect_ok cub space get app -o json
expect_eq '["platform/min-replicas","platform/schemas"]' "$(jget ValidatingInvocations)"

section "every write is vetted"
deployment() {  # deployment REPLICAS: a Deployment vet-schemas accepts
  printf 'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: %s\n  selector:\n    matchLabels: {app: web}\n  template:\n    metadata:\n      labels: {app: web}\n    spec:\n      containers:\n        - name: web\n          image: ghcr.io/acme/web:v1\n' "$1"
}
deployment 3 >"$E2E_TMP/good.yaml"
expect_ok cub unit create --space app web "$E2E_TMP/good.yaml"
expect_ok cub revision get --space app --unit web -o json
expect_eq '[]' "$(jget ValidationErrors)" "a good revision has no errors"
deployment 1 >"$E2E_TMP/one.yaml"
expect_ok cub unit update --space app web "$E2E_TMP/one.yaml"
expect_ok cub revision get --space app --unit web -o json
expect_contains "$(jget ValidationErrors)" "platform/min-replicas"
expect_ok cub function set --space app --unit web -- set-replicas 4
expect_ok cub revision get --space app --unit web -o json
expect_eq '[]' "$(jget ValidationErrors)" "fixed by a function"
expect_ok cub unit update --space app web --restore 2
expect_ok cub revision get --space app --unit web -o json
expect_contains "$(jget ValidationErrors)" "min-replicas" "a restore is vetted too"

section "removing a validator"
expect_ok cub space update app --remove-validator platform/min-replicas
expect_ok cub unit update --space app web "$E2E_TMP/good.yaml"
expect_ok cub unit update --space app web "$E2E_TMP/one.yaml"
expect_ok cub revision get --space app --unit web -o json
expect_eq '[]' "$(jget ValidationErrors)"

section "a promotion vets each revision it writes"
expect_ok cub space create vbase
deployment 3 >"$E2E_TMP/three.yaml"
expect_ok cub unit create --space vbase web "$E2E_TMP/three.yaml"
expect_ok cub unit create --space vbase api "$E2E_TMP/three.yaml"
expect_ok cub variant create vprod vbase --stage Production
expect_ok cub space update vprod --validator platform/min-replicas --validator platform/schemas
expect_ok cub function set --space vbase --unit web -- set-replicas 1
expect_ok cub function set --space vbase --unit api -- set-replicas 5
expect_ok cub changeorder create --space vbase replicas --description "replicas"
expect_ok cub variant promote vprod --change-order vbase/replicas
expect_ok cub revision get --space vprod --unit web -o json
expect_contains "$(jget ValidationErrors)" "platform/min-replicas" "the promoted revision is vetted"
expect_ok cub revision get --space vprod --unit api -o json
expect_eq '[]' "$(jget ValidationErrors)" "each Unit by its own data"

e2e_finish
