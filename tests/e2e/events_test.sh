#!/usr/bin/env bash
# Queued promotions and the event log through the real binaries: `cub promotion list` (table,
# JSON, --where, visibility) and `withdraw` (by an editor of the base or by whoever queued it,
# refused to a viewer, NOT_FOUND the second time), the Withdrawn event it leaves, `cub event
# list` with --change-order, --where and --limit, the REST mirror of both services, events that
# not even the database owner can change, and --follow printing an event as it is appended.
# Queued rows are written with psql: queueing them is `variant promote --queue`'s, tested with
# the engine.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
e2e_init events
e2e_start_cubd main
export CUB_SERVER=$E2E_SERVER CUB_TOKEN=$ADMIN_TOKEN
owner() { "$E2E_PSQL" -X -q -A -t -v ON_ERROR_STOP=1 "$E2E_DB_URL" "$@"; }
H=http://$E2E_HTTP

# queue CHANGE-ORDER STAGE USER WAITING-FOR: what `variant promote --queue` records.
queue() {
  owner -v co="$1" -v stage="$2" -v who="$3" -v waiting="$4" <<'SQL'
INSERT INTO queued_promotions (base_space_id, stage, change_order_id, queued_by, waiting_for)
SELECT s.id, :'stage', co.id, u.id, :'waiting'
  FROM spaces s JOIN change_orders co ON co.space_id = s.id, users u
 WHERE s.slug = 'app' AND co.slug = :'co' AND u.username = :'who';
SQL
}

section "setup: a base Space, three ChangeOrders, an editor, two viewers, an outsider"
ED=$(create_user ed) || e2e_fail "create_user ed"
VIC=$(create_user vic) || e2e_fail "create_user vic"
QUINN=$(create_user quinn) || e2e_fail "create_user quinn"
NOBODY=$(create_user nobody) || e2e_fail "create_user nobody"
expect_ok cub space create app
expect_ok cub space grant app editor --user ed
expect_ok cub space grant app viewer --user vic
expect_ok cub space grant app viewer --user quinn
for co in co1 co2 co3; do expect_ok cub changeorder create --space app "$co" --description "$co"; done
queue co1 prod quinn $'approval: 1 of 2 approvals in app-prod\nHealthy: app-staging is Progressing' ||
  e2e_fail "queue co1"
queue co2 staging quinn 'Released: app-dev has no release' || e2e_fail "queue co2"

section "cub promotion list"
expect_ok cub promotion list
expect_match "$OUT" "CHANGE-ORDER +STAGE +QUEUED-BY +QUEUED-AT +WAITING-FOR" "the header"
expect_match "$OUT" "app/co1 +prod +quinn +20[0-9-]+T[0-9:.]+Z +approval: 1 of 2 approvals in app-prod \\(\\+1 more\\)" \
  "co1's row: the first thing it waits for and how many more"
expect_match "$OUT" "app/co2 +staging +quinn .* Released: app-dev has no release" "co2s row"
expect_ok cub promotion list -o json
expect_eq 2 "$(jget len)" "two queued"
expect_eq app/co1 "$(jget 0.ChangeOrder)"
expect_eq app "$(jget 0.BaseSpace)"
expect_eq quinn "$(jget 0.QueuedBy)"
expect_eq "Healthy: app-staging is Progressing" "$(jget 0.WaitingFor.1)"
expect_ok cub promotion list --space app --where "Stage = 'staging'" -o json
expect_eq 1 "$(jget len)" "--where Stage"
expect_eq app/co2 "$(jget 0.ChangeOrder)"
expect_ok cub promotion list --where "ChangeOrder = 'app/co1' AND WaitingFor ~ 'Healthy'" -o json
expect_eq 1 "$(jget len)" "--where ChangeOrder and WaitingFor"
expect_fail 1 "Failed: --where: unknown field 'Nope'" cub promotion list --where "Nope = 1"
expect_ok as "$NOBODY" cub promotion list -o json
expect_eq 0 "$(jget len)" "someone with no role on the base sees none"
expect_fail 1 "space 'app' not found" as "$NOBODY" cub promotion list --space app
expect_ok as "$VIC" cub promotion list --space app -o json
expect_eq 2 "$(jget len)" "a viewer of the base sees them"

section "cub promotion withdraw"
expect_fail 2 "--target-stage is required" cub promotion withdraw --change-order app/co1
expect_fail 1 "user 'vic' may not withdraw the promotion of change order 'app/co1' queued into stage 'prod': only quinn, who queued it, or an editor of space 'app' may" \
  as "$VIC" cub promotion withdraw --change-order app/co1 --target-stage prod
expect_fail 1 "not found" as "$NOBODY" cub promotion withdraw --change-order app/co1 --target-stage prod
expect_fail 1 "no promotion of change order 'app/co3' into stage 'prod' is queued (change order 'app/co1' is queued there)" \
  cub promotion withdraw --change-order app/co3 --target-stage prod
expect_ok as "$ED" cub promotion withdraw --change-order app/co1 --target-stage prod
expect_eq "Withdrew the promotion of change order app/co1 into stage prod (queued by quinn)" "$OUT"
expect_fail 1 "Failed: no promotion of change order 'app/co1' into stage 'prod' is queued" \
  as "$ED" cub promotion withdraw --change-order app/co1 --target-stage prod
expect_ok cub promotion list -o json
expect_eq 1 "$(jget len)" "one left"
expect_eq 0 "$(owner -c "SELECT count(*) FROM queued_promotions q JOIN change_orders co ON co.id = q.change_order_id WHERE co.slug = 'co1'")" \
  "the row is gone"

section "cub event list"
expect_ok cub event list --change-order app/co1
expect_match "$OUT" "ID +AT +KIND +SPACE +CHANGE-ORDER +STAGE +USER +MESSAGE" "the header"
expect_match "$OUT" "[0-9]+ +20[0-9-]+T[0-9:.]+Z +Withdrawn +app +app/co1 +prod +ed +withdrew the promotion into stage prod queued by quinn" \
  "the Withdrawn event"
expect_ok cub event list --change-order app/co1 -o json
expect_eq 1 "$(jget len)" "one event of co1"
expect_eq Withdrawn "$(jget 0.Kind)"
expect_eq ed "$(jget 0.User)"
expect_eq quinn "$(jget QueuedBy "$(jget 0.Details)")" "the details name who queued it"
FIRST_ID=$(jget 0.ID)
# Another kind of event, in another Space, as the engine would record it.
expect_ok cub space create other
owner -c "INSERT INTO events (kind, space_id, space_slug, stage, username, message)
  SELECT 'GateOpened', id, slug, 'dev', 'automatic', 'Released held' FROM spaces WHERE slug = 'other'" ||
  e2e_fail "insert an event"
expect_ok cub event list -o json
expect_eq 2 "$(jget len)" "every event, for an admin"
expect_ok cub event list --where "Kind = 'Withdrawn'" -o json
expect_eq 1 "$(jget len)" "--where Kind"
expect_eq Withdrawn "$(jget 0.Kind)"
expect_ok cub event list --where "User = 'automatic' AND Stage = 'dev'" -o json
expect_eq GateOpened "$(jget 0.Kind)"
expect_ok cub event list --space other -o json
expect_eq 1 "$(jget len)" "--space"
expect_ok cub event list --after-id "$FIRST_ID" -o json
expect_eq GateOpened "$(jget 0.Kind)" "--after-id"
expect_ok cub event list -o json
ALL_EVENTS=$(jget len)
expect_ok cub event list --limit 1 -o json
expect_eq 1 "$(jget len)" "--limit 1"
expect_contains "$ERR" "More rows follow: repeat the command with --page-token " "--limit 1"
expect_fail 1 "Failed: --where: unknown field 'Nope'" cub event list --where "Nope = 'x'"
# --limit above cubd's page of 1000 is served in pages by cub; the API still refuses it.
expect_ok cub event list --limit 5000 -o json
expect_eq "$ALL_EVENTS" "$(jget len)" "--limit 5000: every event"
expect_fail 1 "Failed: --limit 5000 is out of range: give 1 to 1000" \
  cub event list --follow --limit 5000
expect_fail 1 "change order 'nope' not found in space 'app'" cub event list --change-order app/nope
expect_ok as "$VIC" cub event list -o json
expect_eq 1 "$(jget len)" "a viewer of app sees app's events only"
expect_ok as "$NOBODY" cub event list -o json
expect_eq 0 "$(jget len)" "someone with no role sees none"
expect_fail 1 "not found" as "$NOBODY" cub event list --change-order app/co1

section "the REST mirror"
run curl -sS -X POST -H "Authorization: Bearer $ADMIN_TOKEN" -H 'Content-Type: application/json' \
  --data '{"Space":"app"}' "$H/v1/PromotionService/ListQueuedPromotions"
expect_eq 0 "$RC" "curl ListQueuedPromotions"
expect_eq app/co2 "$(jget QueuedPromotions.0.ChangeOrder)"
run curl -sS -X POST -H "Authorization: Bearer $ADMIN_TOKEN" -H 'Content-Type: application/json' \
  --data '{"ChangeOrder":"app/co1","Limit":10}' "$H/v1/EventService/ListEvents"
expect_eq 0 "$RC" "curl ListEvents"
expect_eq Withdrawn "$(jget Events.0.Kind)"
run curl -sS -X POST -H "Authorization: Bearer $ADMIN_TOKEN" -H 'Content-Type: application/json' \
  --data '{"Limit":-1}' "$H/v1/EventService/ListEvents"
expect_contains "$(jget message)" "Limit -1 is out of range" "REST names the field"

section "events cannot be changed, even by the database owner"
run owner -c "UPDATE events SET kind = 'Promoted'"
expect_ne 0 "$RC" "UPDATE refused"
expect_contains "$ERR" "events is append-only: UPDATE refused"
run owner -c "DELETE FROM events"
expect_ne 0 "$RC" "DELETE refused"
expect_contains "$ERR" "events is append-only: DELETE refused"
run owner -c "TRUNCATE events"
expect_contains "$ERR" "events is append-only: TRUNCATE refused"
expect_ok cub event list -o json
expect_eq 2 "$(jget len)" "both events are still there"
expect_eq Withdrawn "$(jget 0.Kind)"

section "cub variant promote --queue: the flags it goes with"
expect_fail 2 "--force excludes --queue" \
  cub variant promote --change-order app/co3 --queue --force --force-reason "x"
expect_fail 2 "--where-space excludes --queue" \
  cub variant promote --change-order app/co3 --queue --where-space "Slug = 'app'"
expect_ok cub variant promote --help
expect_contains "$OUT" "queue the promotion instead of failing" "--queue is documented"

section "cub event list --follow"
FOLLOW_OUT=$E2E_TMP/follow.out
cub event list --follow -o json --space app >"$FOLLOW_OUT" 2>"$E2E_TMP/follow.err" &
FOLLOW_PID=$!
# It prints what there is first: the Withdrawn event of co1.
for _ in $(seq 100); do grep -q '"Kind":"Withdrawn"' "$FOLLOW_OUT" && break; sleep 0.1; done
expect_eq 1 "$(grep -c '"Kind":"Withdrawn"' "$FOLLOW_OUT")" "the event there was, one JSON object per line"
# quinn, a viewer, withdraws the promotion quinn queued.
expect_ok as "$QUINN" cub promotion withdraw --change-order app/co2 --target-stage staging
for _ in $(seq 100); do grep -q '"ChangeOrder":"app/co2"' "$FOLLOW_OUT" && break; sleep 0.1; done
kill "$FOLLOW_PID" 2>/dev/null
wait "$FOLLOW_PID" 2>/dev/null
expect_contains "$(cat "$FOLLOW_OUT")" '"ChangeOrder":"app/co2"' "the new event printed within 10 s"
expect_eq 2 "$(wc -l <"$FOLLOW_OUT" | tr -d ' ')" "two lines: nothing printed twice"
LAST=$(tail -n 1 "$FOLLOW_OUT")
expect_eq Withdrawn "$(jget Kind "$LAST")"
expect_eq quinn "$(jget User "$LAST")"
expect_eq staging "$(jget Stage "$LAST")"
expect_eq "" "$(cat "$E2E_TMP/follow.err")" "nothing on stderr"

e2e_finish
