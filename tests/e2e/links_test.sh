#!/usr/bin/env bash
# Links that write values and copy resources, through the real binaries: the spec's registrybot
# TransformPaths Link end to end (create from stdin, resolve, --merge-end, refusing to take a
# Link back), the JSON of `cub link get` fed back to create, strict definitions, Insert and
# Upsert, AutoUpdate (on a write, on a function set, for MergeUnits, and a cycle refused), and
# Protect holding a value a Link set against an upgrade.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
e2e_init links
e2e_start_cubd main
export CUB_SERVER=$E2E_SERVER CUB_TOKEN=$ADMIN_TOKEN

registrybot() {  # registrybot TAG: the registrybot Unit of the spec, at TAG
  cat <<YAML
configHub:
  configSchema: registrybot.confighub.com/v1alpha4
  configName: acme
repository: ghcr.io/acme/acme
streams:
  stable:
    tag: $1
    digest: sha256:41aa0c3b5e9d7f2a8c6e1b4d0f3a9c7e5b2d8f6a4c1e9b7d3f0a6c8e2b5d9f1a
YAML
}

deployment() {  # deployment IMAGE-TAG REPLICAS
  cat <<YAML
apiVersion: apps/v1
kind: Deployment
metadata:
  name: acme
spec:
  replicas: $2
  template:
    spec:
      containers:
        - name: acme
          image: ghcr.io/acme/acme:$1  # kept up to date by a Link
YAML
}

tag_link() {  # tag_link [EXTRA-TOP-LEVEL-LINES]: the spec's TransformPaths Link
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
  if (($# > 0)); then printf '%s\n' "$@"; fi
}

link_cursor() {  # link_cursor SPACE LINK
  cub link get --space "$1" "$2" -o json | python3 -c 'import json,sys; print(json.load(sys.stdin)["UpstreamRevisionNum"])'
}

###############################################################################################
section "registrybot: a TransformPaths Link from a Space outside the component"

expect_ok cub space create registry-facts
registrybot v453 >"$E2E_TMP/rb453.yaml"
registrybot v454 >"$E2E_TMP/rb454.yaml"
expect_ok cub unit create --space registry-facts acme "$E2E_TMP/rb453.yaml" --toolchain ConfigHub/YAML
expect_ok cub space create acme-dev
deployment v452 2 >"$E2E_TMP/dep.yaml"
expect_ok cub unit create --space acme-dev deployment "$E2E_TMP/dep.yaml"
tag_link >"$E2E_TMP/tag-link.yaml"
expect_ok cub link create --space acme-dev - deployment acme registry-facts \
  --update-type TransformPaths --from-stdin <"$E2E_TMP/tag-link.yaml"
expect_match "$OUT" '^Link deployment-to-acme created' "link create confirmation"
expect_ok cub link get --space acme-dev deployment-to-acme -o json
expect_eq TransformPaths "$(jget UpdateType)"
expect_eq true "$(jget Protect)"
expect_eq false "$(jget AutoUpdate)"
expect_eq 0 "$(jget UpstreamRevisionNum)" "nothing resolved yet"
expect_eq tag "$(jget UpstreamPaths.0.Name)"
expect_eq streams.stable.tag "$(jget UpstreamPaths.0.Path)"
expect_eq registrybot.confighub.com/v1alpha4 "$(jget UpstreamPaths.0.Resource.ResourceType)"
expect_eq acme "$(jget UpstreamPaths.0.Resource.ResourceName)"
expect_eq '["tag"]' "$(jget DownstreamSetters.0.Parameters)"
expect_eq set-container-image-reference "$(jget DownstreamSetters.0.FunctionInvocation.FunctionName)"
expect_eq ':{{.Params.tag}}' "$(jget DownstreamSetters.0.FunctionInvocation.Arguments.1.Value)"
expect_eq template "$(jget DownstreamSetters.0.FunctionInvocation.Arguments.1.Evaluator)"
LINK_JSON=$OUT
expect_ok cub link get --space acme-dev deployment-to-acme
expect_contains "$OUT" "set-container-image-reference" "link get table shows the setters"

expect_ok cub unit update --space acme-dev deployment --patch --resolve "Link:*"
expect_eq "Unit deployment resolved to revision 2 (Resolved link deployment-to-acme from registry-facts/acme revision 1)" "$OUT"
expect_ok cub unit data --space acme-dev deployment
expect_contains "$OUT" "image: ghcr.io/acme/acme:v453 # kept up to date by a Link" "image set, comment kept"
expect_ok cub revision get --space acme-dev --unit deployment -o json
expect_eq 1 "$(jget UpstreamRevisionNum)" "revision records the upstream revision"
expect_ne "" "$(jget UpstreamUnitID)" "revision records the upstream unit"
expect_eq 1 "$(link_cursor acme-dev deployment-to-acme)" "cursor at the revision resolved"
expect_ok cub unit update --space acme-dev deployment --patch --resolve "Link:*"
expect_eq "Unit deployment unchanged at revision 2: its links are resolved" "$OUT"

section "registrybot moves on: --merge-end, head, and no going back"
expect_ok cub unit update --space registry-facts acme "$E2E_TMP/rb454.yaml"
expect_ok cub unit update --space acme-dev deployment --patch --resolve "Link:*" --merge-end 1
expect_contains "$OUT" "unchanged at revision 2"
expect_ok cub unit data --space acme-dev deployment
expect_contains "$OUT" "ghcr.io/acme/acme:v453" "--merge-end 1 keeps v453"
expect_ok cub unit update --space acme-dev deployment --patch \
  --resolve "Link:UpdateType = 'TransformPaths' AND Slug LIKE 'deployment-%'"
expect_contains "$OUT" "resolved to revision 3"
expect_ok cub unit data --space acme-dev deployment
expect_contains "$OUT" "ghcr.io/acme/acme:v454" "head takes v454"
expect_eq 2 "$(link_cursor acme-dev deployment-to-acme)" "cursor moved to the head"
expect_fail 1 "would take it back: it has already resolved revision 2" \
  cub unit update --space acme-dev deployment --patch --resolve "Link:*" --merge-end 1
expect_ok cub unit data --space acme-dev deployment
expect_contains "$OUT" "ghcr.io/acme/acme:v454" "a refused resolve leaves the data"
expect_fail 1 "does not exist (its head is 2)" \
  cub unit update --space acme-dev deployment --patch --resolve "Link:*" --merge-end 9
expect_fail 1 "no TransformPaths, Insert or Upsert link matching Slug = 'nope'" \
  cub unit update --space acme-dev deployment --patch --resolve "Link:Slug = 'nope'"
expect_fail 1 "unknown field 'Slugg'" \
  cub unit update --space acme-dev deployment --patch --resolve "Link:Slugg = 'x'"
expect_fail 1 'say which Links, "Link:*"' \
  cub unit update --space acme-dev deployment --patch --resolve "deployment-to-acme"
expect_fail 2 "--patch and --resolve go together" cub unit update --space acme-dev deployment --patch
expect_fail 2 "--patch and --resolve go together" \
  cub unit update --space acme-dev deployment --resolve "Link:*"
expect_fail 2 "cannot be combined" \
  cub unit update --space acme-dev deployment "$E2E_TMP/dep.yaml" --patch --resolve "Link:*"

section "the JSON and YAML of link get are accepted back"
expect_ok cub unit create --space acme-dev deployment2 "$E2E_TMP/dep.yaml"
printf '%s\n' "$LINK_JSON" | expect_ok cub link create --space acme-dev copied deployment2 acme \
  registry-facts --from-stdin
expect_ok cub link get --space acme-dev copied -o json
expect_eq TransformPaths "$(jget UpdateType)" "UpdateType taken from the definition"
expect_eq true "$(jget Protect)"
expect_eq 0 "$(jget UpstreamRevisionNum)" "the cursor is not copied"
expect_eq "$(jget DownstreamSetters "$LINK_JSON")" "$(jget DownstreamSetters)" "same setters"
expect_eq "$(jget UpstreamPaths "$LINK_JSON")" "$(jget UpstreamPaths)" "same paths"
expect_ok cub unit create --space acme-dev deployment3 "$E2E_TMP/dep.yaml"
cub link get --space acme-dev copied -o yaml >"$E2E_TMP/copied.yaml"
expect_ok cub link create --space acme-dev from-yaml deployment3 acme registry-facts \
  --update-type TransformPaths --from-stdin <"$E2E_TMP/copied.yaml"
expect_ok cub unit update --space acme-dev deployment3 --patch --resolve "Link:*"
expect_ok cub unit data --space acme-dev deployment3
expect_contains "$OUT" "ghcr.io/acme/acme:v454"
expect_fail 1 "differs from the definition's UpdateType TransformPaths" \
  cub link create --space acme-dev other deployment3 acme registry-facts --update-type Upsert \
  --from-stdin <"$E2E_TMP/copied.yaml"

section "definitions are strict: unknown fields by path, and links that could not resolve"
expect_ok cub link list --space acme-dev -o json
LINKS_BEFORE=$(jget len)
bad_link() {  # bad_link SUBSTRING [create flags...] <definition
  expect_fail 1 "$1" cub link create --space acme-dev bad deployment3 acme registry-facts \
    --update-type TransformPaths --from-stdin "${@:2}"
}
tag_link "Protectd: true" | bad_link "link definition: Protectd: unknown field; did you mean Protect?"
tag_link | sed 's/FunctionName:/FunctionNam:/' | bad_link \
  "DownstreamSetters[0].FunctionInvocation.FunctionNam: unknown field; did you mean FunctionName?"
tag_link | sed 's/ResourceName:/ResourceNme:/' | bad_link \
  "UpstreamPaths[0].Resource.ResourceNme: unknown field; did you mean ResourceName?"
echo '{"UpstreamPaths": [{"Name": "tag", "Path": "a", "Color": "red"}]}' |
  bad_link "UpstreamPaths[0].Color: unknown field"
echo 'Protect: true' | bad_link "a TransformPaths link needs UpstreamPaths"
bad_link "a TransformPaths link needs UpstreamPaths" </dev/null
tag_link | sed 's/set-container-image-reference/set-container-image-ref/' |
  bad_link "no function named 'set-container-image-ref'"
tag_link | sed 's/Parameters: \[tag\]/Parameters: [tag, digest]/' |
  bad_link "DownstreamSetters[0].Parameters: 'digest' is not the Name of an UpstreamPath (names: tag)"
tag_link | sed 's/^DownstreamSetters:/  - {Name: digest, Path: streams.stable.digest}\nDownstreamSetters:/' |
  bad_link "UpstreamPaths[1].Name: 'digest' is not used by any DownstreamSetter"
tag_link | sed 's/Path: streams.stable.tag/Path: streams..tag/' |
  bad_link "UpstreamPaths[0].Path 'streams..tag'"
tag_link | sed '/Evaluator: template/d' | bad_link "Arguments[1].Value: expected an image reference"
tag_link "AutoUpdate: false" | bad_link "--auto-update contradicts the definition's AutoUpdate: false" \
  --auto-update
echo 'UpstreamPaths: []' | expect_fail 1 "not supported" cub link create --space acme-dev - \
  deployment3 acme registry-facts --update-type Nope --from-stdin
expect_ok cub link list --space acme-dev -o json
expect_eq "$LINKS_BEFORE" "$(jget len)" "no refused link was created"

section "a missing upstream value is a clear error"
cat >"$E2E_TMP/rb-beta.yaml" <<'YAML'
configHub:
  configSchema: registrybot.confighub.com/v1alpha4
  configName: acme
repository: ghcr.io/acme/acme
streams:
  beta:
    tag: v500
YAML
expect_ok cub unit create --space registry-facts acme-beta "$E2E_TMP/rb-beta.yaml" --toolchain ConfigHub/YAML
expect_ok cub unit create --space acme-dev deployment4 "$E2E_TMP/dep.yaml"
expect_ok cub link create --space acme-dev beta deployment4 acme-beta registry-facts \
  --update-type TransformPaths --from-stdin <"$E2E_TMP/tag-link.yaml"
expect_fail 1 "UpstreamPath 'tag': no value at streams.stable.tag in registrybot.confighub.com/v1alpha4 named acme" \
  cub unit update --space acme-dev deployment4 --patch --resolve "Link:*"
expect_eq 0 "$(link_cursor acme-dev beta)" "a failed resolve moves no cursor"

###############################################################################################
section "Insert and Upsert copy resources from the upstream Unit"

configmap() {  # configmap NAME VALUE
  printf 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: %s\ndata:\n  level: %s\n' "$1" "$2"
}
expect_ok cub space create shared
{ configmap settings info; echo ---; configmap flags on; } >"$E2E_TMP/shared1.yaml"
expect_ok cub unit create --space shared configs "$E2E_TMP/shared1.yaml"
expect_ok cub space create app
{ deployment v1 1; echo ---; configmap settings debug; } >"$E2E_TMP/app.yaml"
expect_ok cub unit create --space app inserted "$E2E_TMP/app.yaml"
expect_ok cub unit create --space app upserted "$E2E_TMP/app.yaml"
expect_ok cub link create --space app ins inserted configs shared --update-type Insert
expect_ok cub link create --space app ups upserted configs shared --update-type Upsert
expect_ok cub unit update --space app inserted --patch --resolve "Link:*"
expect_ok cub unit data --space app inserted
expect_contains "$OUT" "name: flags" "Insert adds what the downstream lacks"
expect_contains "$OUT" "level: debug" "Insert leaves an existing resource"
expect_not_contains "$OUT" "level: info"
expect_ok cub unit update --space app upserted --patch --resolve "Link:*"
expect_ok cub unit data --space app upserted
expect_contains "$OUT" "name: flags" "Upsert adds what the downstream lacks"
expect_contains "$OUT" "level: info" "Upsert replaces an existing resource"
expect_not_contains "$OUT" "level: debug"
expect_contains "$OUT" "kind: Deployment" "the downstream's own resource stays"
# Upstream adds a resource and changes one.
{ configmap settings warn; echo ---; configmap flags on; echo ---; configmap extra x; } \
  >"$E2E_TMP/shared2.yaml"
expect_ok cub unit update --space shared configs "$E2E_TMP/shared2.yaml"
expect_ok cub unit update --space app inserted --patch --resolve "Link:*"
expect_ok cub unit data --space app inserted
expect_contains "$OUT" "name: extra" "a resource added upstream arrives (Insert)"
expect_contains "$OUT" "level: debug" "Insert still leaves the changed one"
expect_ok cub unit update --space app upserted --patch --resolve "Link:Slug = 'ups'"
expect_ok cub unit data --space app upserted
expect_contains "$OUT" "name: extra" "a resource added upstream arrives (Upsert)"
expect_contains "$OUT" "level: warn" "Upsert takes the changed one"
expect_eq 2 "$(link_cursor app ups)" "Upsert cursor"
expect_fail 1 "only TransformPaths links have UpstreamPaths" cub link create --space app - \
  inserted configs shared --update-type Upsert --from-stdin <"$E2E_TMP/tag-link.yaml"

###############################################################################################
section "AutoUpdate: the downstream follows a write of its upstream"

expect_ok cub space create auto
expect_ok cub unit create --space auto follower "$E2E_TMP/dep.yaml"
tag_link "AutoUpdate: true" | expect_ok cub link create --space auto follow follower acme \
  registry-facts --update-type TransformPaths --from-stdin
expect_ok cub link get --space auto follow -o json
expect_eq true "$(jget AutoUpdate)"
expect_ok cub unit data --space auto follower
expect_contains "$OUT" "ghcr.io/acme/acme:v452" "creating the link writes nothing"
registrybot v455 >"$E2E_TMP/rb455.yaml"
expect_ok cub unit update --space registry-facts acme "$E2E_TMP/rb455.yaml"
expect_ok cub unit data --space auto follower
expect_contains "$OUT" "ghcr.io/acme/acme:v455" "followed with no command"
expect_eq 3 "$(link_cursor auto follow)" "AutoUpdate cursor"
expect_ok cub revision get --space auto --unit follower -o json
expect_contains "$(jget Description)" "Auto-updated through link follow from registry-facts/acme revision 3"
expect_ok cub unit data --space acme-dev deployment
expect_contains "$OUT" "ghcr.io/acme/acme:v454" "a Link without AutoUpdate waits"

section "AutoUpdate after a function set, and for MergeUnits"
expect_ok cub unit create --space auto settings-copy "$E2E_TMP/shared2.yaml"
expect_ok cub link create --space auto - settings-copy configs shared --update-type Upsert --auto-update
expect_ok cub function set --space shared --unit configs -- set-path data.level error --resource ConfigMap/settings
expect_ok cub unit data --space auto settings-copy
expect_contains "$OUT" "level: error" "function set upstream reached the AutoUpdate Upsert"
expect_ok cub space create merge-base
deployment v1 1 >"$E2E_TMP/mb1.yaml"
deployment v1 4 >"$E2E_TMP/mb2.yaml"
expect_ok cub unit create --space merge-base web "$E2E_TMP/mb1.yaml"
expect_ok cub unit create --space auto merged "$E2E_TMP/mb1.yaml"
expect_ok cub link create --space auto - merged web merge-base --update-type MergeUnits \
  --auto-update --upstream-revision-num 1
expect_ok cub unit update --space merge-base web "$E2E_TMP/mb2.yaml"
expect_ok cub unit data --space auto merged
expect_contains "$OUT" "replicas: 4" "MergeUnits AutoUpdate merged the upstream change"

section "AutoUpdate needs no role downstream, down a chain either"
BOB_TOKEN=$(create_user bob)
as_bob() { env CUB_TOKEN="$BOB_TOKEN" "$@"; }
expect_ok cub space create bob-facts
expect_ok cub space grant bob-facts editor --user bob
expect_ok cub unit create --space bob-facts acme "$E2E_TMP/rb453.yaml" --toolchain ConfigHub/YAML
expect_ok cub space create mid
expect_ok cub unit create --space mid deployment "$E2E_TMP/dep.yaml"
tag_link "AutoUpdate: true" | expect_ok cub link create --space mid - deployment acme bob-facts \
  --update-type TransformPaths --from-stdin
expect_ok cub space create tail
expect_ok cub unit create --space tail deployment "$E2E_TMP/dep.yaml"
expect_ok cub link create --space tail - deployment deployment mid --update-type MergeUnits \
  --auto-update --upstream-revision-num 1
expect_ok as_bob cub unit update --space bob-facts acme "$E2E_TMP/rb455.yaml"
expect_fail 1 "not found" as_bob cub unit get --space tail deployment
expect_ok cub unit data --space mid deployment
expect_contains "$OUT" "ghcr.io/acme/acme:v455" "the first follower took bob's tag"
expect_ok cub unit data --space tail deployment
expect_contains "$OUT" "ghcr.io/acme/acme:v455" "and the second merged it"
expect_ok cub revision get --space tail --unit deployment -o json
expect_eq bob "$(jget Author)" "the writer authors the followers' revisions"

section "a chain of AutoUpdate Links that leads back is refused"
envdep() {  # envdep NAME VALUE
  cat <<YAML
apiVersion: apps/v1
kind: Deployment
metadata:
  name: $1
spec:
  template:
    spec:
      containers:
        - name: app
          image: app:v1
          env:
            - name: V
              value: "$2"
YAML
}
echo_link() {  # echo_link OTHER: V := "x" + the other Deployment's V
  cat <<YAML
AutoUpdate: true
UpstreamPaths:
  - Name: v
    Path: spec.template.spec.containers.name=app.env.name=V.value
    Resource: {ResourceType: apps/v1/Deployment, ResourceName: $1}
DownstreamSetters:
  - Parameters: [v]
    FunctionInvocation:
      FunctionName: set-env-var
      Arguments:
        - {ParameterName: container-name, Value: app}
        - {ParameterName: var, Value: V}
        - {ParameterName: value, Value: "x{{ .Params.v }}", Evaluator: template}
YAML
}
expect_ok cub space create loop
envdep ping a >"$E2E_TMP/ping.yaml"
envdep pong b >"$E2E_TMP/pong.yaml"
expect_ok cub unit create --space loop ping "$E2E_TMP/ping.yaml"
expect_ok cub unit create --space loop pong "$E2E_TMP/pong.yaml"
echo_link pong | expect_ok cub link create --space loop - ping pong --update-type TransformPaths --from-stdin
echo_link ping | expect_ok cub link create --space loop - pong ping --update-type TransformPaths --from-stdin
envdep ping c >"$E2E_TMP/ping2.yaml"
expect_fail 1 "a chain of AutoUpdate links probably leads back to where it started" \
  cub unit update --space loop ping "$E2E_TMP/ping2.yaml"
expect_ok cub unit get --space loop ping -o json
expect_eq 1 "$(jget Unit.HeadRevisionNum)" "the refused write wrote nothing"

###############################################################################################
section "Protect holds what a Link set against an upgrade"

expect_ok cub space create acme-base
expect_ok cub unit create --space acme-base deployment "$E2E_TMP/dep.yaml"
expect_ok cub link create --space acme-base tag deployment acme registry-facts \
  --update-type TransformPaths --from-stdin <"$E2E_TMP/tag-link.yaml"
expect_ok cub unit update --space acme-base deployment --patch --resolve "Link:*" --merge-end 1
expect_ok cub variant create acme-stg acme-base --stage Staging
expect_ok cub variant create acme-qa acme-base --stage QA
expect_ok cub unit data --space acme-stg deployment
expect_contains "$OUT" "ghcr.io/acme/acme:v453" "the variant starts at the base's tag"
# Each variant takes the tag through a Link of its own; stg's holds (Protect), qa's does not.
expect_ok cub link create --space acme-stg tag deployment acme registry-facts \
  --update-type TransformPaths --from-stdin <"$E2E_TMP/tag-link.yaml"
sed 's/^Protect: true/Protect: false/' "$E2E_TMP/tag-link.yaml" >"$E2E_TMP/tag-link-open.yaml"
expect_ok cub link create --space acme-qa tag deployment acme registry-facts \
  --update-type TransformPaths --from-stdin <"$E2E_TMP/tag-link-open.yaml"
expect_ok cub unit update --space acme-stg deployment --patch --resolve "Link:*" --merge-end 1
expect_contains "$OUT" "unchanged" "stg already had v453"
expect_ok cub unit update --space acme-qa deployment --patch --resolve "Link:*" --merge-end 1
# The base moves to the registry's head and changes replicas.
expect_ok cub unit update --space acme-base deployment --patch --resolve "Link:*"
expect_ok cub unit data --space acme-base deployment
sed 's/replicas: 2/replicas: 6/' <<<"$OUT" >"$E2E_TMP/base-6.yaml"
expect_ok cub unit update --space acme-base deployment "$E2E_TMP/base-6.yaml"
expect_ok cub unit update --space acme-stg deployment --upgrade --squash
expect_contains "$OUT" "withheld"
expect_ok cub unit data --space acme-stg deployment
expect_contains "$OUT" "ghcr.io/acme/acme:v453" "Protect held the tag the Link set"
expect_contains "$OUT" "replicas: 6" "the rest of the upgrade landed"
expect_ok cub unit conflicts --space acme-stg deployment -o json
expect_eq ProtectedPath "$(jget 0.Reason)"
expect_eq "apps/v1/Deployment//acme:spec.template.spec.containers.name=acme.image" "$(jget 0.Path)"
expect_eq '"ghcr.io/acme/acme:v455"' "$(jget 0.UpstreamValue)"
expect_ok cub unit update --space acme-qa deployment --upgrade --squash
expect_ok cub unit data --space acme-qa deployment
expect_contains "$OUT" "ghcr.io/acme/acme:v455" "without Protect the upgrade carries the base's tag"
# stg takes the new tag through its own Link, in its own time.
expect_ok cub unit update --space acme-stg deployment --patch --resolve "Link:*"
expect_ok cub unit data --space acme-stg deployment
expect_contains "$OUT" "ghcr.io/acme/acme:v455"

e2e_finish
