#!/usr/bin/env bash
# Functions through the real binaries: list/explain, get over one Unit and a where selection,
# set writing revisions (and --dry-run writing none), vet failing with exit 1, bad arguments.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
e2e_init function
e2e_start_cubd main
export CUB_SERVER=$E2E_SERVER CUB_TOKEN=$ADMIN_TOKEN

expect_ok cub space create app
cat >"$E2E_TMP/web.yaml" <<'YAML'
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 2
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
        - name: web
          image: ghcr.io/acme/web:v451
---
apiVersion: v1
kind: Service
metadata:
  name: web
spec:
  ports:
    - port: 80
YAML
expect_ok cub unit create --space app web "$E2E_TMP/web.yaml" --label tier=frontend
sed 's/name: web$/name: api/; s/acme\/web/acme\/api/' "$E2E_TMP/web.yaml" >"$E2E_TMP/api.yaml"
expect_ok cub unit create --space app api "$E2E_TMP/api.yaml" --label tier=backend

section "list and explain"
expect_ok cub function list
expect_contains "$OUT" "set-image-reference-by-uri"
expect_contains "$OUT" "vet-schemas"
expect_ok cub function explain set-replicas
expect_contains "$OUT" "set-replicas REPLICAS"

section "get"
expect_ok cub function get --space app --unit web -- get-replicas
expect_contains "$OUT" "Deployment/web"
expect_ok cub function get --space app -o json -- get-container-image '*'
expect_eq 2 "$(jget Units.len)"

section "set, dry run first"
expect_ok cub function set --space app --where "Labels.tier = 'frontend'" --dry-run \
  -- set-image-reference-by-uri ghcr.io/acme/web :v452
expect_contains "$OUT" "ghcr.io/acme/web:v452"
expect_contains "$OUT" "Dry run"
expect_ok cub unit get --space app web -o json
expect_eq 1 "$(jget Unit.HeadRevisionNum)" "dry run wrote nothing"
expect_ok cub function set --space app --where "Labels.tier = 'frontend'" \
  --change-desc "Release v452" -- set-image-reference-by-uri ghcr.io/acme/web :v452
expect_contains "$OUT" "Wrote web (revision 2)"
expect_ok cub revision get --space app --unit web -o json
expect_eq "Release v452" "$(jget Description)"
expect_ok cub unit data --space app web
expect_contains "$OUT" "image: ghcr.io/acme/web:v452"
expect_ok cub unit get --space app api -o json
expect_eq 1 "$(jget Unit.HeadRevisionNum)" "the other unit is untouched"
expect_ok cub function set --space app --unit web -- set-image-reference-by-uri ghcr.io/acme/web :v452
expect_contains "$OUT" "Nothing to change"

section "refusals"
expect_fail 1 "usage: set-replicas REPLICAS" cub function set --space app --unit web -- set-replicas three
expect_fail 1 "is a get function" cub function set --space app --unit web -- get-replicas
expect_fail 1 "not found" cub function get --space app --unit nope -- get-replicas
expect_fail 1 "where:" cub function get --space app --where "Nope = 1" -- get-replicas

section "vet"
expect_ok cub function vet --space app -- vet-format
printf 'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: bad\nspec:\n  replicas: two\n' \
  >"$E2E_TMP/bad.yaml"
expect_ok cub unit create --space app bad "$E2E_TMP/bad.yaml"
expect_fail 1 "failed on 1 unit" cub function vet --space app -- vet-schemas
expect_contains "$OUT" "spec.replicas"
expect_ok cub function vet --space app --unit web -- vet-cel "r.kind != 'Deployment' || r.spec.replicas >= 1"

e2e_finish
