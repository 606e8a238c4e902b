#!/usr/bin/env bash
# Refusals name request fields as the API spells them, for every caller: a REST caller reads
# "Force needs ForceReason", never a flag it has no way to pass, while cub prints the same
# refusal with its own flags ("--force needs --force-reason"), as it always has.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
e2e_init field_names
e2e_start_cubd main
export CUB_SERVER=$E2E_SERVER CUB_TOKEN=$ADMIN_TOKEN

# rest PATH JSON: POSTs the body; sets OUT (body) and HTTP_CODE.
rest() {
  printf '%s' "$2" >"$E2E_TMP/rest.json"
  run curl -sS -o "$E2E_TMP/rest.body" -w '%{http_code}' -X POST \
    -H "Authorization: Bearer $ADMIN_TOKEN" --data-binary "@$E2E_TMP/rest.json" "http://$E2E_HTTP$1"
  ((RC == 0)) || e2e_fail "curl failed"
  HTTP_CODE=$OUT
  OUT=$(cat "$E2E_TMP/rest.body")
}

expect_ok cub space create wb
printf 'a=1\n' >"$E2E_TMP/u1.txt"
expect_ok cub unit create --space wb u1 "$E2E_TMP/u1.txt" --toolchain AppConfig/Text

section "a REST caller gets the API's field names"
rest /v1/ChangeOrderService/Promote '{"ChangeOrder":"wb/nope","Force":true}'
expect_eq 400 "$HTTP_CODE" "Force without ForceReason"
expect_eq "Force needs ForceReason, which is recorded" "$(jget message)"
rest /v1/ChangeOrderService/Promote '{"ChangeOrder":"wb/nope","PriorRevisions":"Most"}'
expect_eq 400 "$HTTP_CODE" "unknown PriorRevisions"
expect_eq "PriorRevisions 'Most' is not one of Include, Skip, Error, All" "$(jget message)"
rest /v1/UnitService/UpdateUnit \
  '{"Space":"wb","Unit":"u1","Upgrade":true,"ChangeOrder":"wb/nope","MergeEnd":2}'
expect_eq 400 "$HTTP_CODE" "ChangeOrder with MergeEnd"
expect_eq "ChangeOrder supplies the range to merge: drop MergeSource, MergeBase, MergeEnd and Squash" \
  "$(jget message)"
rest /v1/ReleaseService/SetReleaseStatus '{"Space":"wb","Release":1,"Sync":"Fine","Health":"Healthy"}'
expect_eq 400 "$HTTP_CODE" "unknown Sync"
expect_eq "Sync 'Fine' is not one of Synced, OutOfSync, Unknown" "$(jget message)"
expect_not_contains "$OUT" "--sync"

section "cub prints the same refusal with its flags"
expect_fail 1 "Failed: --change-order supplies the range to merge: drop --merge-source, --merge-base, --merge-end and --squash" \
  cub unit update --space wb u1 --upgrade --change-order wb/nope --merge-end 2

e2e_finish
