#!/usr/bin/env bash
# Saved Invocations through the real binaries: create with declared parameters and a template
# argument, run with values, and the refusals for missing, undeclared and mistyped parameters.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
e2e_init invocation
e2e_start_cubd main
export CUB_SERVER=$E2E_SERVER CUB_TOKEN=$ADMIN_TOKEN

expect_ok cub space create platform
expect_ok cub space create app
cat >"$E2E_TMP/web.yaml" <<'YAML'
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 2
  template:
    spec:
      containers:
        - name: web
          image: ghcr.io/acme/acme:v452
YAML
expect_ok cub unit create --space app web "$E2E_TMP/web.yaml"

section "create"
expect_ok cub invocation create --space platform set-image Kubernetes/YAML \
  --parameter tag:string:true -- set-image-reference-by-uri \
  --repository-uri=ghcr.io/acme/acme '--image-reference=template:{{ .Params.tag }}'
expect_ok cub invocation get --space platform set-image -o json
expect_eq set-image-reference-by-uri "$(jget FunctionName)"
expect_eq tag "$(jget Parameters.0.Name)"
expect_ok cub invocation list --space platform
expect_contains "$OUT" "set-image"
expect_fail 1 "not declared" cub invocation create --space platform bad Kubernetes/YAML \
  -- set-replicas 'template:{{ .Params.n }}'
expect_fail 1 "use {{ .Params.NAME }}" cub invocation create --space platform bad Kubernetes/YAML \
  --parameter n:int:true -- set-replicas 'template:{{ .Values.n }}'
expect_fail 1 "no function named" cub invocation create --space platform bad Kubernetes/YAML -- nope
expect_fail 2 "NAME:TYPE:REQUIRED" cub invocation create --space platform bad Kubernetes/YAML \
  --parameter n:int:maybe -- set-replicas 3
expect_fail 1 "already exists" cub invocation create --space platform set-image Kubernetes/YAML \
  -- set-replicas 3

section "run"
expect_fail 1 "needs parameter 'tag'" cub function set --space app --unit web --invocation platform/set-image
expect_ok cub unit get --space app web -o json
expect_eq 1 "$(jget Unit.HeadRevisionNum)" "refused run wrote nothing"
expect_fail 1 "has no parameter 'tga'" cub function set --space app --unit web \
  --invocation platform/set-image --param tga=:v453
expect_ok cub function set --space app --unit web --invocation platform/set-image --param tag=:v453
expect_contains "$OUT" "Wrote web (revision 2)"
expect_ok cub unit data --space app web
expect_contains "$OUT" "image: ghcr.io/acme/acme:v453"
expect_fail 1 "not found" cub function set --space app --unit web --invocation platform/nope --param tag=x
expect_fail 2 "" cub function set --space app --unit web --invocation platform/set-image -- set-replicas 3

section "typed parameters"
expect_ok cub invocation create --space platform scale Kubernetes/YAML \
  --parameter replicas:int:true -- set-replicas 'template:{{.Params.replicas}}'
expect_fail 1 "is an int" cub function set --space app --unit web --invocation platform/scale --param replicas=many
expect_ok cub function set --space app --unit web --invocation platform/scale --param replicas=4
expect_ok cub function get --space app --unit web -o json -- get-replicas
expect_eq 4 "$(jget Units.0.Values.0.Value)"

e2e_finish
