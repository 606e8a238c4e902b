#!/usr/bin/env bash
# Renders deploy/kubernetes with `kubectl kustomize` (Debian's kubernetes-client, or $KUBECTL)
# and checks the objects with kube_manifest_check.py against this build's `cubd serve --help`
# and `cubd migrate --help`. Then proves the check can fail: each mutation below, applied to a
# copy of the manifests, must be refused with the message given.
#
# Usage: kube_manifests_test.sh SOURCE_DIR CUBD_BINARY
set -euo pipefail
src=${1:?usage: kube_manifests_test.sh SOURCE_DIR CUBD_BINARY}
cubd=${2:?usage: kube_manifests_test.sh SOURCE_DIR CUBD_BINARY}
kubectl=${KUBECTL:-kubectl}
command -v "$kubectl" >/dev/null ||
  { echo "kubectl not found: install kubernetes-client (deploy/local/install-deps.sh)" >&2; exit 1; }
check=$(dirname "${BASH_SOURCE[0]}")/kube_manifest_check.py
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

"$cubd" serve --help >"$work/serve.help"
"$cubd" migrate --help >"$work/migrate.help"

# render_and_check DIR: kustomize DIR, then check it; the check's output is in $work/out.
render_and_check() {
  "$kubectl" kustomize "$1" >"$work/rendered.yaml" 2>"$work/kustomize.err" || {
    cat "$work/kustomize.err" >&2
    return 2
  }
  python3 "$check" "$work/rendered.yaml" "$1/secrets" "$work/serve.help" "$work/migrate.help" \
    "$src/tests/testdata/cnpg/cluster-crd.yaml" >"$work/out" 2>&1
}

render_and_check "$src/deploy/kubernetes" || { cat "$work/out"; exit 1; }
cat "$work/out"
echo "rendered $(grep -c '^kind: ' "$work/rendered.yaml") objects"

# mutate FILE SED_EXPR EXPECTED: the check must fail on the edited copy, saying EXPECTED.
mutations=0
mutate() {
  local file=$1 expr=$2 expected=$3 copy=$work/copy
  rm -rf "$copy" && cp -r "$src/deploy/kubernetes" "$copy"
  sed -i -e "$expr" "$copy/$file"
  if cmp -s "$copy/$file" "$src/deploy/kubernetes/$file"; then
    echo "mutation '$expr' changed nothing in $file" >&2
    exit 1
  fi
  if render_and_check "$copy"; then
    echo "the check passed manifests with '$expr' in $file" >&2
    exit 1
  fi
  if ! grep -qF -- "$expected" "$work/out"; then
    echo "the check refused '$expr' in $file, but not with '$expected':" >&2
    cat "$work/out" >&2
    exit 1
  fi
  mutations=$((mutations + 1))
}

mutate kustomization.yaml 's/CUBD_THREADS=/CUBD_THREADZ=/' '--threadz is not a flag'
mutate kustomization.yaml 's/CUBD_DRAIN_DELAY=15/CUBD_DRAIN_DELAY=5/' 'shorter than the readiness'
mutate deployment.yaml 's/--no-create-signing-key/--no-create-signing-keys/' \
  '--no-create-signing-keys is not a flag'
mutate migrate-job.yaml 's/- --database-url/- --database-uri/' '--database-uri is not a flag'
mutate migrate-job.yaml 's/cub_owner@/cubd@/' 'not as the owner'
mutate deployment.yaml 's/replicas: 3/replicas: 2/' 'replicas 2, expected 3'
mutate deployment.yaml 's|path: /readyz|path: /ready|' 'asks for /ready'
mutate deployment.yaml 's/containerPort: 7071/containerPort: 7072/' "is not --http-listen's"
mutate deployment.yaml 's/readOnlyRootFilesystem: true/readOnlyRootFilesystem: false/' \
  'readOnlyRootFilesystem is not true'
mutate deployment.yaml 's/drop: \["ALL"\]/drop: ["NET_RAW"]/' 'do not drop ALL'
mutate deployment.yaml 's/type: RuntimeDefault/type: Unconfined/' 'expected RuntimeDefault'
mutate deployment.yaml 's/terminationGracePeriodSeconds: 60/terminationGracePeriodSeconds: 30/' \
  'leaves no time'
mutate deployment.yaml 's/topology.kubernetes.io\/zone/example.com\/rack/' \
  'no topologySpreadConstraint over topology.kubernetes.io/zone'
mutate deployment.yaml 's/key: signing-key.pem/key: signing.pem/' 'has no key signing.pem'
mutate deployment.yaml '/secretName: cubd-signing-key/{n;s/0440/0444/}' 'lets others read it'
mutate deployment.yaml 's|mountPath: /etc/cub/tls$|mountPath: /etc/cub/certs|' 'is on no volume'
mutate poddisruptionbudget.yaml 's/component: server/component: api/' \
  'PodDisruptionBudget: selector does not match'
mutate networkpolicy.yaml '0,/port: 7071/s//port: 7072/' 'ingress opens ports'
mutate networkpolicy.yaml '0,/values: \["cub-db"\]/s//values: ["cub-pg"]/' \
  'no egress to PostgreSQL'
mutate postgres-cluster.yaml 's/- cub_runtime/- cub_nobody/' 'which is not a login role'
mutate postgres-cluster.yaml 's/inRoles:/memberOf:/' "'memberOf' was unexpected"
echo "kube_manifests_test: ok (the check refused all $mutations mutations)"
