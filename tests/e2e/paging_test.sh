#!/usr/bin/env bash
# Lists paged by cubd, through the real binaries: `cub space list` follows the continuation
# by itself across server pages (520 Spaces, the server's default page is 500) and -o json is
# still one document; --limit N prints N rows and says on stderr how to go on with
# --page-token; a token reused with another --where, or garbage, is refused naming PageToken;
# the REST mirror serves List methods as GET with query parameters (Limit, PageToken,
# Options.Where). Progress on a terminal: a stage-wide promote, a stage-wide publish and a watch
# whose stdout is piped show a live line on a terminal's stderr (run under util-linux `script`),
# erased at the end, and nothing of it when stderr is piped or with --json.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
e2e_init paging
e2e_start_cubd main
export CUB_SERVER=$E2E_SERVER CUB_TOKEN=$ADMIN_TOKEN
H=http://$E2E_HTTP

section "setup: 12 Spaces through cub, 520 more by SQL (setup only)"
for i in $(seq -w 1 12); do
  expect_ok cub space create "p$i" --label Stage=$((10#$i % 2 ? 1 : 2))
done
db -c "INSERT INTO spaces (slug, labels) SELECT 'bulk-' || lpad(i::text, 4, '0'),
  '{\"Stage\": \"bulk\"}' FROM generate_series(1, 520) AS i"

section "without --limit: every row, across server pages, in slug order"
expect_ok cub space list --where "Labels.Stage = 'bulk'" --names
expect_eq 520 "$(printf '%s\n' "$OUT" | wc -l)" "Spaces listed"
expect_eq bulk-0001 "$(printf '%s\n' "$OUT" | head -n 1)" "first"
expect_eq bulk-0520 "$(printf '%s\n' "$OUT" | tail -n 1)" "last"
expect_eq 520 "$(printf '%s\n' "$OUT" | sort -u | wc -l)" "distinct Spaces"
expect_eq "" "$ERR" "stderr of a whole list"
expect_ok cub space list --where "Labels.Stage = 'bulk'" -o json
# (Too large for jget's command line: read from stdin.)
json_of() { printf '%s' "$OUT" | python3 -c "import json, sys; d = json.load(sys.stdin); print($1)"; }
expect_eq 520 "$(json_of 'len(d)')" "one JSON document of every Space"
expect_eq bulk-0501 "$(json_of "d[500]['Slug']")" "the first Space of the second server page"
expect_ok cub space list --where "Labels.Stage = 'bulk'"
expect_eq 521 "$(printf '%s\n' "$OUT" | wc -l)" "table rows and one header"
expect_eq 1 "$(printf '%s\n' "$OUT" | grep -c '^NAME ')" "header lines"

section "--limit N: N rows, then --page-token continues"
expect_ok cub space list --where "Slug LIKE 'p%'" --limit 5 --names
expect_eq "p01 p02 p03 p04 p05" "$(echo $OUT)" "first page"
expect_contains "$ERR" "repeat the command with --page-token "
token=${ERR##*--page-token }
token=${token%%[[:space:]]*}
expect_ne "" "$token" "token"
expect_ok cub space list --where "Slug LIKE 'p%'" --limit 5 --page-token "$token" --names
expect_eq "p06 p07 p08 p09 p10" "$(echo $OUT)" "second page"
token=${ERR##*--page-token }
token=${token%%[[:space:]]*}
expect_ok cub space list --where "Slug LIKE 'p%'" --page-token "$token" --names
expect_eq "p11 p12" "$(echo $OUT)" "the rest"
expect_eq "" "$ERR" "no hint after the last page"
# --limit larger than a server page is served in several calls.
expect_ok cub space list --limit 1200 --names
expect_eq "$(db -c "SELECT count(*) FROM spaces")" "$(printf '%s\n' "$OUT" | wc -l)" \
  "--limit above the server's cap"
expect_ok cub space list --where "Slug LIKE 'p%'" --limit 12 --names
expect_eq "" "$ERR" "no hint when the limit ends the list exactly"
expect_ok cub unit list --space '*' --limit 3
expect_eq "" "$ERR" "no Units: no hint"

section "tokens are tied to their filters; garbage is refused"
expect_ok cub space list --where "Slug LIKE 'p%'" --limit 2 --names
token=${ERR##*--page-token }
token=${token%%[[:space:]]*}
expect_fail 1 "PageToken: issued for a request with other filters" \
  cub space list --where "Slug LIKE 'p1%'" --page-token "$token"
expect_fail 1 "PageToken" cub space list --page-token 'not a token!'
expect_fail 1 "PageToken" cub space list --page-token AAAAAAAA
expect_fail 1 "PageToken" cub unit list --space '*' --page-token "$token"
expect_fail 2 "-3" cub space list --limit=-3

section "REST: GET of a List method with query parameters"
rest_get() {  # rest_get QUERY: status code in CODE, body in OUT
  run curl -sS -o "$E2E_TMP/rest.body" -w '%{http_code}' -H "Authorization: Bearer $ADMIN_TOKEN" \
    "$H/v1/SpaceService/ListSpaces?$1"
  CODE=$OUT
  OUT=$(cat "$E2E_TMP/rest.body")
}
rest_get "Options.Where=Slug%20LIKE%20'p%25'&Limit=4"
expect_eq 200 "$CODE" "GET ListSpaces"
expect_eq 4 "$(jget Spaces.len)" "Spaces of the page"
expect_eq p04 "$(jget Spaces.3.Slug)"
next=$(jget NextPageToken)
expect_ne "" "$next" "NextPageToken"
rest_get "Options.Where=Slug+LIKE+'p%25'&Limit=100&PageToken=$next"
expect_eq 200 "$CODE" "GET with PageToken"
expect_eq 8 "$(jget Spaces.len)" "the rest"
expect_eq p05 "$(jget Spaces.0.Slug)"
expect_eq "" "$(jget NextPageToken)" "no NextPageToken on the last page"
rest_get "Options.Where=Slug%20LIKE%20'p1%25'&PageToken=$next"
expect_eq 400 "$CODE" "token with another Where"
expect_contains "$(jget message)" "PageToken"
rest_get "Nope=1"
expect_eq 400 "$CODE" "unknown query parameter"
expect_contains "$(jget message)" 'query parameter "Nope"'
rest_get "Limit=1&Limit=2"
expect_eq 400 "$CODE" "repeated query parameter"
rest_get "Limit=-1"
expect_eq 400 "$CODE" "negative Limit"
expect_contains "$(jget message)" "Limit"
rest_get "Options=x"
expect_eq 400 "$CODE" "a message field given a value"
rest_get "Limit=%zz"
expect_eq 400 "$CODE" "bad percent-encoding"
run curl -sS -o /dev/null -w '%{http_code}' "$H/v1/SpaceService/ListSpaces?Limit=1"
expect_eq 401 "$OUT" "GET without a token"
run curl -sS -D "$E2E_TMP/h" -o /dev/null -w '%{http_code}' -X PUT \
  -H "Authorization: Bearer $ADMIN_TOKEN" "$H/v1/SpaceService/ListSpaces"
expect_eq 405 "$OUT" "PUT of a List method"
expect_contains "$(cat "$E2E_TMP/h")" "GET, POST" "Allow"
run curl -sS -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $ADMIN_TOKEN" \
  "$H/v1/SpaceService/GetSpace?Space=p01"
expect_eq 405 "$OUT" "GET of a method that is no List"
run curl -sS -o "$E2E_TMP/rest.body" -w '%{http_code}' -X POST -H "Authorization: Bearer $ADMIN_TOKEN" \
  --data '{"Limit": 3, "Options": {"Where": "Labels.Stage = '"'bulk'"'"}}' "$H/v1/SpaceService/ListSpaces"
expect_eq 200 "$OUT" "POST with Limit"
expect_eq 3 "$(jget Spaces.len "$(cat "$E2E_TMP/rest.body")")"

section "progress: stage-wide promote and publish on a terminal, quiet when piped"
expect_ok cub space create platform
expect_ok cub target create --space platform local --provider Directory \
  --param "path=$E2E_TMP/deploy"
expect_ok cub changeworkflow create --space platform flow --filename - <<'YAML'
Stages:
  - Name: dev
    WhereSpace: "Labels.Stage = 'Development'"
  - Name: prod
    WhereSpace: "Labels.Stage = 'Production'"
    Prerequisites: [Released, Healthy]
YAML
expect_ok cub space create acme-base
deployment v1 >"$E2E_TMP/v1.yaml"
expect_ok cub unit create --space acme-base web "$E2E_TMP/v1.yaml"
for s in dev1 dev2; do
  expect_ok cub variant create "acme-$s" acme-base --stage Development
  expect_ok cub space update "acme-$s" --release-target platform/local
done
expect_ok cub variant create acme-prod acme-base --stage Production
expect_ok cub function set --space acme-base --unit web \
  -- set-image-reference-by-uri ghcr.io/acme/acme ":v2"
expect_ok cub changeorder create --space acme-base v2 --description v2 --change-workflow platform/flow
# The live line goes to stderr, which `script` makes a terminal (as it does stdout).
tty_run() { run script -q -e -c "$1" /dev/null; }
tty_run "cub variant promote --change-order acme-base/v2 --dry-run"
expect_eq 0 "$RC" "dry run on a terminal"
expect_contains "$OUT" "Planning the promotion of acme-base/v2 into its next stage ..."
expect_contains "$OUT" $'\r\e[K' "the line is erased"
expect_contains "$OUT" "Dry run of change order"
# Piped, and with --json on a terminal: none of it.
expect_ok cub variant promote --change-order acme-base/v2 --dry-run
expect_not_contains "$ERR$OUT" "Planning the promotion"
expect_not_contains "$ERR$OUT" $'\r'
tty_run "cub variant promote --change-order acme-base/v2 --dry-run --json"
expect_not_contains "$OUT" "Planning the promotion" "--json on a terminal"
tty_run "cub variant promote --change-order acme-base/v2 --dry-run --quiet"
expect_not_contains "$OUT" "Planning the promotion" "--quiet on a terminal"
tty_run "cub variant promote --change-order acme-base/v2 2>&1 >$E2E_TMP/promote.out"
expect_eq 0 "$RC" "promote with stdout to a file"
expect_contains "$OUT" "Promoting acme-base/v2 into its next stage ..."
expect_contains "$(cat "$E2E_TMP/promote.out")" "Promoted change order"
expect_not_contains "$(cat "$E2E_TMP/promote.out")" "Promoting" "stdout"
tty_run "cub release publish --change-order acme-base/v2 --stage dev"
expect_eq 0 "$RC" "stage-wide publish on a terminal"
expect_contains "$OUT" "Publishing the Releases of acme-base/v2 in stage dev ..."
run cub release publish --change-order acme-base/v2 --stage dev
expect_not_contains "$ERR$OUT" "Publishing the Releases" "publish piped"
# A failure while the line is up is written on a line of its own, after the line is erased.
tty_run "cub variant promote --change-order acme-base/nope"
expect_eq 1 "$RC" "promote of a missing ChangeOrder"
expect_match "$OUT" $'\r\e\\[KFailed: ' "the failure after the erase"

section "progress: a watch piped to a file shows the latest snapshot on the terminal"
run timeout -s INT 3 script -q -c "cub changeorder watch --space acme-base v2 >$E2E_TMP/watch.out" /dev/null
expect_contains "$OUT" "Watching acme-base/v2: InProgress: dev 2/2 taken 2/2 released"
expect_contains "$(cat "$E2E_TMP/watch.out")" "InProgress: dev 2/2 taken 2/2 released"
expect_not_contains "$(cat "$E2E_TMP/watch.out")" "Watching" "the watch's stdout"

e2e_finish
