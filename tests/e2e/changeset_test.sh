#!/usr/bin/env bash
# ChangeSets through the real binaries: opening one with a write, the lock it puts on its
# Units, leaving it, closing it, and the revision selectors it gives.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
e2e_init changeset
e2e_start_cubd main
export CUB_SERVER=$E2E_SERVER CUB_TOKEN=$ADMIN_TOKEN

expect_ok cub space create app
printf 'kind: ConfigMap\ndata:\n  v: "1"\n' >"$E2E_TMP/v1.yaml"
printf 'kind: ConfigMap\ndata:\n  v: "2"\n' >"$E2E_TMP/v2.yaml"
printf 'kind: ConfigMap\ndata:\n  v: "3"\n' >"$E2E_TMP/v3.yaml"
expect_ok cub unit create --space app a "$E2E_TMP/v1.yaml"
expect_ok cub unit create --space app b "$E2E_TMP/v1.yaml"

section "create"
expect_ok cub changeset create --space app release-1 --description "first release"
expect_ok cub tag list --space app
expect_contains "$OUT" "release-1-start"
expect_contains "$OUT" "release-1-end"
expect_fail 1 "already exists" cub changeset create --space app release-1

section "writes in the changeset"
expect_ok cub unit update --space app a "$E2E_TMP/v2.yaml" --changeset app/release-1
expect_ok cub unit get --space app a -o json
cs_id=$(jget Unit.ChangeSetID)
expect_ne "" "$cs_id" "unit a is in the changeset"
expect_ok cub revision get --space app --unit a --revision 2 -o json
expect_eq "$cs_id" "$(jget ChangeSetID)" "revision 2 carries the changeset"
expect_ok cub tag get --space app release-1-start -o json
expect_eq 1 "$(jget Marks.0.RevisionNum)" "start tag marks the state before"

section "a unit in an open changeset refuses other writes"
expect_fail 1 "open changeset 'app/release-1'" cub unit update --space app a "$E2E_TMP/v3.yaml"
expect_ok cub unit get --space app a -o json
expect_eq 2 "$(jget Unit.HeadRevisionNum)" "refused write changed nothing"
expect_ok cub unit update --space app b "$E2E_TMP/v2.yaml"   # b is not in it

expect_fail 1 "--changeset goes with a write" cub unit update --space app b --label x=y --changeset release-1

section "leave and rejoin"
expect_ok cub unit update --space app a --changeset -
expect_ok cub unit get --space app a -o json
expect_eq "" "$(jget Unit.ChangeSetID || true)" "left the changeset"
expect_ok cub unit update --space app a "$E2E_TMP/v3.yaml" --changeset release-1
expect_ok cub tag get --space app release-1-start -o json
expect_eq 1 "$(jget Marks.0.RevisionNum)" "rejoining keeps the first start mark"

section "close"
expect_ok cub changeset close --space app release-1
expect_contains "$OUT" "closed on 1 unit"
expect_ok cub changeset get --space app release-1 -o json
expect_eq Closed "$(jget State)"
expect_ok cub tag get --space app release-1-end -o json
expect_eq 3 "$(jget Marks.0.RevisionNum)" "end tag marks the head at close"
expect_fail 1 "already closed" cub changeset close --space app release-1
expect_fail 1 "is closed" cub unit update --space app a "$E2E_TMP/v1.yaml" --changeset release-1
expect_ok cub unit update --space app a "$E2E_TMP/v1.yaml"   # released by the close
expect_ok cub changeset list --space app --where "State = 'Closed'"
expect_contains "$OUT" "release-1"

section "revision selectors"
expect_ok cub revision get --space app --unit a --revision ChangeSet:release-1 -o json
expect_eq 3 "$(jget RevisionNum)"
expect_ok cub revision get --space app --unit a --revision Before:ChangeSet:app/release-1 -o json
expect_eq 1 "$(jget RevisionNum)"
expect_ok cub unit update --space app a --restore Before:ChangeSet:release-1
expect_ok cub unit data --space app a
expect_contains "$OUT" 'v: "1"'
expect_fail 1 "did not change unit 'b'" cub revision get --space app --unit b --revision ChangeSet:release-1

e2e_finish
