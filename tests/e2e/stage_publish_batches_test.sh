#!/usr/bin/env bash
# A Stage published in several batches: cubd signs and writes a Stage's Releases 1,000 at a
# time (lib/ops/stage_publish.cc), so a Stage of 1,003 Spaces takes two. Every Space must get its
# own Release, numbered, in the one Git commit, with its provenance and its sealed approval
# naming its own Space and the votes cast there, whichever batch it fell in.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
e2e_init stage_publish_batches
e2e_start_cubd main
export CUB_SERVER=$E2E_SERVER CUB_TOKEN=$ADMIN_TOKEN

n=1003
repo=$E2E_TMP/repo

section "setup: $n prod variants of acme-base, one Git Target, a release approval"
CAROL=$(create_user carol) || e2e_fail "user"
CAROL_ID=$(db -c "SELECT id FROM users WHERE username = 'carol'")
expect_ok cub space create platform
expect_ok cub target create --space platform git --provider Git --param "repository=$repo"
expect_ok cub changeworkflow create --space platform flow --filename - <<YAML
Stages:
  - Name: prod
    WhereSpace: "Labels.Stage = 'Production'"
    ReleasePrerequisites: [release-manager]
AttestationPrerequisites:
  - Name: release-manager
    FromUserIDs: [$CAROL_ID]
YAML
expect_ok cub space create acme-base
deployment v1 | cub --quiet unit create --space acme-base web - || e2e_fail "unit create"
expect_ok cub space grant acme-base approver --user carol
seq -f "prod-%04g" 1 "$n" >"$E2E_TMP/names"
expect_ok cub variant create --names-file "$E2E_TMP/names" acme-base --stage Production
# One call a Space: there is no bulk form of `space update`; four at a time.
xargs -P 4 -I{} cub --quiet space update {} --release-target platform/git <"$E2E_TMP/names" ||
  e2e_fail "space update --release-target"
expect_eq "$n" "$(db -c "SELECT count(*) FROM spaces WHERE release_target_id IS NOT NULL")"
expect_ok cub function set --space acme-base --unit web -- set-container-image acme ghcr.io/acme/acme:v2
expect_ok cub changeorder create --space acme-base v2 --description "web v2" --change-workflow platform/flow
expect_ok cub variant promote --change-order acme-base/v2 --target-stage prod
expect_ok as "$CAROL" cub variant approve --change-order acme-base/v2 --stage prod

section "the whole Stage: $n Releases, one commit"
expect_ok cub release publish --change-order acme-base/v2 --stage prod
expect_eq "$n" "$(db -c "SELECT count(*) FROM releases WHERE release_num = 1")" "one Release a Space"
expect_eq 1 "$(git -C "$repo" rev-list --count main)" "one commit"
expect_eq "$n" "$(git -C "$repo" ls-tree -d --name-only main | grep -c '^prod-')" "a directory a Space"
git -C "$repo" show main:prod-1003/web.yaml >"$E2E_TMP/web.out" 2>&1 || e2e_fail "prod-1003/web.yaml"
expect_contains "$(cat "$E2E_TMP/web.out")" "acme:v2"
expect_eq "$n" "$(db -c "SELECT count(*) FROM events WHERE kind = 'Published'")" "Published events"

section "each record names its own Space, in every batch"
# The provenance's subject is the Space's Release.
expect_eq 0 "$(db -c "
  SELECT count(*) FROM releases r JOIN spaces s ON s.id = r.space_id
  WHERE convert_from(decode(r.provenance::jsonb->>'payload', 'base64'), 'UTF8')::jsonb
        ->'subject'->0->>'name' <> s.slug || '/release-1'")" "provenance of another Space"
# The sealed approval names the Release, and each vote it seals was cast in the Release's Space.
expect_eq "$n" "$(db -c "
  SELECT count(*) FROM releases r JOIN spaces s ON s.id = r.space_id
  WHERE convert_from(decode(r.sealed_approvals::jsonb->>'payload', 'base64'), 'UTF8')::jsonb
        ->'predicate'->'Release'->>'Space' = s.slug")" "sealed approvals naming their Release's Space"
expect_eq "$n" "$(db -c "
  SELECT count(*) FROM releases r
  CROSS JOIN LATERAL jsonb_array_elements(convert_from(decode(
    r.sealed_approvals::jsonb->>'payload', 'base64'), 'UTF8')::jsonb->'predicate'->'Votes') v
  JOIN attestations a ON a.id = (v->>'AttestationID')::uuid AND a.space_id = r.space_id")" \
  "sealed votes cast in the Release's own Space"
# One Space from each batch, checked by the CLI.
for s in prod-0001 prod-1000 prod-1001 prod-1003; do
  expect_ok cub release verify --space "$s" --release 1
  expect_contains "$OUT" "sealed approvals verify"
done

e2e_finish
