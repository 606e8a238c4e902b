#!/usr/bin/env bash
# The CLI's habits through real cub and cubd: `cub version` / `cub --version`, the output flags
# (--json, --jq, --names, --no-header), `--label a=b,c=d`, `--timeout 2m`, BASE/NAME for a
# ChangeOrder, `release set-status --latest`, and `cub completion bash|zsh`.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
e2e_init cli_flags
e2e_start_cubd main
export CUB_SERVER=$E2E_SERVER CUB_TOKEN=$ADMIN_TOKEN

section "version: client and server, without a token"
expect_ok env -u CUB_TOKEN cub version
expect_match "$OUT" '^Client: [0-9]+\.[0-9]+\.[0-9]+'
expect_match "$OUT" $'\nServer: [0-9]+\\.[0-9]+\\.[0-9]+'
expect_ok cub --version
expect_contains "$OUT" "Server: "
expect_ok cub version -o json
expect_match "$(jget Client)" '^[0-9]+\.[0-9]+\.[0-9]+$' "client version in JSON"
expect_eq "$(jget Client)" "$(jget Server)" "same build"
expect_ok cub version --jq .Server
expect_match "$OUT" '^[0-9]+\.[0-9]+\.[0-9]+$'
expect_fail 1 "cannot reach cubd" cub version --server "127.0.0.1:$(free_port)" --timeout 5
expect_match "$OUT" '^Client: ' "the client line is printed anyway"

section "--label a=b,c=d sets two labels"
expect_ok cub space create web-a --label tier=web,team=alpha
expect_ok cub space get web-a -o json
expect_eq web "$(jget Labels.tier)"
expect_eq alpha "$(jget Labels.team)"
expect_ok cub space create WEB-B --label tier=web --label team=beta
expect_ok cub space create db-c --label tier=db
expect_fail 2 "--label" cub space create bad --label tier=web,team

section "output flags"
expect_ok cub space list --names
expect_eq $'WEB-B\ndb-c\nweb-a' "$(sort <<<"$OUT")" "--names prints one slug a line"
expect_ok cub space list
HEADER=$(head -1 <<<"$OUT")
expect_ok cub space list --no-header
expect_not_contains "$OUT" "$HEADER"
expect_eq 3 "$(wc -l <<<"$OUT" | tr -d ' ')" "three rows, no header"
expect_ok cub space list --json
expect_eq 3 "$(jget len)"
expect_ok cub space list --jq '[.[] | select(.Labels.tier == "web") | .Slug] | sort | join(",")'
expect_eq "WEB-B,web-a" "$OUT"
expect_ok cub space get web-a --names
expect_eq web-a "$OUT"
expect_ok cub space get web-a --jq .Labels.team
expect_eq alpha "$OUT"
expect_fail 1 "Failed: --jq '.[' is not a jq program" cub space list --jq '.['
expect_fail 2 "excludes" cub space list --json --jq .

section "--timeout takes durations"
expect_ok cub space list --timeout 2m --names
expect_ok cub space list --timeout 90 --names
expect_fail 2 "is not a timeout" cub space list --timeout 2x
expect_fail 2 "out of range" cub space list --timeout 2d

section "a ChangeOrder named BASE/NAME"
printf 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: acme\ndata:\n  v: "1"\n' \
  >"$E2E_TMP/cm.yaml"
expect_ok cub space create acme-base
expect_ok cub unit create --space acme-base config "$E2E_TMP/cm.yaml"
expect_ok cub changeworkflow create --space acme-base flow --filename - <<'YAML'
Stages:
  - Name: dev
    WhereSpace: "Labels.Stage = 'Development'"
YAML
expect_ok cub changeorder create --space acme-base v1 --description v1 \
  --change-workflow acme-base/flow
expect_ok cub changeorder get acme-base/v1 -o json
A=$OUT
expect_ok cub changeorder get v1 --space acme-base -o json
expect_eq "$A" "$OUT" "BASE/NAME and --space give the same ChangeOrder"
expect_ok cub changeorder get acme-base/v1 --space acme-base --names
expect_eq v1 "$OUT"
expect_ok cub changeorder explain acme-base/v1
expect_ok cub changeorder records acme-base/v1
expect_ok cub changeorder update acme-base/v1 --description again
expect_ok cub changeorder get acme-base/v1 --jq .Description
expect_eq again "$OUT"
expect_fail 2 "name the ChangeOrder as BASE/NAME or give its base Space with --space" \
  cub changeorder get v1
expect_fail 2 "--space web-a and ChangeOrder acme-base/v1 name different base Spaces" \
  cub changeorder get acme-base/v1 --space web-a
expect_fail 2 "is not BASE/NAME" cub changeorder get acme-base/v1/x

section "release set-status --latest"
expect_ok cub target create --space acme-base local --provider Directory \
  --param "path=$E2E_TMP/deploy"
expect_ok cub space update acme-base --release-target acme-base/local
expect_fail 1 "--latest: Space acme-base has no Release yet" \
  cub release set-status --space acme-base --latest --sync Synced --health Healthy
expect_ok cub release publish acme-base
printf 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: acme\ndata:\n  v: "2"\n' \
  >"$E2E_TMP/cm2.yaml"
expect_ok cub unit update --space acme-base config "$E2E_TMP/cm2.yaml"
expect_ok cub release publish acme-base
expect_contains "$OUT" "Release 2 of acme-base"
expect_ok cub release set-status --space acme-base --latest --sync Synced --health Healthy
expect_eq "Release 2 of acme-base is Synced/Healthy" "$OUT"
expect_ok cub release get --space acme-base --release 1 --jq .LiveStatus.Health
expect_ne Healthy "$OUT" "Release 1 untouched"
expect_fail 2 "excludes" cub release set-status --space acme-base --latest --release 1 \
  --sync Synced --health Healthy

section "completion: generated from the command tree"
# complete WORD...: the words bash offers for the last one, after `source <(cub completion bash)`.
complete_words() {
  bash -c 'source <(cub completion bash) || exit 1
    COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _cub; echo "${COMPREPLY[*]}"' _ "$@"
}
expect_ok cub completion bash
expect_contains "$OUT" "complete -F _cub cub"
expect_eq space "$(complete_words cub spa)" "a group"
expect_eq "set-status" "$(complete_words cub release set-)" "a verb"
expect_eq "--latest" "$(complete_words cub --quiet release set-status --space x --lat)" "a flag"
expect_eq "--json --jq" "$(complete_words cub space list --j)" "global flags"
expect_eq "" "$(complete_words cub space list --nope)" "nothing cub does not have"
expect_ok cub completion zsh
expect_contains "$OUT" "bashcompinit"
expect_fail 2 "zsh" cub completion fish

e2e_finish
