#!/usr/bin/env bash
# Freezes through the real binaries: malformed freezes refused with nothing stored; a window
# of a few seconds holding an automatic promotion (with AutoRelease) and a queued one, which
# go through once it ends without anyone acting; stop-the-line refusing a typed promote, a
# publish and a rollback; an editor's --force refused; an admin's --force --force-reason
# passing, recorded as an override and an event; deleting the freeze lifting it for a queued
# promotion; a freeze scoped to one Stage; a recurring freeze shown with its next window.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
e2e_init freeze
e2e_start_cubd main
export CUB_SERVER=$E2E_SERVER CUB_TOKEN=$ADMIN_TOKEN

# wait_for DESCRIPTION SQL: polls SQL (as the owner) until it prints 't', for up to 60 s.
wait_for() {
  local what=$1 sql=$2 deadline=$((SECONDS + 60))
  while ((SECONDS < deadline)); do
    [[ $(db -c "$sql") == t ]] && { _e2e_pass "$what"; return 0; }
    sleep 0.1
  done
  _E2E_LAST_CMD="$sql"
  e2e_fail "timed out waiting for: $what"
}
events() {  # events KIND CO-REF [STAGE]
  db -c "SELECT count(*) FROM events WHERE kind = '$1' AND change_order = '$2' AND ('${3:-}' = '' OR stage = '${3:-}')"
}
# RFC 3339 (UTC) N seconds from now.
in_seconds() { date -u -d "@$(($(date +%s) + $1))" +%Y-%m-%dT%H:%M:%SZ; }
new_change() {  # new_change NAME TAG: a change in acme-base, named as ChangeOrder NAME
  expect_ok as "$ED" cub function set --space acme-base --unit deployment \
    -- set-image-reference-by-uri ghcr.io/acme/acme ":$2"
  expect_ok as "$ED" cub changeorder create --space acme-base "$1" --description "$2" \
    --change-workflow platform/flow
}

section "setup: dev Automatic with AutoRelease, prod Manual; an editor and a Space admin"
ED=$(create_user ed) || e2e_fail "user"
BOSS=$(create_user boss) || e2e_fail "user"
expect_ok cub space create platform
expect_ok cub target create --space platform local --provider Directory \
  --param "path=$E2E_TMP/deploy/{space}"
cat >"$E2E_TMP/flow.yaml" <<'YAML'
Stages:
  - Name: dev
    WhereSpace: "Labels.Stage = 'Development'"
    Mode: Automatic
    AutoRelease: true
  - Name: prod
    WhereSpace: "Labels.Stage = 'Production'"
YAML
expect_ok cub changeworkflow create --space platform flow --filename "$E2E_TMP/flow.yaml"
expect_ok cub space create acme-base
deployment v1 >"$E2E_TMP/v1.yaml"
expect_ok cub unit create --space acme-base deployment "$E2E_TMP/v1.yaml"
expect_ok cub variant create acme-dev acme-base --stage Development
expect_ok cub variant create acme-prod acme-base --stage Production
for s in acme-dev acme-prod; do expect_ok cub space update "$s" --release-target platform/local; done
for s in acme-base acme-dev acme-prod; do
  expect_ok cub space grant "$s" editor --user ed
  expect_ok cub space grant "$s" admin --user boss
done
expect_ok cub space grant platform viewer --user ed
expect_ok cub space grant platform admin --user boss

section "malformed freezes are refused, naming the flag, and nothing is stored"
create() { as "$BOSS" cub freeze create --space platform "$@"; }
# As a server admin, so that each refusal is the schedule's or the scope's, not the caller's.
bad_create() { cub freeze create --space platform "$@"; }
expect_fail 1 "--cron: cron expression '0 0 30 2 *' never fires" \
  bad_create bad --reason r --cron '0 0 30 2 *' --duration 1h
expect_fail 1 "cron minute field: '61' is out of range" bad_create bad --reason r --cron '61 * * * *' --duration 1h
expect_fail 1 "has 4 fields" bad_create bad --reason r --cron '0 0 * *' --duration 1h
expect_fail 1 "--time-zone 'Mars/Olympus_Mons' is not a known time zone" \
  bad_create bad --reason r --cron '0 18 * * 5' --duration 64h --time-zone Mars/Olympus_Mons
expect_fail 1 "--cron needs --duration" bad_create bad --reason r --cron '0 18 * * 5'
expect_fail 1 "--time-zone '/etc/passwd' is not a known time zone" \
  cub freeze create --space platform bad --reason r --cron '0 18 * * 5' --duration 1h --time-zone /etc/passwd
expect_fail 1 "--reason: at most 1024 bytes on one line" \
  cub freeze create --space platform bad --reason "$(printf 'x%.0s' {1..1100})"
expect_fail 1 "--duration '0s' is not above zero" bad_create bad --reason r --cron '0 18 * * 5' --duration 0s
expect_fail 1 "--until '2026-01-01T00:00:00Z' is not after --from '2026-02-01T00:00:00Z'" \
  bad_create bad --reason r --from 2026-02-01T00:00:00Z --until 2026-01-01T00:00:00Z
expect_fail 1 "--until is missing" bad_create bad --reason r --from 2026-02-01T00:00:00Z
expect_fail 1 "--from 'tomorrow' is not an RFC 3339 time" bad_create bad --reason r --from tomorrow --until 2030-01-01T00:00:00Z
expect_fail 1 "has passed" bad_create bad --reason r --from 2020-01-01T00:00:00Z --until 2020-01-02T00:00:00Z
expect_fail 2 "excludes" bad_create bad --reason r --cron '0 0 * * *' --duration 1h --from 2030-01-01T00:00:00Z
expect_fail 1 "--change-workflow: changeworkflow 'nope' not found in space 'platform'" \
  bad_create bad --reason r --change-workflow platform/nope
expect_fail 1 "--stage: changeworkflow 'platform/flow' has no stage 'qa'; its stages are dev, prod" \
  bad_create bad --reason r --change-workflow platform/flow --stage qa
expect_fail 1 "give --change-workflow" bad_create bad --reason r --stage dev
expect_fail 1 "needs the admin role" as "$ED" cub freeze create --space platform bad --reason r
# Without a workflow a freeze stops every Space: a server admin's call, not a Space admin's.
expect_fail 1 "covers every Space, and needs a server admin" create bad --reason r
expect_eq 0 "$(db -c "SELECT count(*) FROM freezes")"
expect_eq 0 "$(db -c "SELECT count(*) FROM events WHERE kind = 'FreezeCreated'")"

section "a window of a few seconds holds an automatic promotion and a queued one"
UNTIL=$(in_seconds 20)
expect_ok create deploy-window --reason "release train paused" --change-workflow platform/flow \
  --from "$(in_seconds -1)" --until "$UNTIL"
expect_contains "$OUT" "in force until $UNTIL"
expect_ok as "$ED" cub freeze get --space platform deploy-window -o json
expect_eq true "$(jget InForce)"
expect_eq "$UNTIL" "$(jget InForceUntil)"
expect_eq Window "$(jget Schedule)"
expect_eq platform/flow "$(jget ChangeWorkflow)"
new_change v2 v2
expect_ok as "$ED" cub variant promote --change-order acme-base/v2 --target-stage prod --queue -o json
expect_contains "$(jget Queued.WaitingFor)" "Variant 'acme-prod' is frozen by freeze 'deploy-window' in space 'platform' (reason: release train paused) until $UNTIL"
expect_ok as "$ED" cub promotion list --space acme-base
# Worked out when listed: the freeze, the Space it holds, and when it can end.
expect_contains "$OUT" "deploy-window in acme-prod: freeze 'deploy-window' (platform/deploy-window) lifted: release train paused"
expect_contains "$OUT" "$UNTIL"
# The engine tried dev and was refused by the freeze: it looks again at the window's end.
wait_for "the engine's step for v2 put off" \
  "SELECT count(*) = 1 FROM engine_work w JOIN change_orders co ON co.id = w.change_order_id WHERE co.slug = 'v2' AND w.due_at > now()"
expect_eq 0 "$(events Promoted acme-base/v2)"
expect_eq 0 "$(db -c "SELECT count(*) FROM releases")"
# Nobody acts: once the window ends, dev is promoted and published, then the queued prod.
wait_for "v2 promoted into dev and prod after the window" \
  "SELECT count(*) = 2 FROM events WHERE kind = 'Promoted' AND change_order = 'acme-base/v2'"
wait_for "v2 published in acme-dev by AutoRelease" \
  "SELECT count(*) = 1 FROM releases WHERE change_order = 'acme-base/v2'"
expect_eq t "$(db -c "SELECT min(at) >= '$UNTIL'::timestamptz FROM events WHERE kind IN ('Promoted', 'Published')")"
expect_eq ed "$(db -c "SELECT username FROM events WHERE kind = 'Promoted' AND stage = 'prod'")"
expect_eq 0 "$(db -c "SELECT count(*) FROM queued_promotions")"
expect_ok as "$ED" cub freeze get --space platform deploy-window -o json
expect_eq false "$(jget InForce)"
expect_eq "" "$(jget NextStart)"
expect_ok as "$ED" cub freeze list
expect_contains "$OUT" "not in force; ended"
expect_ok as "$BOSS" cub freeze delete --space platform deploy-window
expect_ok as "$ED" cub release publish acme-prod
PROD_REL=$(db -c "SELECT max(r.release_num) FROM releases r JOIN spaces s ON s.id = r.space_id WHERE s.slug = 'acme-prod'")
expect_ok cub freeze create --space platform deploy-window-again --reason r --from "$(in_seconds 3600)" --until "$(in_seconds 7200)"
expect_ok as "$ED" cub freeze list
expect_contains "$OUT" "not in force; next from"
expect_ok cub freeze delete --space platform deploy-window-again

section "stop the line: no schedule, every Space; typed promote, publish and rollback refused"
expect_ok cub changeworkflow update --space platform flow --stage-mode dev=Manual
expect_ok cub freeze create --space platform stop --reason "incident 42"
expect_contains "$OUT" "in force until deleted"
new_change v3 v3
expect_fail 1 "unable to promote to stage 'dev': Variant 'acme-dev' is frozen by freeze 'stop' in space 'platform' (reason: incident 42) until it is deleted" \
  as "$ED" cub variant promote --change-order acme-base/v3
expect_fail 1 "unable to publish a release in space 'acme-prod': Space 'acme-prod' is frozen by freeze 'stop'" \
  as "$ED" cub release publish acme-prod
expect_fail 1 "frozen by freeze 'stop'" as "$ED" cub release publish acme-prod --release "$PROD_REL"
expect_eq 1 "$(db -c "SELECT count(*) FROM releases r JOIN spaces s ON s.id = r.space_id WHERE s.slug = 'acme-prod'")"
# The explanation names the freeze wherever the promotion waits.
expect_ok cub changeorder explain --space acme-base v3
expect_contains "$OUT" "stop"
expect_contains "$OUT" "Freeze"
expect_contains "$OUT" "acme-dev"

section "an editor's --force is refused: passing a freeze needs the admin role"
expect_fail 1 "--force needs the admin role on space 'acme-dev' to pass freeze 'stop'" \
  as "$ED" cub variant promote --change-order acme-base/v3 --force --force-reason "hotfix"
expect_fail 1 "--force needs the admin role on space 'acme-prod' to pass freeze 'stop'" \
  as "$ED" cub release publish acme-prod --release "$PROD_REL" --force --force-reason "roll back"
expect_fail 1 "--force needs --force-reason" as "$BOSS" cub release publish acme-prod --force
expect_eq 0 "$(events Promoted acme-base/v3)"

section "an admin's --force --force-reason passes, recorded as an override and an event"
expect_ok as "$BOSS" cub variant promote --change-order acme-base/v3 --force --force-reason "hotfix for incident 42"
expect_eq 1 "$(events Promoted acme-base/v3 dev)"
expect_ok cub changeorder get --space acme-base v3 -o json
expect_eq "hotfix for incident 42" "$(jget PromotionOverrides.0.Reason)"
expect_contains "$(jget PromotionOverrides.0.FailedGates)" "frozen by freeze 'stop'"
expect_eq 1 "$(events FreezeOverridden acme-base/v3 dev)"
expect_contains "$(db -c "SELECT message FROM events WHERE kind = 'FreezeOverridden'")" "forced past freeze 'stop' in 1 Spaces: hotfix for incident 42"
expect_eq boss "$(db -c "SELECT username FROM events WHERE kind = 'FreezeOverridden'")"
expect_ok as "$BOSS" cub release publish acme-prod --release "$PROD_REL" --force --force-reason "roll back prod"
expect_eq 2 "$(db -c "SELECT count(*) FROM events WHERE kind = 'FreezeOverridden'")"
expect_eq acme-prod "$(db -c "SELECT space_slug FROM events WHERE kind = 'FreezeOverridden' ORDER BY id DESC LIMIT 1")"
expect_ok cub event list --space acme-prod --where "Kind = 'FreezeOverridden'" -o json
expect_contains "$(jget 0.Message)" "roll back prod"

section "deleting the freeze lifts it: a queued promotion held by it goes through"
expect_ok as "$ED" cub variant promote --change-order acme-base/v3 --target-stage prod --queue -o json
expect_contains "$(jget Queued.WaitingFor)" "frozen by freeze 'stop'"
expect_eq 0 "$(events Promoted acme-base/v3 prod)"
expect_fail 1 "needs the admin role" as "$ED" cub freeze delete --space platform stop
expect_fail 1 "covers every Space: only a server admin may delete it" \
  as "$BOSS" cub freeze delete --space platform stop
expect_ok cub freeze delete --space platform stop
expect_contains "$OUT" "Freeze platform/stop deleted"
wait_for "v3 promoted into prod once the freeze is gone" \
  "SELECT count(*) = 1 FROM events WHERE kind = 'Promoted' AND change_order = 'acme-base/v3' AND stage = 'prod'"
expect_eq 1 "$(db -c "SELECT count(*) FROM events WHERE kind = 'FreezeDeleted' AND details->>'Freeze' = 'stop'")"
expect_contains "$(db -c "SELECT message FROM events WHERE kind = 'FreezeDeleted' AND details->>'Freeze' = 'stop'")" "freeze 'stop' deleted (reason: incident 42)"
expect_ok as "$ED" cub release publish acme-prod
expect_fail 1 "not found" as "$ED" cub freeze get --space platform stop

section "a freeze of one Stage covers that Stage's Spaces only"
expect_ok create prod-only --reason "prod audit" --change-workflow platform/flow --stage prod
expect_ok as "$ED" cub release publish acme-dev
expect_fail 1 "Space 'acme-prod' is frozen by freeze 'prod-only'" as "$ED" cub release publish acme-prod
expect_ok as "$BOSS" cub freeze delete --space platform prod-only

section "a recurring freeze shows its next window"
expect_ok cub freeze create --space platform new-year --reason "new year" --cron '0 0 1 1 *' --duration 1d --time-zone Europe/Berlin -o json
expect_eq Recurring "$(jget Schedule)"
expect_eq Europe/Berlin "$(jget TimeZone)"
expect_match "$(jget NextStart)" '^[0-9]{4}-12-31T23:00:00Z$'
expect_ok as "$ED" cub freeze list --space platform
expect_contains "$OUT" "'0 0 1 1 *' Europe/Berlin for 24h"

section "the REST mirror serves FreezeService"
run curl -sS -X POST -H "Authorization: Bearer $ED" -H 'Content-Type: application/json' \
  -d '{"Space":"platform","Freeze":"new-year"}' "http://$E2E_HTTP/v1/FreezeService/GetFreeze"
expect_eq 0 "$RC" "curl GetFreeze"
expect_eq "new year" "$(jget Reason)"
expect_eq false "$(jget InForce)"
run curl -sS -X POST -H "Authorization: Bearer $ED" -H 'Content-Type: application/json' \
  -d '{"Space":"platform","Slug":"x","Reason":"r"}' "http://$E2E_HTTP/v1/FreezeService/CreateFreeze"
expect_contains "$OUT" "needs the admin role"
expect_ok cub freeze delete --space platform new-year
expect_eq 0 "$(db -c "SELECT count(*) FROM freezes")"

e2e_finish
