#!/usr/bin/env bash
# Argo CD Applications per cluster through the real binaries: a Git Target with the clusters
# param writes one Application per Space and cluster under argocd/ of its repository (the
# app-of-apps), in the same commit as the Space's files; `cub release applications` prints them
# pinned to the Release's commit; every one of them validates against Argo CD's Application CRD.
# The opt-in rule: a pre-existing argocd/<name>.yaml cub did not write is overwritten only with
# cub.dev/allowed-space: <space>; otherwise the cluster is held (Release.HeldClusters,
# OptInRequired), and deleting the Space leaves the file. Bad params are refused by name.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
e2e_init argocd
e2e_start_cubd main
export CUB_SERVER=$E2E_SERVER CUB_TOKEN=$ADMIN_TOKEN

REPO=$E2E_TMP/gitops.git
CRD=$CUB_SOURCE_DIR/tests/testdata/argocd/application-crd.yaml
CHECK=$CUB_SOURCE_DIR/tests/harness/argocd_schema_check.py

# The Application name the rule in lib/argocd/application.h gives, computed independently.
app_name() {  # app_name SPACE CLUSTER
  python3 -c '
import hashlib, re, sys
space, cluster = sys.argv[1], sys.argv[2]
visible = re.sub(r"[^a-z0-9-]", "-", space.lower())[:48].rstrip("-")
h = hashlib.sha256(space.encode() + b"\0" + cluster.encode()).hexdigest()[:10]
print("cub-%s-%s" % (visible, h) if visible else "cub-" + h)' "$1" "$2"
}
tip_file() { git -C "$REPO" show "main:$1" 2>/dev/null; }
# hand_commit FILE CONTENT: somebody else commits a file to the branch.
hand_commit() {
  rm -rf "$E2E_TMP/hand"
  git clone -q -b main "file://$REPO" "$E2E_TMP/hand" || e2e_fail "clone failed"
  mkdir -p "$(dirname "$E2E_TMP/hand/$1")"
  printf '%s' "$2" >"$E2E_TMP/hand/$1"
  git -C "$E2E_TMP/hand" add "$1" &&
    git -C "$E2E_TMP/hand" -c user.name=ops -c user.email=ops@example.com commit -q -m "by hand" &&
    git -C "$E2E_TMP/hand" push -q origin main || e2e_fail "hand commit of $1 failed"
}
unit_v() {  # unit_v SPACE VALUE
  printf 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cfg\ndata:\n  v: "%s"\n' "$2" \
    >"$E2E_TMP/cm.yaml"
}

section "bad params are refused by name"
git init -q --bare "$REPO" || e2e_fail "git init --bare failed"
expect_ok cub space create platform
expect_fail 1 "cluster name 'Prod' is not valid" cub target create --space platform bad \
  --provider Git --param "repository=file://$REPO" --param "clusters=Prod=https://p"
expect_fail 1 "API URL 'ftp://p' of cluster prod is not valid" cub target create \
  --space platform bad --provider Git --param "repository=file://$REPO" \
  --param "clusters=prod=ftp://p"
expect_fail 1 "'prod' is not NAME=API-URL" cub target create --space platform bad \
  --provider Git --param "repository=file://$REPO" --param "clusters=prod"
expect_fail 1 "param 'namespace' value 'Web'" cub target create --space platform bad \
  --provider Git --param "repository=file://$REPO" --param "clusters=prod=https://p" \
  --param namespace=Web
expect_fail 1 "need param 'clusters' too" cub target create --space platform bad \
  --provider Git --param "repository=file://$REPO" --param project=x

section "a Git Target with clusters writes argocd/ in the Release's commit"
expect_ok cub target create --space platform gitops --provider Git \
  --param "repository=file://$REPO" --param "path=spaces/{space}" \
  --param "clusters=prod=https://prod.example:6443,dev=https://dev.example:6443" \
  --param project=default
expect_ok cub space create web
unit_v web 1
expect_ok cub unit create --space web cfg "$E2E_TMP/cm.yaml"
expect_ok cub space update web --release-target platform/gitops
expect_ok cub release publish web
expect_contains "$OUT" "Delivery: Delivered"
web_prod=$(app_name web prod)
web_dev=$(app_name web dev)
expect_eq "$(printf '%s\n' "$web_dev.yaml" "$web_prod.yaml" | LC_ALL=C sort)" \
  "$(git -C "$REPO" ls-tree --name-only main argocd/ | sed 's|argocd/||' |
    grep -v '^\.cub-files$' | LC_ALL=C sort)" "argocd/ files"
expect_contains "$(tip_file argocd/.cub-files)" "$web_prod.yaml web"
prod_app=$(tip_file "argocd/$web_prod.yaml")
expect_contains "$prod_app" "server: https://prod.example:6443"
expect_contains "$prod_app" "path: spaces/web"
expect_contains "$prod_app" "targetRevision: main"
expect_contains "$prod_app" "repoURL: file://$REPO"
expect_contains "$prod_app" "cub.dev/allowed-space: web"
expect_contains "$prod_app" "selfHeal: true"
expect_contains "$prod_app" "- ServerSideApply=true"
# The Space's files and its Applications are one commit.
expect_eq "$(git -C "$REPO" log -1 --format=%H main -- spaces/web)" \
  "$(git -C "$REPO" log -1 --format=%H main -- argocd/)" "one commit"
mkdir -p "$E2E_TMP/apps"
git -C "$REPO" show "main:argocd/$web_prod.yaml" >"$E2E_TMP/apps/repo-prod.yaml"
git -C "$REPO" show "main:argocd/$web_dev.yaml" >"$E2E_TMP/apps/repo-dev.yaml"

section "cub release applications prints them pinned to the Release"
commit=$(git -C "$REPO" rev-parse main)
expect_ok cub release applications --space web
expect_contains "$OUT" "NAME"
expect_contains "$OUT" "$web_prod   prod"
expect_ok cub release applications --space web -o yaml
expect_match "$OUT" "targetRevision: \"?$commit\"?"
expect_contains "$OUT" "name: $web_dev"
printf '%s\n' "$OUT" >"$E2E_TMP/apps/cli.yaml"
expect_ok cub release applications --space web --release 1 -o json
expect_eq List "$(jget kind)"
expect_eq 2 "$(jget items.len)"
expect_eq "$web_prod" "$(jget items.0.metadata.name)"
expect_eq web "$(jget items.0.spec.destination.namespace)"
expect_eq argocd "$(jget items.0.metadata.namespace)"
expect_fail 1 "has no release 9" cub release applications --space web --release 9
expect_ok python3 "$CHECK" "$CRD" "$E2E_TMP"/apps/*.yaml
expect_contains "$OUT" "4 Application(s) checked, 0 problem(s)"

section "opt-in: a pre-existing Application without the annotation holds its cluster"
shop_prod=$(app_name shop prod)
shop_dev=$(app_name shop dev)
foreign="apiVersion: argoproj.io/v1alpha1
kind: Application
metadata:
  name: $shop_prod
  namespace: argocd
spec:
  project: default
  source: {repoURL: 'https://git.example/legacy.git', path: shop, targetRevision: main}
  destination: {server: 'https://prod.example:6443', namespace: shop}
"
hand_commit "argocd/$shop_prod.yaml" "$foreign"
expect_ok cub space create shop
unit_v shop 1
expect_ok cub unit create --space shop cfg "$E2E_TMP/cm.yaml"
expect_ok cub space update shop --release-target platform/gitops
expect_ok cub release publish shop
expect_contains "$OUT" "Delivery: Delivered"
expect_eq "$foreign" "$(tip_file "argocd/$shop_prod.yaml")
" "the foreign Application is left as it was"
expect_contains "$(tip_file "argocd/$shop_dev.yaml")" "cub.dev/space: shop"
expect_not_contains "$(tip_file argocd/.cub-files)" "$shop_prod.yaml"
expect_ok cub release get --space shop --release 1 -o json
expect_eq prod "$(jget HeldClusters.0.Cluster)"
expect_eq OptInRequired "$(jget HeldClusters.0.Reason)"
expect_contains "$(jget HeldClusters.0.Message)" "cub.dev/allowed-space: shop"
expect_eq 1 "$(jget HeldClusters.len)"
expect_ok cub release applications --space shop -o yaml
expect_contains "$ERR" "Held: cluster prod (OptInRequired)"

section "an annotation for another Space does not opt in either"
hand_commit "argocd/$shop_prod.yaml" "${foreign/namespace: argocd/namespace: argocd
  annotations:
    cub.dev/allowed-space: web}"
unit_v shop 2
expect_ok cub unit update --space shop cfg "$E2E_TMP/cm.yaml"
expect_ok cub release publish shop
expect_ok cub release get --space shop --release 2 -o json
expect_eq prod "$(jget HeldClusters.0.Cluster)"
expect_contains "$(tip_file "argocd/$shop_prod.yaml")" "legacy.git"

section "with cub.dev/allowed-space: shop, cub takes it over"
hand_commit "argocd/$shop_prod.yaml" "${foreign/namespace: argocd/namespace: argocd
  annotations:
    cub.dev/allowed-space: shop}"
unit_v shop 3
expect_ok cub unit update --space shop cfg "$E2E_TMP/cm.yaml"
expect_ok cub release publish shop
expect_ok cub release get --space shop --release 3 -o json
expect_eq 0 "$(jget HeldClusters.len)"
taken=$(tip_file "argocd/$shop_prod.yaml")
expect_contains "$taken" "path: spaces/shop"
expect_contains "$taken" "cub.dev/release: \"3\""
expect_not_contains "$taken" "legacy.git"
expect_contains "$(tip_file argocd/.cub-files)" "$shop_prod.yaml shop"

section "deleting a Space leaves the Application it was held from"
legacy_prod=$(app_name legacy prod)
hand_commit "argocd/$legacy_prod.yaml" "${foreign//$shop_prod/$legacy_prod}"
expect_ok cub space create legacy
unit_v legacy 1
expect_ok cub unit create --space legacy cfg "$E2E_TMP/cm.yaml"
expect_ok cub space update legacy --release-target platform/gitops
expect_ok cub release publish legacy
expect_ok cub release get --space legacy --release 1 -o json
expect_eq prod "$(jget HeldClusters.0.Cluster)"
expect_ok cub space delete legacy
unit_v web 2
expect_ok cub unit update --space web cfg "$E2E_TMP/cm.yaml"
expect_ok cub release publish web
expect_contains "$(tip_file "argocd/$legacy_prod.yaml")" "legacy.git"

section "a cluster dropped from the param loses its Application, others stay"
expect_ok cub target update --space platform gitops \
  --param "clusters=prod=https://prod.example:6443"
unit_v web 3
expect_ok cub unit update --space web cfg "$E2E_TMP/cm.yaml"
expect_ok cub release publish web
[[ -z $(tip_file "argocd/$web_dev.yaml") ]] || e2e_fail "$web_dev.yaml was not removed"
_e2e_pass "argocd/$web_dev.yaml removed"
expect_contains "$(tip_file "argocd/$web_prod.yaml")" "cub.dev/release: \"3\""
expect_contains "$(tip_file "argocd/$shop_dev.yaml")" "cub.dev/space: shop" \
  "another Space's Application"
expect_contains "$(tip_file "argocd/$legacy_prod.yaml")" "legacy.git"
expect_ok cub release applications --space web -o json
expect_eq 1 "$(jget items.len)"

section "a Target without clusters: applications refused, naming the param"
expect_ok cub target create --space platform plain --provider Git \
  --param "repository=$E2E_TMP/plain"
expect_ok cub space create solo
unit_v solo 1
expect_ok cub unit create --space solo cfg "$E2E_TMP/cm.yaml"
expect_ok cub space update solo --release-target platform/plain
expect_ok cub release publish solo
expect_fail 1 "names no clusters: set its param clusters=" cub release applications --space solo

e2e_finish
