#!/usr/bin/env bash
# Soaks through the real binaries: dev Automatic with AutoRelease, staging Automatic gated on
# Soaked with a SoakTime of a few seconds. A workflow naming Soaked without a SoakTime (or in
# Final) is refused; while dev's Release soaks, a promotion into staging is refused naming
# Soaked and the time left, and the engine keeps the ChangeOrder's work row due at the soak's
# end; a Degraded report restarts the clock; once the soak ends the engine promotes into staging
# by itself, with no other report or write to wake it.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
e2e_init soak
e2e_start_cubd main
export CUB_SERVER=$E2E_SERVER CUB_TOKEN=$ADMIN_TOKEN
SOAK=5  # seconds

# wait_for DESCRIPTION SQL [SECONDS]: polls SQL until it prints 't' (30 s unless given).
wait_for() {
  local what=$1 sql=$2 deadline=$((SECONDS + ${3:-30}))
  while ((SECONDS < deadline)); do
    [[ $(db -c "$sql") == t ]] && { _e2e_pass "$what"; return 0; }
    sleep 0.1
  done
  _E2E_LAST_CMD="$sql"
  e2e_fail "timed out waiting for: $what"
}
latest_release() {
  db -c "SELECT max(r.release_num) FROM releases r JOIN spaces s ON s.id = r.space_id WHERE s.slug = '$1'"
}
# The healthy time of the Space's current deployment, as epoch seconds (empty when none).
healthy_at() {
  db -c "SELECT extract(epoch FROM d.healthy_at) FROM deployments d JOIN spaces s ON s.id = d.space_id WHERE s.slug = '$1' AND d.ended_at IS NULL"
}
promoted() {  # promoted STAGE: how many times acme-base/v2 was promoted into STAGE
  db -c "SELECT count(*) FROM events WHERE kind = 'Promoted' AND change_order = 'acme-base/v2' AND stage = '$1'"
}

section "a Stage naming Soaked needs a SoakTime; Final may not name it"
expect_ok cub space create platform
expect_fail 1 "stage 'staging': Prerequisites name Soaked but the stage has no SoakTime" \
  cub changeworkflow create --space platform bad --stage dev --stage staging \
  --stage-prerequisites staging=Soaked
expect_contains "$ERR" "--stage-soak-time staging=24h"
expect_fail 1 "Final.Prerequisites: Soaked cannot be named here" \
  cub changeworkflow create --space platform bad --stage dev --final-prerequisites Soaked
expect_fail 1 "--stage-soak-time 'staging=1d': SoakTime '1d' is not a duration" \
  cub changeworkflow create --space platform bad --stage dev --stage staging \
  --stage-prerequisites staging=Soaked --stage-soak-time staging=1d
expect_fail 1 "SoakTime '0s' must be a positive, finite duration" \
  cub changeworkflow create --space platform bad --stage dev --stage staging \
  --stage-prerequisites staging=Soaked --stage-soak-time staging=0s
expect_fail 1 "is set but Prerequisites do not name Soaked" \
  cub changeworkflow create --space platform bad --stage dev --stage staging \
  --stage-soak-time staging=1h
expect_eq 0 "$(db -c "SELECT count(*) FROM change_workflows")"

section "setup: dev Automatic with AutoRelease, staging Automatic after a ${SOAK}s soak, prod Manual after 3s"
ARGO=$(create_user argocd --service-account) || e2e_fail "user"
expect_ok cub target create --space platform local --provider Directory \
  --param "path=$E2E_TMP/deploy/{space}"
expect_ok cub changeworkflow create --space platform flow --stage dev --stage staging --stage prod \
  --stage-mode dev=Automatic --stage-auto-release dev=true --stage-mode staging=Automatic \
  --stage-prerequisites staging=Soaked --stage-soak-time staging=1h \
  --stage-prerequisites prod=Soaked --stage-soak-time prod=3s
expect_ok cub changeworkflow get --space platform flow
expect_contains "$OUT" "SOAK-TIME"
expect_ok cub changeworkflow update --space platform flow --stage-soak-time "staging=${SOAK}s" -o json
expect_eq "${SOAK}s" "$(jget Stages.1.SoakTime)"
expect_eq "" "$(jget Stages.0.SoakTime)"
expect_ok cub space create acme-base
deployment v1 >"$E2E_TMP/v1.yaml"
expect_ok cub unit create --space acme-base deployment "$E2E_TMP/v1.yaml"
expect_ok cub variant create acme-dev acme-base --stage dev
expect_ok cub variant create acme-staging acme-base --stage staging
expect_ok cub variant create acme-prod acme-base --stage prod
for s in acme-dev acme-staging acme-prod; do
  expect_ok cub space update "$s" --release-target platform/local
  expect_ok cub space grant "$s" reporter --user argocd
done
expect_ok cub function set --space acme-base --unit deployment \
  -- set-image-reference-by-uri ghcr.io/acme/acme ":v2"
expect_ok cub changeorder create --space acme-base v2 --description v2 --change-workflow platform/flow
wait_for "v2 published in dev by the engine" \
  "SELECT count(*) = 1 FROM releases WHERE change_order = 'acme-base/v2'"
REL=$(latest_release acme-dev)

section "before any Healthy report the soak has not begun: refused, with no time to wait for"
expect_fail 1 "Variant 'acme-dev' is not Soaked: Release $REL is not Healthy" \
  cub variant promote --change-order acme-base/v2 --dry-run
expect_contains "$ERR" "then stay so for ${SOAK}s"
wait_for "the engine has no work row for v2 (nothing but a report can open the gate)" \
  "SELECT NOT EXISTS (SELECT 1 FROM engine_work)"

section "Healthy in dev: the soak runs; refused naming Soaked and the time left"
expect_ok as "$ARGO" cub release set-status --space acme-dev --release "$REL" \
  --sync Synced --health Healthy
T0=$(healthy_at acme-dev)
expect_ne "" "$T0" "healthy time"
expect_fail 1 "Variant 'acme-dev' is not Soaked: Release $REL has been Healthy since" \
  cub variant promote --change-order acme-base/v2 --dry-run
expect_match "$ERR" "of its ${SOAK}s SoakTime \([0-9.ms]+ left\)"
# The engine looked, was refused, and keeps the row due at the soak's end (not a sweep later).
wait_for "v2's work row due at the end of the first soak" \
  "SELECT count(*) = 1 FROM engine_work WHERE abs(extract(epoch FROM due_at) - ($T0 + $SOAK)) < 0.5"
expect_ok cub changeorder get --space acme-base v2 -o json
expect_ne "" "$(jget Engine.DueAt)" "Engine.DueAt"
expect_eq 0 "$(promoted staging)"

section "a Degraded report restarts the clock"
sleep 2
expect_ok as "$ARGO" cub release set-status --space acme-dev --release "$REL" \
  --sync Synced --health Degraded
expect_fail 1 "Release $REL is not Healthy (reported Synced, Degraded)" \
  cub variant promote --change-order acme-base/v2 --dry-run
expect_ok as "$ARGO" cub release set-status --space acme-dev --release "$REL" \
  --sync Synced --health Healthy
T1=$(healthy_at acme-dev)
expect_eq t "$(db -c "SELECT $T1 > $T0")" "the clock restarted"
expect_eq 1 "$(db -c "SELECT count(*) FROM deployments d JOIN spaces s ON s.id = d.space_id WHERE s.slug = 'acme-dev' AND d.end_reason = 'Degraded'")"
# Right after the reports: still refused, the new run named.
expect_fail 1 "is not Soaked: Release $REL has been Healthy since" \
  cub variant promote --change-order acme-base/v2 --dry-run
expect_contains "$ERR" "left)"
wait_for "v2's work row due at the end of the restarted soak" \
  "SELECT count(*) = 1 FROM engine_work WHERE abs(extract(epoch FROM due_at) - ($T1 + $SOAK)) < 0.5"

section "the soak ends: the engine promotes into staging by itself"
wait_for "v2 promoted into staging" \
  "SELECT count(*) = 1 FROM events WHERE kind = 'Promoted' AND change_order = 'acme-base/v2' AND stage = 'staging'"
P=$(db -c "SELECT extract(epoch FROM at) FROM events WHERE kind = 'Promoted' AND change_order = 'acme-base/v2' AND stage = 'staging'")
# Not before the restarted soak ended (the first one ended 2 s earlier, with nothing promoted);
# the event's time is its transaction's start, a moment before the gates were read.
expect_eq t "$(db -c "SELECT $P >= $T1 + $SOAK - 0.2")" "promoted after the restarted soak"
echo "soak_test: promoted $(db -c "SELECT round(($P - $T1 - $SOAK)::numeric, 3)")s after the soak ended"
expect_eq automatic "$(db -c "SELECT username FROM events WHERE kind = 'Promoted' AND change_order = 'acme-base/v2' AND stage = 'staging'")"

section "prod is Manual: a promotion queued behind a soak is carried out when it ends"
expect_ok cub release publish acme-staging --revision ChangeOrder:acme-base/v2
REL=$(latest_release acme-staging)
expect_ok cub variant promote --change-order acme-base/v2 --target-stage prod --queue -o json
expect_eq prod "$(jget Queued.Stage)"
expect_contains "$(jget Queued.WaitingFor)" "Variant 'acme-staging' is not Soaked: Release $REL is not Healthy"
expect_ok as "$ARGO" cub release set-status --space acme-staging --release "$REL" \
  --sync Synced --health Healthy
T2=$(healthy_at acme-staging)
wait_for "v2 promoted into prod, as the user who queued it" \
  "SELECT count(*) = 1 FROM events WHERE kind = 'Promoted' AND change_order = 'acme-base/v2' AND stage = 'prod' AND username = 'admin'"
P=$(db -c "SELECT extract(epoch FROM at) FROM events WHERE kind = 'Promoted' AND change_order = 'acme-base/v2' AND stage = 'prod'")
expect_eq t "$(db -c "SELECT $P >= $T2 + 3 - 0.2")" "promoted after the soak"
echo "soak_test: queued promotion carried out $(db -c "SELECT round(($P - $T2 - 3)::numeric, 3)")s after the soak ended"
expect_eq 0 "$(db -c "SELECT count(*) FROM queued_promotions")"
