#!/usr/bin/env bash
# The dashboard in a real browser: Debian's headless Chromium driven by playwright-core
# (tests/ui/dashboard.mjs, `npm ci` in tests/ui first; deploy/local/test.sh does it) against a
# real cubd and PostgreSQL. A two-Stage workflow whose prod needs one approval: the author logs
# in by token, sees the rollout, promotes into dev and watches it fill, is refused prod with
# the gate's reason (their own vote does not count), alice approves, the author promotes into
# prod. Screenshots of each page go to build/ui-screenshots/.
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
expect_ok cub space create platform
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
for s in web-base web-dev web-prod; do
  expect_ok cub space grant "$s" editor --user deployer
  expect_ok cub space grant "$s" viewer --user alice
done
expect_ok cub space grant web-dev approver --group approvers
# The author may vote too; their vote is recorded and does not count toward prod.
expect_ok cub space grant web-dev approver --user deployer
expect_ok as "$DEPLOYER" cub function set --space web-base --unit deployment \
  -- set-image-reference-by-uri ghcr.io/acme/acme ":v2"
expect_ok cub changeorder create --space web-base v2 --description "v2 of the web app" \
  --change-workflow platform/flow

section "the dashboard in Chromium"
shots=$CUB_BIN_DIR/../ui-screenshots
rm -rf "$shots"
# The tokens reach the browser script in its environment, not on a command line.
CUB_UI_URL="http://$E2E_HTTP" CUB_UI_SHOTS=$shots CUB_UI_TOKEN_DEPLOYER=$DEPLOYER \
  CUB_UI_TOKEN_ALICE=$ALICE E2E_CMD_TIMEOUT=300 expect_ok node "$UI_SRC/dashboard.mjs"
printf '%s\n' "$OUT"
[[ -z $ERR ]] || printf '%s\n' "$ERR" >&2

section "what the browser did, as the API records it"
expect_ok cub changeorder get --space web-base v2 -o json
expect_eq Resolved "$(jget State)"
expect_ok cub attestation list --space web-dev -o json
expect_contains "$OUT" '"Note": "looks good"'
expect_contains "$OUT" '"User": "alice"'
for f in 01-login-refused 02-rollouts 03-promoted-dev 04-refusal 05-open-promotions \
  06-approved 07-promoted-prod 08-rollouts-resolved 09-rollouts-phone 10-changeorder-phone; do
  [[ -s $shots/$f.png ]] || e2e_fail "screenshot $f.png is missing"
done
_e2e_pass "10 screenshots in $shots"

e2e_finish
