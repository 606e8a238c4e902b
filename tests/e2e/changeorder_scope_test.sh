#!/usr/bin/env bash
# What a ChangeOrder fixes at creation, through the real binaries: its scope from a selection
# (--where-space-field, --component, --space-filter) and --refresh-spaces; its end at a closed
# ChangeSet's end Tag (an open one refused); Units cloned into a variant that lacks them; and a
# MergeUnits ChangeOrder into a Space that is not a variant.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
e2e_init changeorder_scope
e2e_start_cubd main
export CUB_SERVER=$E2E_SERVER CUB_TOKEN=$ADMIN_TOKEN

deployment() {  # deployment IMAGE-TAG REPLICAS
  cat <<YAML
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: $2
  template:
    spec:
      containers:
        - name: web
          image: ghcr.io/acme/web:$1
YAML
}
in_scope() {  # in_scope SPACE CHANGEORDER: the number of in-scope Spaces
  local json
  json=$(cub changeorder get --space "$1" "$2" -o json) && jget InScopeSpaceIDs.len "$json"
}

expect_ok cub space create acme-base --component acme
deployment v1 2 >"$E2E_TMP/v1.yaml"
expect_ok cub unit create --space acme-base web "$E2E_TMP/v1.yaml"
expect_ok cub variant create acme-dev acme-base --stage Development
expect_ok cub variant create acme-stg acme-base --stage Staging
expect_ok cub variant create acme-prod acme-base --stage Production
expect_ok cub space create platform
expect_ok cub filter create --space platform dev-only Space --where-field "Slug = 'acme-dev'"
expect_ok cub function set --space acme-base --unit web -- set-replicas 3

section "scope from a selection"
expect_ok cub changeorder create --space acme-base early --description x \
  --where-space-field "Labels.Stage IN ('Development', 'Staging')"
expect_eq 3 "$(in_scope acme-base early)"
expect_ok cub changeorder get --space acme-base early -o json
expect_eq "(Labels.Stage IN ('Development', 'Staging'))" "$(jget WhereSpace)"
expect_ok cub changeorder create --space acme-base prod-only --description x --component acme \
  --where-space-field "Labels.Stage = 'Production'"
expect_eq 2 "$(in_scope acme-base prod-only)"
expect_ok cub changeorder create --space acme-base by-filter --description x \
  --space-filter platform/dev-only
expect_eq 2 "$(in_scope acme-base by-filter)"
expect_fail 1 "unknown field 'Stag'" cub changeorder create --space acme-base bad --description x \
  --where-space-field "Stag = 'x'"
expect_fail 1 "not found" cub changeorder create --space acme-base bad --description x \
  --space-filter platform/nope
expect_ok cub changeorder create --space acme-base everywhere --description x
expect_eq 4 "$(in_scope acme-base everywhere)"
# A Space that matches later is taken in only on --refresh-spaces.
expect_ok cub variant create acme-dev2 acme-base --stage Development
expect_eq 3 "$(in_scope acme-base early)"
expect_ok cub changeorder update --space acme-base early --refresh-spaces
expect_eq 4 "$(in_scope acme-base early)"
expect_ok cub variant promote acme-dev2 --change-order acme-base/early -o json
expect_eq AlreadyHadChange "$(jget Spaces.0.Units.0.Action)"

section "ListChangeOrders' View: Basic leaves the Space ID lists out, Full (default) keeps them"
# list_cos QUERY...: ListChangeOrders of acme-base's 'early' over REST (GET, query parameters),
# status in CODE, the ChangeOrder in OUT.
list_cos() {
  run curl -sS -o "$E2E_TMP/rest.body" -w '%{http_code}' -H "Authorization: Bearer $ADMIN_TOKEN" \
    "http://$E2E_HTTP/v1/ChangeOrderService/ListChangeOrders?Space=acme-base&$1"
  CODE=$OUT
  OUT=$(cat "$E2E_TMP/rest.body")
}
ids() { jget "ChangeOrders.0.$1.len" || echo 0; }  # ids FIELD: how many IDs the list holds
dev2=$(jget SpaceID "$(cub space get acme-dev2 -o json)")
expect_match "$dev2" '^[0-9a-f-]{36}$' "acme-dev2's ID"
early="Options.Where=Slug%20%3D%20'early'"
for view in "" "&View=Full"; do
  list_cos "$early$view"
  expect_eq 200 "$CODE" "View '${view#&View=}' status"
  expect_eq 4 "$(ids InScopeSpaceIDs)" "View '${view#&View=}': InScopeSpaceIDs"
  expect_ne 0 "$(ids ResolvedSpaceIDs)" "View '${view#&View=}': ResolvedSpaceIDs"
done
list_cos "$early&View=Basic"
expect_eq 200 "$CODE" "View Basic status"
expect_eq early "$(jget ChangeOrders.0.Slug)" "View Basic lists it"
expect_eq 0 "$(ids InScopeSpaceIDs)" "View Basic: no InScopeSpaceIDs"
expect_eq 0 "$(ids ResolvedSpaceIDs)" "View Basic: no ResolvedSpaceIDs"
expect_eq acme-base/early "$(jget ChangeOrders.0.SpaceSlug)/$(jget ChangeOrders.0.Slug)"
# Where sees the whole ChangeOrder in either view.
list_cos "Options.Where=InScopeSpaceIDs%20%3F%20'$dev2'&View=Basic"
expect_eq early "$(jget ChangeOrders | python3 -c \
  'import json,sys; print(",".join(c["Slug"] for c in json.load(sys.stdin)))')" \
  "Basic, where InScopeSpaceIDs holds acme-dev2"
# Basic answers what Full does less the lists, for every ChangeOrder and whatever Where
# names: a Where on an ID list is matched over a full read, on other fields over the Basic one.
expect_basic_as_full acme-base
expect_contains "$OUT" "InProgress" "States in a Basic list"
expect_contains "$OUT" "New" "States in a Basic list"
expect_basic_as_full acme-base "ResolvedSpaceIDs ? '$dev2'"
expect_eq InProgress "$OUT" "Basic, where ResolvedSpaceIDs holds acme-dev2"
expect_basic_as_full acme-base "InScopeSpaceIDs ? '$dev2' AND State = 'New'"
expect_basic_as_full acme-base "ReleasedSpaceIDs ? '$dev2'"
expect_eq "" "$OUT" "Basic, where ReleasedSpaceIDs holds acme-dev2 (none released)"
expect_basic_as_full "" "State = 'InProgress' OR Slug = 'everywhere'"
list_cos "View=Short"
expect_eq 400 "$CODE" "an unknown View"
expect_contains "$(jget message)" "unknown View 'Short'; use Basic or Full"

section "a Unit the variant lacks is cloned at the start and the change replayed"
expect_ok cub unit delete --space acme-stg web
expect_ok cub variant promote acme-stg --change-order acme-base/early -o json
expect_eq Added "$(jget Spaces.0.Units.0.Action)"
expect_eq 2 "$(jget Spaces.0.Units.0.RevisionsWritten)"
expect_ok cub unit data --space acme-stg web
expect_contains "$OUT" "replicas: 3"
expect_ok cub link list --space acme-stg -o json
expect_eq 1 "$(jget len)"
# A Unit the base made for itself is cloned only with --prior-revisions All.
printf 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cache\n' >"$E2E_TMP/cache.yaml"
expect_ok cub unit create --space acme-base cache "$E2E_TMP/cache.yaml"
expect_ok cub changeorder create --space acme-base with-cache --description x \
  --prior-revisions All --in-scope-space acme-dev
expect_ok cub changeorder get --space acme-base with-cache -o json
expect_contains "$(jget SkippedUnits)" "no Space in scope follows it"
expect_ok cub variant promote acme-dev --change-order acme-base/with-cache -o json
expect_contains "$OUT" '"Action": "Added"'
expect_ok cub unit get --space acme-dev cache

section "an end at a ChangeSet's end Tag, only once it is closed"
expect_ok cub changeset create --space acme-base cs1
deployment v2 3 >"$E2E_TMP/v2.yaml"
expect_ok cub unit update --space acme-base web "$E2E_TMP/v2.yaml" --changeset cs1
expect_fail 1 "change set 'cs1' is still open" cub changeorder create --space acme-base v2 \
  --description x --end-tag acme-base/cs1-end
expect_fail 1 "unit 'web' is in change set 'cs1', which is still open" \
  cub changeorder create --space acme-base v2 --description x
expect_ok cub changeset close --space acme-base cs1
expect_ok cub changeorder create --space acme-base v2 --description x --end-tag cs1-end \
  --in-scope-space acme-prod
deployment v3 3 >"$E2E_TMP/v3.yaml"
expect_ok cub unit update --space acme-base web "$E2E_TMP/v3.yaml"
expect_ok cub variant promote acme-prod --change-order acme-base/v2
expect_ok cub unit data --space acme-prod web
expect_contains "$OUT" "web:v2"
expect_not_contains "$OUT" "web:v3"

section "MergeUnits: a Space that merges from the base without being its variant"
expect_ok cub space create consumer
expect_ok cub unit create --space consumer web "$E2E_TMP/v1.yaml"
expect_ok cub link create web-merge web web acme-base --space consumer --update-type MergeUnits \
  --upstream-revision-num 4
expect_ok cub function set --space acme-base --unit web -- set-replicas 7
expect_ok cub changeorder create --space acme-base merge-7 --description x --update-type MergeUnits
expect_eq 2 "$(in_scope acme-base merge-7)"
expect_ok cub variant promote consumer --change-order acme-base/merge-7 -o json
expect_eq Upgraded "$(jget Spaces.0.Units.0.Action)"
expect_ok cub unit data --space consumer web
expect_contains "$OUT" "replicas: 7"
expect_contains "$OUT" "web:v1"
expect_fail 2 "Merge not in {UpgradeUnit,MergeUnits,Invoke,TransformPaths,Insert,Upsert}" cub changeorder create --space acme-base x \
  --description x --update-type Merge

e2e_finish
