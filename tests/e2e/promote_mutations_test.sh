#!/usr/bin/env bash
# Promoting into a Unit whose data is empty: its values (`cub variant promote -o mutations`)
# are reported as added, and a variant that emptied its Unit is merged into; neither fails the
# Space with an empty error (an unset StatusOr once stood for "no documents").
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
e2e_init promote_mutations
e2e_start_cubd main
export CUB_SERVER=$E2E_SERVER CUB_TOKEN=$ADMIN_TOKEN

cat >"$E2E_TMP/web.yaml" <<'YAML'
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 2
YAML

section "a Unit created empty, then given data upstream"
expect_ok cub space create base
expect_ok cub unit create --space base web
expect_ok cub variant create dev base --stage Development
expect_ok cub unit update --space base web "$E2E_TMP/web.yaml"
expect_ok cub changeorder create --space base fill --description "web gets its data"
expect_ok cub variant promote dev --change-order base/fill --dry-run -o mutations
expect_contains "$OUT" "Space dev: WouldPromote"
expect_contains "$OUT" "Unit web: Upgraded"
# The whole document is added.
expect_contains "$OUT" 'apps/v1/Deployment//web:   (none) -> {"apiVersion":"apps/v1"'
expect_contains "$OUT" '"replicas":2}'

section "a variant that emptied its Unit, merged into"
expect_ok cub space create base2
expect_ok cub unit create --space base2 web "$E2E_TMP/web.yaml"
expect_ok cub variant create dev2 base2 --stage Development
: >"$E2E_TMP/empty.yaml"
expect_ok cub unit update --space dev2 web "$E2E_TMP/empty.yaml"
expect_ok cub function set --space base2 --unit web -- set-replicas 3
expect_ok cub changeorder create --space base2 scale --description "3 replicas"
# Its empty head is no documents to merge into, not a head that "does not parse".
expect_ok cub variant promote dev2 --change-order base2/scale --dry-run -o json
expect_eq WouldPromote "$(jget Spaces.0.Status)"
expect_eq Upgraded "$(jget Spaces.0.Units.0.Action)"
expect_eq "" "$(jget Spaces.0.Units.0.Error)"

e2e_finish
