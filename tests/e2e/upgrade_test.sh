#!/usr/bin/env bash
# Upgrades through the real binaries: a base change merged into a variant that has edits of its
# own, replay and squash, protected paths and the Conflicts they record, explicit ranges, diff.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
e2e_init upgrade
e2e_start_cubd main
export CUB_SERVER=$E2E_SERVER CUB_TOKEN=$ADMIN_TOKEN

deployment() {  # deployment IMAGE-TAG REPLICAS [EXTRA-ENV]
  cat <<YAML
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: $2
  template:
    spec:
      containers:
        - name: web
          image: ghcr.io/acme/web:$1
          env:
            - name: LOG_LEVEL
              value: info
${3:-}
YAML
}

expect_ok cub space create base
deployment v1 2 >"$E2E_TMP/base1.yaml"
expect_ok cub unit create --space base web "$E2E_TMP/base1.yaml"
expect_ok cub variant create dev base --stage Development

section "the variant's own edit survives an upstream change"
# dev: its own replicas and its own env var, with a comment.
cat >"$E2E_TMP/dev2.yaml" <<'YAML'
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 5  # dev runs more
  template:
    spec:
      containers:
        - name: web
          image: ghcr.io/acme/web:v1
          env:
            - name: LOG_LEVEL
              value: info
            - name: DEV_ONLY
              value: "yes"
YAML
expect_ok cub unit update --space dev web "$E2E_TMP/dev2.yaml"
deployment v2 2 >"$E2E_TMP/base2.yaml"
expect_ok cub unit update --space base web "$E2E_TMP/base2.yaml" --change-desc "bump to v2"
expect_ok cub unit update --space dev web --upgrade
expect_contains "$OUT" "upgraded to revision 3"
expect_ok cub unit data --space dev web
expect_contains "$OUT" "ghcr.io/acme/web:v2"
expect_contains "$OUT" "replicas: 5"
expect_contains "$OUT" "# dev runs more"
expect_contains "$OUT" "DEV_ONLY"
expect_ok cub revision get --space dev --unit web -o json
expect_eq 2 "$(jget UpstreamRevisionNum)" "revision records the upstream revision"
expect_ok cub link list --space dev -o json
expect_eq 2 "$(jget 0.UpstreamRevisionNum)" "link cursor moved"
expect_ok cub unit update --space dev web --upgrade
expect_contains "$OUT" "up to date"

section "replay: one downstream revision per upstream revision"
deployment v3 2 >"$E2E_TMP/base3.yaml"
deployment v4 2 >"$E2E_TMP/base4.yaml"
expect_ok cub unit update --space base web "$E2E_TMP/base3.yaml"
expect_ok cub unit update --space base web "$E2E_TMP/base4.yaml"
expect_ok cub unit update --space dev web --upgrade -o json
expect_eq 2 "$(jget Revisions.len)" "two revisions replayed"
expect_eq 3 "$(jget Revisions.0.UpstreamRevisionNum)"
expect_eq 4 "$(jget Revisions.1.UpstreamRevisionNum)"

section "squash: one revision for the range"
expect_ok cub variant create qa base --stage QA
deployment v5 2 >"$E2E_TMP/base5.yaml"
deployment v6 2 >"$E2E_TMP/base6.yaml"
expect_ok cub unit update --space base web "$E2E_TMP/base5.yaml"
expect_ok cub unit update --space base web "$E2E_TMP/base6.yaml"
expect_ok cub unit update --space dev web --upgrade --squash -o json
expect_eq 1 "$(jget Revisions.len)" "squashed into one"
expect_eq 6 "$(jget Revisions.0.UpstreamRevisionNum)"

section "protected paths hold, and the withheld change is a Conflict"
expect_fail 1 "protected path" cub unit update --space dev web --protect 'spec..replicas'
expect_ok cub unit update --space dev web --protect spec.replicas
expect_ok cub unit get --space dev web -o json
expect_eq '["spec.replicas"]' "$(jget Unit.ProtectedPaths)"
deployment v6 9 >"$E2E_TMP/base7.yaml"
expect_ok cub unit update --space base web "$E2E_TMP/base7.yaml"
expect_ok cub unit update --space dev web --upgrade
expect_contains "$OUT" "withheld"
expect_ok cub unit data --space dev web
expect_contains "$OUT" "replicas: 5"
expect_ok cub unit conflicts --space dev web -o json
expect_eq ProtectedPath "$(jget 0.Reason)"
expect_eq 9 "$(jget 0.UpstreamValue)"
expect_contains "$(jget 0.Path)" "spec.replicas"
expect_ok cub unit conflicts --space dev web
expect_contains "$OUT" "ProtectedPath"
expect_ok cub unit update --space dev web --unprotect spec.replicas
expect_ok cub unit get --space dev web -o json
expect_eq "[]" "$(jget Unit.ProtectedPaths)" "unprotected"

section "explicit range from another source"
expect_ok cub unit get --space qa web -o json
qa_head=$(jget Unit.HeadRevisionNum)
expect_ok cub unit update --space qa web --merge-source base/web --merge-base 1 --merge-end 2 --squash
expect_ok cub unit data --space qa web
expect_contains "$OUT" "ghcr.io/acme/web:v2"
expect_fail 1 "not valid" cub unit update --space qa web --merge-source base/web --merge-base 1 --merge-end 99
expect_fail 2 "" cub unit update --space qa web "$E2E_TMP/base1.yaml" --upgrade

section "diff"
expect_ok cub unit diff --space base web --from 1 --to 2 -o json
expect_eq Replace "$(jget 0.Kind)"
expect_contains "$(jget 0.Path)" "image"
expect_eq '"ghcr.io/acme/web:v1"' "$(jget 0.OldValue)"
expect_ok cub unit diff --space base web --from 1 --to 2 -o mutations
expect_contains "$OUT" "Replace"

section "a unit with no upstream"
expect_fail 1 "no UpgradeUnit or MergeUnits link" cub unit update --space base web --upgrade

e2e_finish
