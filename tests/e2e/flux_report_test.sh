#!/usr/bin/env bash
# Live status by commit, through the real binaries and the reference reporters of deploy/flux and
# deploy/argocd with a stand-in kubectl: a Stage published as one commit carrying several Spaces,
# then later commits (another Space's; the same files published again),
# each reporter mapping the commit it sees to the right Release of its Space; and the refusals
# (a malformed or unknown commit, a commit carrying no Release of the Space, a Directory Target).
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
e2e_init flux_report
e2e_start_cubd main
export CUB_SERVER=$E2E_SERVER CUB_TOKEN=$ADMIN_TOKEN
REPO=$E2E_TMP/gitops.git

# The stand-in kubectl serves the objects written to $E2E_TMP/k8s/<kind>/<namespace>/<name>.json.
mkdir -p "$E2E_TMP/fakebin"
cat >"$E2E_TMP/fakebin/kubectl" <<SH
#!/usr/bin/env bash
# kubectl get KIND NAME -n NAMESPACE -o json
[[ \$# == 7 && \$1 == get && \$4 == -n && \$6 == -o && \$7 == json ]] || exit 1
exec cat "$E2E_TMP/k8s/\$2/\$5/\$3.json"
SH
chmod +x "$E2E_TMP/fakebin/kubectl"
KS=kustomizations.kustomize.toolkit.fluxcd.io

# kustomization NAME APPLIED ATTEMPTED READY [MESSAGE]: a Flux Kustomization's status.
kustomization() {
  mkdir -p "$E2E_TMP/k8s/$KS/flux-system"
  cat >"$E2E_TMP/k8s/$KS/flux-system/$1.json" <<JSON
{"apiVersion": "kustomize.toolkit.fluxcd.io/v1", "kind": "Kustomization",
 "metadata": {"name": "$1", "namespace": "flux-system"},
 "spec": {"path": "./clusters/$1", "sourceRef": {"kind": "GitRepository", "name": "gitops"}},
 "status": {"lastAppliedRevision": "$2", "lastAttemptedRevision": "$3",
            "conditions": [{"type": "Ready", "status": "$4", "reason": "x",
                            "message": "${5:-Applied revision: $2}"}]}}
JSON
}
# application NAME REVISION SYNC HEALTH PHASE: an Argo CD Application's status.
application() {
  mkdir -p "$E2E_TMP/k8s/application/argocd"
  cat >"$E2E_TMP/k8s/application/argocd/$1.json" <<JSON
{"status": {"sync": {"status": "$3", "revision": "$2"}, "health": {"status": "$4"},
            "operationState": {"phase": "$5", "message": "argo says $5"}}}
JSON
}
flux_report() {  # flux_report SPACE
  expect_ok env PATH="$E2E_TMP/fakebin:$PATH" CUB_TOKEN="$REPORTER_TOKEN" \
    "$CUB_SOURCE_DIR/deploy/flux/report-status.sh" --space "$1" --kustomization "$1" --once
}
argo_report() {  # argo_report SPACE
  expect_ok env PATH="$E2E_TMP/fakebin:$PATH" CUB_TOKEN="$REPORTER_TOKEN" \
    "$CUB_SOURCE_DIR/deploy/argocd/report-status.sh" --space "$1" --app "$1" --once
}
status_of() {  # status_of SPACE N: "Sync/Health/Operation" of Release N
  cub release get --space "$1" --release "$2" -o json >"$E2E_TMP/st.json" ||
    e2e_fail "cub release get $1 $2 failed"
  local j
  j=$(cat "$E2E_TMP/st.json")
  echo "$(jget LiveStatus.Sync "$j")/$(jget LiveStatus.Health "$j")/$(jget LiveStatus.Operation "$j")"
}
tip() { git -C "$REPO" rev-parse main; }

section "setup: one Git Target for every Space, a workflow with a dev Stage"
git init -q --bare "$REPO" || e2e_fail "git init --bare failed"
expect_ok cub space create platform
expect_ok cub target create --space platform gitops --provider Git \
  --param "repository=file://$REPO" --param "path=clusters/{space}"
expect_ok cub target create --space platform local --provider Directory \
  --param "path=$E2E_TMP/deploy"
expect_ok cub changeworkflow create --space platform flow --filename - <<'YAML'
Stages:
  - Name: dev
    WhereSpace: "Labels.Stage = 'Development'"
YAML
expect_ok cub space create acme-base
deployment v1 >"$E2E_TMP/v1.yaml"
expect_ok cub unit create --space acme-base deployment "$E2E_TMP/v1.yaml"
for s in dev-a dev-b dev-c; do
  expect_ok cub variant create "$s" acme-base --stage Development
  expect_ok cub space update "$s" --release-target platform/gitops
done
expect_ok cub space create other
expect_ok cub unit create --space other deployment "$E2E_TMP/v1.yaml"
expect_ok cub space update other --release-target platform/gitops
expect_ok cub space create ondisk
expect_ok cub unit create --space ondisk deployment "$E2E_TMP/v1.yaml"
expect_ok cub space update ondisk --release-target platform/local
REPORTER_TOKEN=$(create_user flux --service-account) || e2e_fail "cubd user create failed"
for s in dev-a dev-b dev-c other ondisk; do
  expect_ok cub space grant "$s" reporter --user flux
done

section "a Stage published as one commit carrying three Spaces"
expect_ok cub function set --space acme-base --unit deployment \
  -- set-image-reference-by-uri ghcr.io/acme/acme ":v2"
expect_ok cub changeorder create --space acme-base v2 --description v2 \
  --change-workflow platform/flow
expect_ok cub variant promote --change-order acme-base/v2
expect_ok cub release publish --change-order acme-base/v2 --stage dev
C1=$(tip)
expect_eq 1 "$(git -C "$REPO" rev-list --count main)" "one commit for the Stage"
BODY=$(git -C "$REPO" log -1 --format=%B main)
for s in dev-a dev-b dev-c; do
  expect_ok cub release get --space "$s" --release 1 -o json
  expect_eq "$C1" "$(jget Commit)" "$s's Release 1 commit"
  expect_contains "$BODY" "Cub-Release: $(jget ReleaseID) $s 1 "
done

section "each reporter maps the batch commit to its Space's Release"
kustomization dev-a "main@sha1:$C1" "main@sha1:$C1" True
kustomization dev-b "main@sha1:$C1" "main@sha1:$C1" Unknown "reconciliation in progress"
application dev-c "$C1" Synced Healthy Succeeded
flux_report dev-a
expect_contains "$OUT" "Release 1 of dev-a is Synced/Healthy"
flux_report dev-b
argo_report dev-c
expect_eq Synced/Healthy/Succeeded "$(status_of dev-a 1)"
expect_eq Synced/Progressing/Running "$(status_of dev-b 1)"
expect_eq Synced/Healthy/Succeeded "$(status_of dev-c 1)"
expect_ok cub release get --space dev-b --release 1 -o json
expect_eq "reconciliation in progress" "$(jget LiveStatus.Message)"

section "a later commit of another Space still maps to the Space's Release"
expect_ok cub release publish other
C2=$(tip)
expect_ne "$C1" "$C2"
kustomization dev-a "main@sha1:$C2" "main@sha1:$C2" False "health check failed"
application dev-c "$C2" Synced Degraded Succeeded
flux_report dev-a
argo_report dev-c
expect_eq Synced/Degraded/Failed "$(status_of dev-a 1)"
expect_eq Synced/Degraded/Succeeded "$(status_of dev-c 1)"
kustomization other "main@sha1:$C2" "main@sha1:$C2" True
flux_report other
expect_eq Synced/Healthy/Succeeded "$(status_of other 1)"

section "Flux attempting a newer commit reports that Release, out of sync"
expect_ok cub function set --space dev-a --unit deployment -- set-replicas 3
expect_ok cub release publish dev-a
C3=$(tip)
kustomization dev-a "main@sha1:$C2" "main@sha1:$C3" False "apply failed"
flux_report dev-a
expect_contains "$OUT" "Release 2 of dev-a"
expect_eq OutOfSync/Degraded/Failed "$(status_of dev-a 2)"
expect_eq Synced/Degraded/Failed "$(status_of dev-a 1)" "Release 1 as it was"
kustomization dev-a "main@sha1:$C3" "main@sha1:$C3" True
flux_report dev-a
expect_eq Synced/Healthy/Succeeded "$(status_of dev-a 2)"

section "the same files published again are a Release of their own"
expect_ok cub release publish dev-b --release 1
expect_contains "$OUT" "Release 2 of dev-b"
C3=$(tip)
application dev-b "$C3" Synced Healthy Succeeded
argo_report dev-b
expect_contains "$OUT" "Release 2 of dev-b is Synced/Healthy"
expect_ok cub function set --space other --unit deployment -- set-replicas 5
expect_ok cub release publish other
C4=$(tip)
kustomization dev-b "main@sha1:$C4" "main@sha1:$C4" True
flux_report dev-b
expect_contains "$OUT" "Release 2 of dev-b is Synced/Healthy"
expect_eq Synced/Progressing/Running "$(status_of dev-b 1)" "Release 1 untouched"

section "refusals name what is wrong"
expect_fail 1 "is neither a Git commit id" \
  as "$REPORTER_TOKEN" cub release set-status --space dev-a --commit main@sha1:abc --sync Synced --health Healthy
expect_fail 1 "no commit 0123456789abcdef0123456789abcdef01234567" \
  as "$REPORTER_TOKEN" cub release set-status --space dev-a \
  --commit 0123456789abcdef0123456789abcdef01234567 --sync Synced --health Healthy
expect_fail 1 "carries no release of space 'other'" \
  as "$REPORTER_TOKEN" cub release set-status --space other --commit "$C1" \
  --sync Synced --health Healthy
expect_ok cub release publish ondisk
expect_fail 1 "which keeps no history" \
  as "$REPORTER_TOKEN" cub release set-status --space ondisk --commit "$C1" \
  --sync Synced --health Healthy
expect_fail 2 "excludes" as "$REPORTER_TOKEN" cub release set-status --space dev-a \
  --release 1 --commit "$C1" --sync Synced --health Healthy
# No reporter role: refused before cubd reads any repository.
OUTSIDER=$(create_user outsider) || e2e_fail "cubd user create failed"
expect_fail 1 "space 'dev-a' not found" as "$OUTSIDER" cub release set-status --space dev-a \
  --commit "$C1" --sync Synced --health Healthy
expect_ok cub space grant dev-a viewer --user outsider
expect_fail 1 "reporter or admin" as "$OUTSIDER" cub release set-status --space dev-a \
  --commit "$C1" --sync Synced --health Healthy

section "the REST mirror takes Commit"
run curl -s -X POST "http://$E2E_HTTP/v1/ReleaseService/SetReleaseStatus" \
  -H "Authorization: Bearer $REPORTER_TOKEN" -H 'Content-Type: application/json' \
  -d "{\"Space\": \"dev-c\", \"Commit\": \"main@sha1:$C4\", \"Sync\": \"Synced\", \"Health\": \"Healthy\"}"
expect_eq 0 "$RC" "curl"
expect_eq 1 "$(jget ReleaseNum)" "dev-c's Release at the newest commit"
expect_eq Healthy "$(jget LiveStatus.Health)"

e2e_finish
