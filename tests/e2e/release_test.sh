#!/usr/bin/env bash
# Releases through the real binaries: Targets (a Git repository reached by URL, a directory),
# publishing a ChangeOrder stage by stage with the Released and Healthy gates, live status from
# a reporter, deployment history, rollback, signed records checked with openssl, and a tampered
# bundle refused.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
e2e_init release
e2e_start_cubd main
export CUB_SERVER=$E2E_SERVER CUB_TOKEN=$ADMIN_TOKEN

deployment() {  # deployment IMAGE-TAG
  cat <<YAML
apiVersion: apps/v1
kind: Deployment
metadata:
  name: acme
spec:
  replicas: 2
  template:
    spec:
      containers:
        - name: acme
          image: ghcr.io/acme/acme:$1
YAML
}

section "setup: targets, a workflow gated on Released and Healthy"
git init -q --bare "$E2E_TMP/gitops.git" || e2e_fail "git init --bare failed"
expect_ok cub space create platform
expect_ok cub target create --space platform gitops --provider Git \
  --param "repository=file://$E2E_TMP/gitops.git" --param "path=clusters/{space}"
expect_ok cub target create --space platform local --provider Directory \
  --param "path=$E2E_TMP/deploy"
expect_fail 1 "unknown param" cub target create --space platform bad --provider Git \
  --param repo=x
expect_fail 2 "Nope not in" cub target create --space platform bad --provider Nope
expect_ok cub target list --space platform
expect_contains "$OUT" "gitops"
expect_ok cub changeworkflow create --space platform flow --filename - <<'YAML'
Stages:
  - Name: dev
    WhereSpace: "Labels.Stage = 'Development'"
  - Name: prod
    WhereSpace: "Labels.Stage = 'Production'"
    Prerequisites: [Released, Healthy]
Final:
  Prerequisites: [Released, Healthy]
YAML
expect_ok cub space create acme-base
deployment v1 >"$E2E_TMP/v1.yaml"
expect_ok cub unit create --space acme-base deployment "$E2E_TMP/v1.yaml"
expect_ok cub variant create acme-dev acme-base --stage Development
expect_ok cub variant create acme-prod acme-base --stage Production
expect_fail 1 "has no release Target" cub release publish acme-dev
expect_ok cub space update acme-dev --release-target platform/gitops
expect_ok cub space update acme-prod --release-target platform/local
expect_ok cub space get acme-dev -o json
expect_eq platform/gitops "$(jget ReleaseTarget)"
expect_fail 1 "is the release target of space(s) acme-dev" \
  cub target delete --space platform gitops

section "the change reaches dev, and prod waits for dev to release it"
expect_ok cub function set --space acme-base --unit deployment \
  -- set-image-reference-by-uri ghcr.io/acme/acme ":v2"
expect_ok cub changeorder create --space acme-base v2 --description v2 \
  --change-workflow platform/flow
expect_fail 1 "has not taken change order 'v2'" \
  cub release publish acme-dev --revision ChangeOrder:acme-base/v2
expect_ok cub variant promote --change-order acme-base/v2
expect_fail 1 "Variant 'acme-dev' has taken change order 'v2' but has not released it" \
  cub variant promote --change-order acme-base/v2
expect_ok cub release publish acme-dev --revision ChangeOrder:acme-base/v2 --dry-run -o json
expect_eq 1 "$(jget Units.len)"
expect_eq 0 "$(jget ReleaseNum)"
expect_ok cub release publish acme-dev --revision ChangeOrder:acme-base/v2
expect_contains "$OUT" "Release 1 of acme-dev published to platform/gitops"
expect_eq "Release 1 of acme-dev" "$(git -C "$E2E_TMP/gitops.git" log -1 --format=%s main)"
expect_contains "$(git -C "$E2E_TMP/gitops.git" log -1 --format=%b main)" "ChangeOrder: acme-base/v2"
expect_contains "$(git -C "$E2E_TMP/gitops.git" show main:clusters/acme-dev/deployment.yaml)" \
  "acme:v2"
expect_ok cub changeorder get --space acme-base v2 -o json
expect_eq 1 "$(jget ReleasedSpaceIDs.len)"
expect_basic_as_full acme-base
expect_eq InProgress "$OUT" "State in a Basic list, dev released"
expect_fail 1 "Variant 'acme-dev' is not Healthy" cub variant promote --change-order acme-base/v2

section "a reporter writes live status; Healthy opens the gate"
REPORTER_TOKEN=$(create_user argocd --service-account) || e2e_fail "cubd user create failed"
EDITOR_TOKEN=$(create_user dev-editor) || e2e_fail "cubd user create failed"
expect_ok cub space grant acme-dev reporter --user argocd
expect_ok cub space grant acme-dev editor --user dev-editor
expect_fail 1 "reporter or admin" env CUB_TOKEN="$EDITOR_TOKEN" \
  cub release set-status --space acme-dev --release 1 --sync Synced --health Healthy
expect_ok cub release get --space acme-dev --release 1 -o json
DIGEST1=$(jget BundleDigest)
expect_ok env CUB_TOKEN="$REPORTER_TOKEN" cub release set-status --space acme-dev \
  --digest "$DIGEST1" --sync Synced --health Progressing --operation Running
expect_fail 1 "is not Healthy" cub variant promote --change-order acme-base/v2
expect_ok env CUB_TOKEN="$REPORTER_TOKEN" cub release set-status --space acme-dev --release 1 \
  --sync Synced --health Healthy --operation Succeeded
expect_ok cub variant promote --change-order acme-base/v2
expect_contains "$OUT" "into stage prod"
expect_ok cub release publish acme-prod --revision ChangeOrder:acme-base/v2
expect_contains "$(cat "$E2E_TMP/deploy/acme-prod/deployment.yaml")" "acme:v2"
expect_ok cub space grant acme-prod reporter --user argocd
expect_ok env CUB_TOKEN="$REPORTER_TOKEN" cub release set-status --space acme-prod --release 1 \
  --sync Synced --health Healthy
expect_ok cub changeorder get --space acme-base v2 -o json
expect_eq Released "$(jget State)"
expect_eq Completed "$(jget Stage)"
expect_eq 2 "$(jget ReleasedSpaceIDs.len)"
expect_basic_as_full acme-base
expect_eq Released "$OUT" "State in a Basic list"

section "Degraded closes the gate again, read at evaluation time"
expect_ok cub function set --space acme-base --unit deployment \
  -- set-image-reference-by-uri ghcr.io/acme/acme ":v3"
expect_ok cub changeorder create --space acme-base v3 --description v3 \
  --change-workflow platform/flow
expect_ok cub variant promote --change-order acme-base/v3
# A fix made in review is adopted by moving the release Tag to it.
expect_ok cub function set --space acme-dev --unit deployment -- set-replicas 3
expect_fail 1 "pass --move" cub unit tag ChangeOrder:acme-base/v3 --space acme-dev --unit deployment
expect_fail 1 "is before where the change landed" cub unit tag ChangeOrder:acme-base/v3 --move \
  --revision 1 --space acme-dev --unit deployment
expect_ok cub unit tag ChangeOrder:acme-base/v3 --move --revision HeadRevisionNum \
  --space acme-dev --unit deployment
expect_ok cub release publish acme-dev --revision ChangeOrder:acme-base/v3
expect_contains "$(git -C "$E2E_TMP/gitops.git" show main:clusters/acme-dev/deployment.yaml)" \
  "replicas: 3"
expect_fail 1 "its release tag there is fixed" cub unit tag ChangeOrder:acme-base/v3 --move \
  --space acme-dev --unit deployment
expect_ok env CUB_TOKEN="$REPORTER_TOKEN" cub release set-status --space acme-dev --release 2 \
  --sync Synced --health Healthy
expect_ok cub variant promote --change-order acme-base/v3 --dry-run
expect_ok env CUB_TOKEN="$REPORTER_TOKEN" cub release set-status --space acme-dev --release 2 \
  --sync Synced --health Degraded --message "crash loop"
expect_fail 1 "Variant 'acme-dev' is not Healthy" \
  cub variant promote --change-order acme-base/v3 --dry-run
expect_ok cub release history --space acme-dev -o json
expect_eq 2 "$(jget len)"
expect_eq 2 "$(jget 0.ReleaseNum)"
expect_eq Degraded "$(jget 0.EndReason)"
expect_eq Superseded "$(jget 1.EndReason)"
expect_ne "" "$(jget 1.HealthyAt)"
expect_ne "" "$(jget 1.Record)" "a signed deployment record once healthy"
# A recovery opens a new entry.
expect_ok env CUB_TOKEN="$REPORTER_TOKEN" cub release set-status --space acme-dev --release 2 \
  --sync Synced --health Healthy
expect_ok cub release history --space acme-dev -o json
expect_eq 3 "$(jget len)"
expect_eq "" "$(jget 0.EndReason)"

section "rollback: the state before the change, and an earlier release again"
expect_ok cub release publish acme-dev --revision Before:ChangeOrder:acme-base/v3
expect_contains "$OUT" "Release 3 of acme-dev"
expect_contains "$(git -C "$E2E_TMP/gitops.git" show main:clusters/acme-dev/deployment.yaml)" \
  "acme:v2"
expect_ok cub release publish acme-dev --release 2
expect_contains "$(git -C "$E2E_TMP/gitops.git" show main:clusters/acme-dev/deployment.yaml)" \
  "acme:v3"
expect_ok cub release list --space acme-dev -o json
expect_eq 4 "$(jget len)"
expect_eq "Release:2" "$(jget 0.RevisionSelector)"
expect_ok cub unit get --space acme-dev deployment -o json
expect_eq 4 "$(jget Unit.LastReleasedRevisionNum)"

section "the reference Argo CD reporter (with a stand-in kubectl)"
expect_ok cub release get --space acme-dev --release 4 -o json
COMMIT4=$(jget Commit)
mkdir -p "$E2E_TMP/fakebin"
cat >"$E2E_TMP/fakebin/kubectl" <<SH
#!/usr/bin/env bash
[[ "\$*" == "get application acme-dev -n argocd -o json" ]] || exit 1
cat <<JSON
{"status": {"sync": {"status": "Synced", "revision": "$COMMIT4"},
            "health": {"status": "Healthy"},
            "operationState": {"phase": "Succeeded", "message": "successfully synced"}}}
JSON
SH
chmod +x "$E2E_TMP/fakebin/kubectl"
expect_ok env PATH="$E2E_TMP/fakebin:$PATH" CUB_TOKEN="$REPORTER_TOKEN" \
  "$CUB_SOURCE_DIR/deploy/argocd/report-status.sh" --space acme-dev --app acme-dev --once
expect_ok cub release get --space acme-dev --release 4 -o json
expect_eq Healthy "$(jget LiveStatus.Health)"
expect_eq Succeeded "$(jget LiveStatus.Operation)"
expect_eq "successfully synced" "$(jget LiveStatus.Message)"

section "signed records, checked by cub and by openssl"
expect_ok cub release verify --space acme-dev --release 1
expect_contains "$OUT" "Verified"
cub server public-key >"$E2E_TMP/pub.pem" || e2e_fail "cub server public-key failed"
expect_contains "$(cat "$E2E_TMP/pub.pem")" "BEGIN PUBLIC KEY"
cub release get --space acme-dev --release 1 -o json >"$E2E_TMP/r1.json"
python3 - "$E2E_TMP" <<'PY' || e2e_fail "could not unpack the envelope"
import base64, json, sys
d = sys.argv[1]
env = json.loads(json.load(open(d + "/r1.json"))["Provenance"])
payload = base64.b64decode(env["payload"])
t = env["payloadType"].encode()
pae = b"DSSEv1 %d %s %d %s" % (len(t), t, len(payload), payload)
open(d + "/pae.bin", "wb").write(pae)
open(d + "/sig.bin", "wb").write(base64.b64decode(env["signatures"][0]["sig"]))
open(d + "/statement.json", "wb").write(payload)
PY
expect_ok openssl pkeyutl -verify -pubin -inkey "$E2E_TMP/pub.pem" -rawin -in "$E2E_TMP/pae.bin" \
  -sigfile "$E2E_TMP/sig.bin"
expect_contains "$OUT" "Signature Verified Successfully"
expect_contains "$(cat "$E2E_TMP/statement.json")" "${DIGEST1#sha256:}"

section "a tampered bundle row is not deployed"
db -c "ALTER TABLE release_units DISABLE TRIGGER release_units_append_only;
       UPDATE release_units SET revision_num = 1 WHERE release_id =
         (SELECT r.id FROM releases r JOIN spaces s ON s.id = r.space_id
          WHERE s.slug = 'acme-dev' AND r.release_num = 1);
       ALTER TABLE release_units ENABLE TRIGGER release_units_append_only;" ||
  e2e_fail "tampering failed"
expect_fail 1 "does not verify" cub release verify --space acme-dev --release 1
expect_fail 1 "it has been altered and will not be deployed" cub release publish acme-dev --release 1
expect_ok cub release list --space acme-dev -o json
expect_eq 4 "$(jget len)" "nothing was published"
# The bundle rows refuse updates.
run db -c "UPDATE release_units SET revision_num = 2"
expect_ne 0 "$RC" "release_units refuse UPDATE"

section "an edited release row reads as tampered, not Verified"
# Each field the signed provenance names is checked against the row. The owner disables the
# trigger that keeps release rows append-only, as someone with the database would.
tamper_release() {  # tamper_release NUM SET-CLAUSE
  db -c "ALTER TABLE releases DISABLE TRIGGER releases_state_only;
         UPDATE releases SET $2 WHERE space_slug = 'acme-dev' AND release_num = $1;
         ALTER TABLE releases ENABLE TRIGGER releases_state_only;" || e2e_fail "tampering failed"
}
for n in 2 3 4; do
  expect_ok cub release verify --space acme-dev --release "$n"
  expect_contains "$OUT" "Verified"
  expect_contains "$OUT" "every field the provenance names matches the release as stored"
done
tamper_release 2 "description = 'not what was published'"
expect_fail 1 "does not verify" cub release verify --space acme-dev --release 2
expect_contains "$OUT" "NOT verified"
expect_contains "$OUT" 'Description (signed "'
expect_contains "$OUT" 'stored "not what was published")'
expect_contains "$OUT" "it has been tampered with"
tamper_release 3 "change_order = 'acme-base/other', revision_selector = 'Tag:other'"
expect_fail 1 "does not verify" cub release verify --space acme-dev --release 3
expect_contains "$OUT" "ChangeOrder (signed"
expect_contains "$OUT" "RevisionSelector (signed"
tamper_release 4 "published_at = published_at - interval '1 hour'"
expect_fail 1 "does not verify" cub release verify --space acme-dev --release 4
expect_contains "$OUT" "PublishedAt (signed"
expect_fail 1 "it has been tampered with and will not be deployed" \
  cub release publish acme-dev --release 4

section "what cannot be released"
expect_ok cub invocation create --space platform two-replicas Kubernetes/YAML \
  -- vet-cel "r.kind != 'Deployment' || r.spec.replicas == 2"
expect_ok cub space update acme-prod --validator platform/two-replicas
expect_ok cub function set --space acme-prod --unit deployment -- set-replicas 5
expect_fail 1 "has validation errors" cub release publish acme-prod

e2e_finish
