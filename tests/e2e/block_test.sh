#!/usr/bin/env bash
# Blocked changes through the real binaries: a ChangeOrder aborted with --block keeps the
# content it brought out of every Space that does not already run it. A second ChangeOrder
# carrying the same change (the same edit made again in the base) is refused at the next Stage,
# --force does not pass it, nor does a plain upgrade, a publish or a rollback to it; a Space
# that already runs it may publish it again; --unblock lets it through. Malformed requests are
# refused and change nothing.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
e2e_init block
e2e_start_cubd main
export CUB_SERVER=$E2E_SERVER CUB_TOKEN=$ADMIN_TOKEN

deployment() {  # deployment IMAGE-TAG
  cat <<YAML
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
          image: ghcr.io/acme/web:$1
YAML
}
image() {  # image SPACE: sets the Deployment's image tag in SPACE's Unit
  cub function set --space "$1" --unit deployment -- set-container-image web "ghcr.io/acme/web:$2"
}
changeorder() {  # changeorder NAME: the ChangeOrder's JSON into $OUT
  expect_ok cub changeorder get --space acme-base "$1" -o json
}
refusal="its content is blocked by change order 'acme-base/bad-rollout' (reason: crashloop in staging); unblock it with cub changeorder update --space acme-base bad-rollout --unblock"

section "setup: base -> acme-staging -> prod-eu, released at v1"
expect_ok cub space create platform
for s in acme-base acme-staging prod-eu; do  # a Target each, so each numbers its own Releases
  expect_ok cub target create --space platform "$s" --provider Directory \
    --param "path=$E2E_TMP/deploy/$s"
done
expect_ok cub changeworkflow create --space platform flow --filename - <<'YAML'
Stages:
  - Name: staging
    WhereSpace: "Labels.Stage = 'Staging'"
  - Name: prod
    WhereSpace: "Labels.Stage = 'Production'"
YAML
expect_ok cub space create acme-base
deployment v1 >"$E2E_TMP/v1.yaml"
expect_ok cub unit create --space acme-base deployment "$E2E_TMP/v1.yaml"
expect_ok cub variant create acme-staging acme-base --stage Staging
expect_ok cub variant create prod-eu acme-staging --stage Production
# prod-eu keeps its own replica count, so its data differs from what it merges from upstream.
expect_ok cub function set --space prod-eu --unit deployment -- set-replicas 5
for s in acme-base acme-staging prod-eu; do
  expect_ok cub space update "$s" --release-target "platform/$s"
done
expect_ok cub release publish acme-staging
expect_ok cub release publish prod-eu

section "the bad change reaches staging and is released there"
expect_ok image acme-base v2
expect_ok cub changeorder create --space acme-base bad-rollout --description "web v2" \
  --change-workflow platform/flow
expect_ok cub variant promote --change-order acme-base/bad-rollout
expect_ok cub release publish acme-staging  # Release 2: staging runs v2
expect_ok cub unit data --space acme-staging deployment
expect_contains "$OUT" "web:v2"

section "malformed block requests are refused and change nothing"
changeorder bad-rollout
version=$(jget Version)
expect_fail 1 "--block needs --aborted-reason" \
  cub changeorder update --space acme-base bad-rollout --block
expect_fail 1 "--block and --unblock exclude each other" \
  cub changeorder update --space acme-base bad-rollout --block --unblock --aborted-reason x
expect_fail 1 "--unblock: change order 'bad-rollout' is not blocked" \
  cub changeorder update --space acme-base bad-rollout --unblock
# A block holds its content everywhere: an editor of the base may not set one.
EDITOR=$(create_user block-editor) || e2e_fail "user"
expect_ok cub space grant acme-base editor --user block-editor
expect_fail 1 "Block needs the admin role on the base" \
  env CUB_TOKEN="$EDITOR" cub changeorder update --space acme-base bad-rollout --block --aborted-reason x
changeorder bad-rollout
expect_eq "$version" "$(jget Version)" "version after the refused updates"
expect_eq "" "$(jget AbortedReason)" "not aborted by a refused block"
expect_eq false "$(jget Blocked || echo false)" "not blocked by a refused block"

section "block: abort and block in one update"
expect_ok cub changeorder update --space acme-base bad-rollout \
  --aborted-reason "crashloop in staging" --block
expect_contains "$OUT" "blocked"
changeorder bad-rollout
expect_eq true "$(jget Blocked)"
expect_eq "crashloop in staging" "$(jget AbortedReason)"
expect_eq Aborted "$(jget State)"
expect_eq admin "$(jget BlockedBy)"
expect_match "$(jget BlockedAt)" '^20[0-9]{2}-'
expect_ok cub changeorder get --space acme-base bad-rollout
expect_contains "$OUT" "Blocked"
expect_ok cub changeorder list --space acme-base --where "Blocked = true" -o json
expect_eq bad-rollout "$(jget 0.Slug)"
expect_eq 1 "$(jget len)" "blocked ChangeOrders listed"
expect_ok cub event list --space acme-base --where "Kind = 'ChangeOrderBlocked'" -o json
expect_eq 1 "$(jget len)" "ChangeOrderBlocked events"
expect_contains "$(jget 0.Message)" "crashloop in staging"
expect_fail 1 "was aborted" cub variant promote --change-order acme-base/bad-rollout
# Clearing the abort of a blocked ChangeOrder is refused.
expect_fail 1 "is blocked, so its abort cannot be cleared" \
  cub changeorder update --space acme-base bad-rollout --aborted-reason ""

section "a second ChangeOrder carrying the same change is refused at prod, forced or not"
expect_ok image acme-base v1
expect_ok image acme-base v2  # the same edit, made again
expect_ok cub changeorder create --space acme-base retry --description "web v2 again" \
  --change-workflow platform/flow
# Staging runs that content already: it may take it.
expect_ok cub variant promote --change-order acme-base/retry --target-stage staging
expect_fail 1 "unable to promote to stage 'prod': Variant 'prod-eu', unit 'deployment': $refusal" \
  cub variant promote --change-order acme-base/retry
expect_fail 1 "$refusal" cub variant promote --change-order acme-base/retry \
  --force --force-reason "ship it anyway"
expect_fail 1 "$refusal" cub variant promote --change-order acme-base/retry --dry-run
expect_fail 1 "$refusal" cub variant promote prod-eu --change-order acme-base/retry
expect_ok cub unit data --space prod-eu deployment
expect_contains "$OUT" "web:v1"
changeorder retry
expect_eq 0 "$(jget PromotionOverrides.len || echo 0)" "nothing forced"

section "a plain upgrade from upstream is refused"
expect_fail 1 "unable to upgrade unit 'deployment': Space 'prod-eu', unit 'deployment': $refusal" \
  cub unit update --space prod-eu deployment --upgrade
expect_ok cub unit data --space prod-eu deployment
expect_contains "$OUT" "web:v1"

section "publish: refused where it is not running, allowed where it is"
expect_fail 1 "unable to publish a release of space 'acme-base': Space 'acme-base', unit 'deployment': $refusal" \
  cub release publish acme-base
expect_ok cub release publish acme-staging  # Release 3: the same content as Release 2
expect_ok cub release publish acme-staging --release 1  # Release 4: rolled back to v1
expect_fail 1 "$refusal" cub release publish acme-staging --release 2
expect_fail 1 "$refusal" cub release publish acme-staging
expect_ok cub release list --space acme-staging -o json
expect_eq 4 "$(jget len)" "Releases of acme-staging"

section "an automatic promotion of the same content from another base waits on the block"
expect_ok cub changeworkflow create --space platform auto-flow --filename - <<'YAML'
Stages:
  - Name: canary
    WhereSpace: "Labels.Stage = 'Canary'"
    Mode: Automatic
YAML
expect_ok cub space create other-base
expect_ok cub unit create --space other-base deployment "$E2E_TMP/v1.yaml"
expect_ok cub variant create other-canary other-base --stage Canary
expect_ok image other-base v2  # the same data as the blocked change, made elsewhere
expect_ok cub changeorder create --space other-base other-v2 --description "web v2 elsewhere" \
  --change-workflow platform/auto-flow
engine_idle  # the engine has taken the ChangeOrder up (its work row was due) and let it be
expect_ok cub unit data --space other-canary deployment
expect_contains "$OUT" "web:v1"
expect_fail 1 "unable to promote to stage 'canary': Variant 'other-canary', unit 'deployment': $refusal" \
  cub variant promote --change-order other-base/other-v2 --dry-run
expect_ok cub changeorder get --space other-base other-v2 -o json
expect_eq "" "$(jget Engine.LastError || true)" "a block is waited on, not retried as an error"

section "unblock lets it through; the ChangeOrder stays aborted"
expect_ok cub changeorder update --space acme-base bad-rollout --unblock
changeorder bad-rollout
expect_eq false "$(jget Blocked || echo false)"
expect_eq "crashloop in staging" "$(jget AbortedReason)"
expect_eq Aborted "$(jget State)"
expect_ok cub event list --space acme-base --where "Kind = 'ChangeOrderUnblocked'" -o json
expect_eq 1 "$(jget len)" "ChangeOrderUnblocked events"
expect_ok cub variant promote --change-order acme-base/retry
expect_ok cub unit data --space prod-eu deployment
expect_contains "$OUT" "web:v2"
expect_contains "$OUT" "replicas: 5"
expect_ok cub release publish acme-base
expect_ok cub release publish acme-staging --release 2
expect_ok cub release publish prod-eu
# The engine was woken by the unblock and promotes the waiting ChangeOrder of the other base.
wait_for "other-canary promoted once unblocked" \
  "SELECT EXISTS (SELECT 1 FROM units u JOIN spaces s ON s.id = u.space_id JOIN revisions r
   ON r.unit_id = u.id AND r.revision_num = u.head_revision_num
   WHERE s.slug = 'other-canary' AND r.data LIKE '%web:v2%')"

e2e_finish
