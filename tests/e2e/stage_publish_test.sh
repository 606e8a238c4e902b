#!/usr/bin/env bash
# Publishing a whole Stage of a ChangeOrder in one step, through the real binaries:
#   cub release publish --change-order B/N --stage S [--where-space E] [--dry-run]
# Five prod Spaces share one Git Target (a local repository). prod-c has not taken the change,
# prod-d has no release Target and prod-e is held by its release gate (the release manager's
# approval, which the other Spaces have): each is refused with its reason while the others publish, each as its own
# Release with its own signed provenance, all in one Git commit. A dry run records nothing;
# --where-space narrows the Stage; a rerun publishes nothing twice, and once prod-e's gate holds
# it publishes prod-e alone, with the vote sealed onto its Release. Units of a non-YAML toolchain go out with their own extension.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
e2e_init stage_publish
e2e_start_cubd main
export CUB_SERVER=$E2E_SERVER CUB_TOKEN=$ADMIN_TOKEN

repo=$E2E_TMP/repo
publish() { cub release publish --change-order acme-base/v2 --stage prod "$@"; }
commits() { git -C "$repo" rev-list --count main 2>/dev/null || echo 0; }
releases_of() { db -c "SELECT count(*) FROM releases r JOIN spaces s ON s.id = r.space_id WHERE s.slug = '$1'"; }

section "setup: acme-base -> prod-a..prod-e, one Git Target"
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
cat >"$E2E_TMP/web.yaml" <<'YAML'
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  template:
    spec:
      containers:
        - name: web
          image: ghcr.io/acme/web:v1
YAML
printf 'color=blue\n' >"$E2E_TMP/settings.txt"
expect_ok cub unit create --space acme-base web "$E2E_TMP/web.yaml"
expect_ok cub unit create --space acme-base settings "$E2E_TMP/settings.txt" --toolchain AppConfig/Text
for s in prod-a prod-b prod-c prod-d prod-e; do
  expect_ok cub variant create "$s" acme-base --stage Production
done
for s in prod-a prod-b prod-c prod-e; do
  expect_ok cub space update "$s" --release-target platform/git
done
for s in prod-a prod-b prod-c prod-d prod-e; do
  expect_ok cub space grant "$s" approver --user carol
done
expect_ok cub function set --space acme-base --unit web -- set-container-image web ghcr.io/acme/web:v2
expect_ok cub changeorder create --space acme-base v2 --description "web v2" --change-workflow platform/flow
expect_ok cub variant promote --change-order acme-base/v2 --where-space "Slug != 'prod-c'"
for s in prod-a prod-b; do
  expect_ok as "$CAROL" cub variant approve "$s" --change-order acme-base/v2
done

section "malformed requests are refused, naming the flag"
expect_fail 2 "--change-order requires --stage" cub release publish --change-order acme-base/v2
expect_fail 2 "excludes" cub release publish prod-a --change-order acme-base/v2 --stage prod
expect_fail 1 "has no stage 'qa'; its stages are prod" \
  cub release publish --change-order acme-base/v2 --stage qa
expect_fail 1 "--where-space: where: unknown field 'Nope'" publish --where-space "Nope = 1"
expect_fail 1 "selects no Space of stage 'prod'" publish --where-space "Slug = 'nothing'"

section "dry run: what would be published, and why the others are not; nothing recorded"
expect_fail 1 "3 Spaces of stage prod were refused" publish --dry-run -o json
dry=$OUT
expect_eq 2 "$(jget Releases.len "$dry")" "would-be Releases"
expect_eq prod-a "$(jget Releases.0.SpaceSlug "$dry")"
expect_eq prod-b "$(jget Releases.1.SpaceSlug "$dry")"
expect_eq 0 "$(jget Releases.0.ReleaseNum "$dry" || echo 0)" "dry run: unnumbered"
expect_eq 3 "$(jget Refused.len "$dry")" "refused Spaces"
expect_eq prod-c "$(jget Refused.0.SpaceSlug "$dry")"
expect_contains "$(jget Refused.0.Message "$dry")" "space 'prod-c' has not taken change order 'v2'"
expect_eq prod-d "$(jget Refused.1.SpaceSlug "$dry")"
expect_contains "$(jget Refused.1.Message "$dry")" "space 'prod-d' has no release Target"
expect_eq prod-e "$(jget Refused.2.SpaceSlug "$dry")"
expect_contains "$(jget Refused.2.Message "$dry")" \
  "unable to publish a release of change order 'v2' in stage 'prod'"
expect_contains "$(jget Refused.2.Message "$dry")" "requires release-manager"
expect_eq 0 "$(db -c "SELECT count(*) FROM releases")" "Releases after the dry run"
expect_eq 0 "$(commits)" "commits after the dry run"

section "the REST mirror: PublishReleases, a dry run"
run curl -sS -X POST -H "Authorization: Bearer $ADMIN_TOKEN" -H 'Content-Type: application/json' \
  --data '{"ChangeOrder":"acme-base/v2","Stage":"prod","DryRun":true}' \
  "http://$E2E_HTTP/v1/ReleaseService/PublishReleases"
expect_eq 0 "$RC" "curl PublishReleases"
expect_eq 2 "$(jget Releases.len)" "REST: would-be Releases"
expect_eq prod-c "$(jget Refused.0.SpaceSlug)"
expect_eq 0 "$(db -c "SELECT count(*) FROM releases")" "Releases after the REST dry run"
expect_ne 0 "$(jget Releases.0.Units.len || echo 0)" "REST dry run: Units in full"
run curl -sS -X POST -H "Authorization: Bearer $ADMIN_TOKEN" -H 'Content-Type: application/json' \
  --data '{"ChangeOrder":"acme-base/v2","Stage":"prod","DryRun":true,"Brief":true}' \
  "http://$E2E_HTTP/v1/ReleaseService/PublishReleases"
expect_eq 0 "$RC" "curl PublishReleases, brief dry run"
expect_eq 2 "$(jget Releases.len)" "REST brief dry run: would-be Releases"
expect_eq 0 "$(jget Releases.0.Units.len || echo 0)" "REST brief dry run: no Units"
expect_eq "" "$(jget Releases.0.Provenance || true)" "REST brief dry run: no Provenance"
expect_ne "" "$(jget Releases.0.BundleDigest)" "REST brief dry run: the digest"

section "--where-space narrows the Stage: prod-a alone"
expect_ok publish --where-space "Slug = 'prod-a'" -o json
expect_eq 1 "$(jget Releases.len)"
expect_eq prod-a "$(jget Releases.0.SpaceSlug)"
expect_eq 1 "$(jget Releases.0.ReleaseNum)"
expect_eq "acme-base/v2" "$(jget Releases.0.ChangeOrder)"
expect_eq 0 "$(jget Refused.len)"
expect_ne "" "$(jget Releases.0.Provenance || true)" "-o json: the signed provenance"
expect_ne 0 "$(jget Releases.0.Units.len || echo 0)" "-o json: the Units"
expect_eq 1 "$(releases_of prod-a)"
expect_eq 0 "$(releases_of prod-b)"
expect_eq 1 "$(commits)" "commits after prod-a"

section "the whole Stage: prod-b published, prod-a already, three refused; one commit"
expect_fail 1 "3 Spaces of stage prod were refused" publish --description "roll out v2"
expect_contains "$OUT" "prod-b: Release 1"
expect_contains "$OUT" "Already published (left as they are): prod-a"
expect_contains "$OUT" "Refused prod-e: unable to publish a release of change order 'v2' in stage 'prod'"
expect_eq 1 "$(releases_of prod-b)"
expect_eq 1 "$(releases_of prod-a)" "prod-a not published twice"
expect_eq 0 "$(releases_of prod-e)"
expect_eq 2 "$(commits)" "commits after the Stage"
expect_ok cub release get --space prod-b --release 1 -o json
expect_eq "roll out v2" "$(jget Description)"
expect_eq "ChangeOrder:acme-base/v2" "$(jget RevisionSelector)"
expect_ok cub release verify --space prod-b --release 1
expect_contains "$OUT" "Verified"
expect_ok cub event list --space prod-b --where "Kind = 'Published'" -o json
expect_eq 1 "$(jget len)" "Published events in prod-b"

section "files: one per Unit, the toolchain's extension"
git -C "$repo" show main:prod-b/web.yaml >"$E2E_TMP/web.out" 2>&1 || e2e_fail "prod-b/web.yaml missing"
expect_contains "$(cat "$E2E_TMP/web.out")" "web:v2"
git -C "$repo" show main:prod-b/settings.txt >"$E2E_TMP/settings.out" 2>&1 ||
  e2e_fail "prod-b/settings.txt missing"
expect_eq "color=blue" "$(cat "$E2E_TMP/settings.out")"
expect_eq "settings.txt" "$(db -c "SELECT ru.file_name FROM release_units ru JOIN releases r ON r.id = ru.release_id WHERE r.space_slug = 'prod-b' AND ru.unit_slug = 'settings'")"

section "a rerun publishes nothing twice"
expect_fail 1 "were refused" publish -o json
expect_eq 0 "$(jget Releases.len)"
expect_eq "prod-a" "$(jget AlreadyPublished.0)"
expect_eq "prod-b" "$(jget AlreadyPublished.1)"
expect_eq 2 "$(commits)" "commits after the rerun"

section "once prod-e's gate holds, it alone is published"
expect_ok as "$CAROL" cub variant approve prod-e --change-order acme-base/v2
# Through REST, Brief: the Release is answered without its signed statements or Units.
run curl -sS -X POST -H "Authorization: Bearer $ADMIN_TOKEN" -H 'Content-Type: application/json' \
  --data '{"ChangeOrder":"acme-base/v2","Stage":"prod","Brief":true}' \
  "http://$E2E_HTTP/v1/ReleaseService/PublishReleases"
expect_eq 0 "$RC" "curl PublishReleases, brief"
expect_eq 1 "$(jget Releases.len)"
expect_eq prod-e "$(jget Releases.0.SpaceSlug)"
expect_eq 1 "$(jget Releases.0.ReleaseNum)"
expect_eq Delivered "$(jget Releases.0.DeliveryState)"
expect_eq "" "$(jget Releases.0.Provenance || true)" "brief: no Provenance"
expect_eq "" "$(jget Releases.0.SealedApprovals || true)" "brief: no SealedApprovals"
expect_eq 0 "$(jget Releases.0.Units.len || echo 0)" "brief: no Units"
expect_eq 2 "$(jget Refused.len)"
expect_eq 1 "$(releases_of prod-e)"
expect_eq 1 "$(releases_of prod-a)"
expect_eq 1 "$(releases_of prod-b)"
expect_eq 3 "$(commits)"
expect_ok cub release get --space prod-e --release 1 -o json
expect_ne "" "$(jget SealedApprovals)" "sealed approvals of prod-e's Release"
expect_ok cub release verify --space prod-e --release 1
expect_contains "$OUT" "sealed approvals verify"

section "a single-Space publish still works, numbered per Space"
expect_ok cub release publish prod-a --description again
expect_contains "$OUT" "Release 2 of prod-a"
expect_ok cub release verify --space prod-a --release 2

e2e_finish
