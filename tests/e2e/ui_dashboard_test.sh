#!/usr/bin/env bash
# The dashboard in a real browser: Debian's headless Chromium driven by playwright-core
# (tests/ui/dashboard.mjs, `npm ci` in tests/ui first; deploy/local/test.sh does it) against a
# real cubd and PostgreSQL. A two-Stage workflow whose prod needs one approval: the author logs
# in by token, sees the rollout, promotes into dev and watches it fill, reviews the diff and is
# told why they may not vote (they wrote part of the change), is refused prod with the gate's
# reason; carol (no approver role) is told the API's refusal; alice approves from Open
# promotions; bob requests changes, which holds the gate, then approves; the author promotes
# into prod; the Space page shows the Release published then, with its live status, scan
# findings, history and the freeze in force. Screenshots of each page go to
# build/ui-screenshots/.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
UI_SRC=$CUB_SOURCE_DIR/tests/ui
[[ -x /usr/bin/chromium ]] || _e2e_die_setup "/usr/bin/chromium is missing: apt-get install chromium"
[[ -d $UI_SRC/node_modules/playwright-core ]] ||
  _e2e_die_setup "$UI_SRC/node_modules is missing: run (cd tests/ui && npm ci)"
e2e_init ui_dashboard
e2e_start_cubd main
export CUB_SERVER=$E2E_SERVER CUB_TOKEN=$ADMIN_TOKEN

section "setup: a workflow dev -> prod, prod needing one approval in dev"
DEPLOYER=$(create_user deployer) || e2e_fail "user"
ALICE=$(create_user alice --group approvers) || e2e_fail "user"
BOB=$(create_user bob --group approvers) || e2e_fail "user"
CAROL=$(create_user carol) || e2e_fail "user"
expect_ok cub space create platform
expect_ok cub target create --space platform local --provider Directory --param "path=$E2E_TMP/deploy"
cat >"$E2E_TMP/flow.yaml" <<YAML
Stages:
  - Name: dev
    WhereSpace: "Labels.Stage = 'Development'"
  - Name: prod
    WhereSpace: "Labels.Stage = 'Production'"
    Prerequisites: [one-approver]
AttestationPrerequisites:
  - Name: one-approver
    Count: 1
    FromGroups: [approvers]
    Description: one approval of the change in dev
YAML
expect_ok cub changeworkflow create --space platform flow --filename "$E2E_TMP/flow.yaml"
expect_ok cub space create web-base
deployment v1 >"$E2E_TMP/v1.yaml"
expect_ok cub unit create --space web-base deployment "$E2E_TMP/v1.yaml"
expect_ok cub variant create web-dev web-base --stage Development
expect_ok cub variant create web-prod web-base --stage Production
expect_ok cub space update web-prod --release-target platform/local
# Viewers of platform see its workflow and its freezes (the Space page's freezes in force).
for u in deployer alice bob carol; do expect_ok cub space grant platform viewer --user "$u"; done
for s in web-base web-dev web-prod; do
  expect_ok cub space grant "$s" editor --user deployer
  for u in alice bob carol; do expect_ok cub space grant "$s" viewer --user "$u"; done
done
expect_ok cub space grant web-dev approver --group approvers
# The author holds the approver role too: what keeps their vote from counting is authorship,
# and the Review page must say so rather than offer a vote.
expect_ok cub space grant web-dev approver --user deployer
# prod already runs v1: Release 1, reported healthy, which v2's Release will supersede.
expect_ok cub release publish web-prod
expect_ok cub release set-status --space web-prod --release 1 --sync Synced --health Healthy
expect_ok as "$DEPLOYER" cub function set --space web-base --unit deployment \
  -- set-image-reference-by-uri ghcr.io/acme/acme ":v2"
expect_ok as "$DEPLOYER" cub changeorder create --space web-base v2 \
  --description "v2 of the web app" --change-workflow platform/flow

section "the dashboard in Chromium"
shots=$CUB_BIN_DIR/../ui-screenshots
rm -rf "$shots"
# The tokens reach the browser script in its environment, not on a command line.
CUB_UI_URL="http://$E2E_HTTP" CUB_UI_SHOTS=$shots CUB_UI_TOKEN_DEPLOYER=$DEPLOYER \
  CUB_UI_TOKEN_ALICE=$ALICE CUB_UI_TOKEN_BOB=$BOB CUB_UI_TOKEN_CAROL=$CAROL \
  CUB_UI_TOKEN_ADMIN=$ADMIN_TOKEN E2E_CMD_TIMEOUT=420 expect_ok node "$UI_SRC/dashboard.mjs"
printf '%s\n' "$OUT"
[[ -z $ERR ]] || printf '%s\n' "$ERR" >&2

section "what the browser did, as the API records it"
expect_ok cub changeorder get --space web-base v2 -o json
expect_eq Released "$(jget State)"
expect_ok cub attestation list --space web-dev -o json
expect_contains "$OUT" '"Note": "looks good"'
expect_contains "$OUT" '"User": "alice"'
expect_contains "$OUT" '"Note": "please pin the digest"'
# The author cast no vote: the Review page offered none.
expect_not_contains "$OUT" '"User": "deployer"'
expect_ok cub release list --space web-prod -o json
expect_contains "$OUT" '"ChangeOrder": "web-base/v2"'
shots_want=(01-login-refused 02-rollouts 03-promoted-dev 04-review-author 05-refusal
  06-review-no-role 07-open-promotions 08-review-approved 09-review-changes-requested
  10-promoted-prod 11-rollouts-resolved 12-space 13-space-phone 14-rollouts-phone
  15-review-phone 16-changeorder-phone)
for f in "${shots_want[@]}"; do
  [[ -s $shots/$f.png ]] || e2e_fail "screenshot $f.png is missing"
done
_e2e_pass "${#shots_want[@]} screenshots in $shots"

e2e_finish
