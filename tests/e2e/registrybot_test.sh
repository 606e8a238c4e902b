#!/usr/bin/env bash
# A rollout from a source outside the component, through the real binaries: the registrybot
# example. A registry-facts Unit in its own Space, TransformPaths Links from each variant's
# deployment, a ChangeOrder of the Links' type, and the source moving ahead mid-rollout while
# the later stage still takes the ChangeOrder's end value.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
e2e_init registrybot
e2e_start_cubd main
export CUB_SERVER=$E2E_SERVER CUB_TOKEN=$ADMIN_TOKEN

registrybot() {  # registrybot TAG
  cat <<YAML
configHub:
  configSchema: registrybot.confighub.com/v1alpha4
  configName: acme
repository: ghcr.io/acme/acme
streams:
  stable:
    tag: $1
YAML
}
deployment() {
  cat <<'YAML'
apiVersion: apps/v1
kind: Deployment
metadata:
  name: acme
spec:
  template:
    spec:
      containers:
        - name: acme
          image: ghcr.io/acme/acme:v452
YAML
}
tag_link() {
  cat <<'YAML'
Protect: true
UpstreamPaths:
  - Name: tag
    Path: streams.stable.tag
    Resource:
      ResourceType: registrybot.confighub.com/v1alpha4
      ResourceName: acme
DownstreamSetters:
  - Parameters: [tag]
    FunctionInvocation:
      FunctionName: set-container-image-reference
      Arguments:
        - ParameterName: container-name
          Value: acme
        - ParameterName: image-reference
          Value: ":{{.Params.tag}}"
          Evaluator: template
YAML
}
image() {  # image SPACE: the image the deployment of SPACE runs
  local out
  out=$(cub unit data --space "$1" deployment) && grep -o 'acme:v[0-9]*' <<<"$out"
}

section "setup: the source, two stages, TransformPaths Links resolved at v453"
expect_ok cub space create registry-facts
registrybot v453 >"$E2E_TMP/rb.yaml"
expect_ok cub unit create --space registry-facts acme "$E2E_TMP/rb.yaml" --toolchain ConfigHub/YAML
expect_ok cub space create acme-workflows
expect_ok cub changeworkflow create --space acme-workflows main --stage Development \
  --stage Production
expect_ok cub space create acme-base --component acme
deployment >"$E2E_TMP/d.yaml"
expect_ok cub unit create --space acme-base deployment "$E2E_TMP/d.yaml"
for st in Development Production; do
  s="acme-${st,,}"
  expect_ok cub variant create "$s" acme-base --stage "$st"
  tag_link | expect_ok cub link create --space "$s" - deployment acme registry-facts \
    --update-type TransformPaths --from-stdin
  expect_ok cub unit update --space "$s" deployment --patch --resolve "Link:*"
  expect_eq acme:v453 "$(image "$s")"
done

section "a new tag, named by a ChangeOrder of the Links' type"
registrybot v454 >"$E2E_TMP/rb2.yaml"
expect_ok cub unit update --space registry-facts acme "$E2E_TMP/rb2.yaml"
expect_fail 1 "needs its Spaces in scope" cub changeorder create --space acme-base x \
  --description x --update-type TransformPaths
expect_ok cub changeorder create --space acme-base acme-stable-v454 \
  --description "acme stable is v454" --update-type TransformPaths --component acme \
  --change-workflow acme-workflows/main
expect_ok cub changeorder get --space acme-base acme-stable-v454 -o json
expect_contains "$(jget SkippedUnits.0.Reason)" "a source"
expect_eq 3 "$(jget InScopeSpaceIDs.len)"
expect_ok cub variant promote --change-order acme-base/acme-stable-v454 -o json
expect_eq Resolved "$(jget Spaces.0.Units.0.Action)"
expect_eq acme:v454 "$(image acme-development)"
expect_eq acme:v453 "$(image acme-production)"

section "the source moves ahead mid-rollout; the later stage still takes the end value"
registrybot v455 >"$E2E_TMP/rb3.yaml"
expect_ok cub unit update --space registry-facts acme "$E2E_TMP/rb3.yaml"
expect_ok cub variant promote --change-order acme-base/acme-stable-v454
expect_contains "$OUT" "into stage Production"
expect_eq acme:v454 "$(image acme-production)"
expect_ok cub changeorder get --space acme-base acme-stable-v454 -o json
expect_eq 2 "$(jget ResolvedSpaceIDs.len)"
expect_ok cub unit data --space registry-facts acme
expect_contains "$OUT" "tag: v455"

section "refusals: an AutoUpdate Link, a Link resolved past the end"
expect_ok cub unit update --space acme-development deployment --patch --resolve "Link:*"
expect_eq acme:v455 "$(image acme-development)"
expect_ok cub tag create --space registry-facts early
expect_ok cub unit tag registry-facts/early --space registry-facts --unit acme --revision 2
expect_fail 1 "has already resolved revision 3" cub changeorder create --space acme-base late \
  --description x --update-type TransformPaths --in-scope-space acme-development \
  --end-tag registry-facts/early
expect_ok cub space create acme-auto --label Stage=Auto
expect_ok cub unit create --space acme-auto deployment "$E2E_TMP/d.yaml"
tag_link | expect_ok cub link create --space acme-auto - deployment acme registry-facts \
  --update-type TransformPaths --auto-update --from-stdin
expect_fail 1 "is AutoUpdate" cub changeorder create --space acme-base auto --description x \
  --update-type TransformPaths --in-scope-space acme-auto

e2e_finish
