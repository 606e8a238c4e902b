#!/usr/bin/env bash
# The promotion engine through the real binaries: dev Automatic with AutoRelease, staging
# Automatic gated on Released and Healthy, prod Manual with a promotion queued for two
# approvals; a refused manual promote into an Automatic Stage; a queued promotion replaced and
# carried out once its approvals arrive; a newer ChangeOrder superseding an older one; a
# rollback under an Automatic Stage switched to Manual; and two replicas, one killed mid-stage.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
e2e_init engine
e2e_start_cubd main
export CUB_SERVER=$E2E_SERVER CUB_TOKEN=$ADMIN_TOKEN

latest_release() {  # latest_release SPACE: the number of its latest Release
  db -c "SELECT max(r.release_num) FROM releases r JOIN spaces s ON s.id = r.space_id WHERE s.slug = '$1'"
}
co_id() { db -c "SELECT co.id FROM change_orders co JOIN spaces s ON s.id = co.space_id WHERE s.slug = '$1' AND co.slug = '$2'"; }
releases_of() {  # releases_of SPACE CO-REF: how many Releases SPACE has of that ChangeOrder
  db -c "SELECT count(*) FROM releases r JOIN spaces s ON s.id = r.space_id WHERE s.slug = '$1' AND r.change_order = '$2'"
}
events() {  # events KIND CO-REF [STAGE]
  db -c "SELECT count(*) FROM events WHERE kind = '$1' AND change_order = '$2' AND ('${3:-}' = '' OR stage = '${3:-}')"
}

section "setup: three stages, users, targets"
ALICE=$(create_user alice --group release-approvers) || e2e_fail "user"
BOB=$(create_user bob --group release-approvers) || e2e_fail "user"
DEPLOYER=$(create_user deployer) || e2e_fail "user"
ARGO=$(create_user argocd --service-account) || e2e_fail "user"
expect_ok cub space create platform
expect_ok cub target create --space platform local --provider Directory \
  --param "path=$E2E_TMP/deploy/{space}"
cat >"$E2E_TMP/flow.yaml" <<'YAML'
Stages:
  - Name: dev
    WhereSpace: "Labels.Stage = 'Development'"
    Mode: Automatic
    AutoRelease: true
  - Name: staging
    WhereSpace: "Labels.Stage = 'Staging'"
    Mode: Automatic
    Prerequisites: [Released, Healthy]
  - Name: prod
    WhereSpace: "Labels.Stage = 'Production'"
    Prerequisites: [two-approvers]
AttestationPrerequisites:
  - Name: two-approvers
    Count: 2
YAML
expect_ok cub changeworkflow create --space platform flow --filename "$E2E_TMP/flow.yaml"
expect_ok cub changeworkflow get --space platform flow -o json
expect_eq Automatic "$(jget Stages.0.Mode)"
expect_eq true "$(jget Stages.0.AutoRelease)"
expect_eq Manual "$(jget Stages.2.Mode)"
expect_ok cub space create acme-base
deployment v1 >"$E2E_TMP/v1.yaml"
expect_ok cub unit create --space acme-base deployment "$E2E_TMP/v1.yaml"
for s in dev-1 dev-2; do expect_ok cub variant create "acme-$s" acme-base --stage Development; done
expect_ok cub variant create acme-staging acme-base --stage Staging
expect_ok cub variant create acme-prod acme-base --stage Production
for s in acme-dev-1 acme-dev-2 acme-staging acme-prod; do
  expect_ok cub space update "$s" --release-target platform/local
  expect_ok cub space grant "$s" reporter --user argocd
done
for s in acme-base acme-dev-1 acme-dev-2 acme-staging acme-prod; do
  expect_ok cub space grant "$s" editor --user deployer
done
expect_ok cub space grant acme-staging approver --group release-approvers
expect_ok cub space grant platform viewer --user deployer

section "newest wins: of two ChangeOrders, the older is superseded in an Automatic Stage"
# Two changes are made and named while dev is still Manual; the newer is promoted into dev by
# hand; then dev is made Automatic: the older is superseded there, the newer published.
expect_ok cub changeworkflow update --space platform flow --stage-mode dev=Manual
expect_ok as "$DEPLOYER" cub function set --space acme-base --unit deployment \
  -- set-image-reference-by-uri ghcr.io/acme/acme ":v2"
expect_ok as "$DEPLOYER" cub changeorder create --space acme-base v2 --description v2 \
  --change-workflow platform/flow
expect_ok as "$DEPLOYER" cub function set --space acme-base --unit deployment \
  -- set-image-reference-by-uri ghcr.io/acme/acme ":v3"
expect_ok as "$DEPLOYER" cub changeorder create --space acme-base v3 --description v3 \
  --change-workflow platform/flow
engine_idle
expect_eq 0 "$(db -c "SELECT count(*) FROM events WHERE kind = 'Promoted'")"
expect_ok as "$DEPLOYER" cub variant promote --change-order acme-base/v3 --wait
expect_contains "$OUT" "cubd acted on acme-base/v3:"
expect_contains "$OUT" "Promoted dev by deployer"
expect_eq 1 "$(events Promoted acme-base/v3 dev)"
expect_eq deployer "$(db -c "SELECT username FROM events WHERE kind = 'Promoted' AND change_order = 'acme-base/v3'")"
expect_ok cub changeworkflow update --space platform flow --stage-mode dev=Automatic
wait_for "v2 superseded in dev" \
  "SELECT count(*) = 1 FROM events WHERE kind = 'Superseded' AND change_order = 'acme-base/v2' AND stage = 'dev'"
expect_contains "$(db -c "SELECT message FROM events WHERE kind = 'Superseded' AND change_order = 'acme-base/v2'")" "newer change order"

section "dev has AutoRelease: the newer ChangeOrder is published there by the engine"
wait_for "v3 published in both dev Spaces" \
  "SELECT count(*) = 2 FROM releases WHERE change_order = 'acme-base/v3'"
engine_idle
expect_eq 0 "$(events Promoted acme-base/v2)"
expect_eq 0 "$(db -c "SELECT count(*) FROM releases WHERE change_order = 'acme-base/v2'")"
expect_eq 1 "$(events Superseded acme-base/v2 dev)"  # recorded once
expect_eq 2 "$(events Published acme-base/v3)"
expect_eq automatic "$(db -c "SELECT DISTINCT u.username FROM releases r JOIN users u ON u.id = r.published_by WHERE r.change_order = 'acme-base/v3'")"

section "a manual promote into an Automatic Stage is refused, naming the mode"
expect_fail 1 "stage 'staging' of workflow 'platform/flow' is Automatic" \
  as "$DEPLOYER" cub variant promote --change-order acme-base/v3
expect_contains "$ERR" "--stage-mode staging=Manual"
# A dry run may look: it reports the gates, not the mode.
expect_fail 1 "is not Healthy" as "$DEPLOYER" cub variant promote --change-order acme-base/v3 --dry-run

section "staging waits for Healthy in dev; the reporter's write-back opens it"
expect_ok as "$ARGO" cub release set-status --space acme-dev-1 --release "$(latest_release acme-dev-1)" \
  --sync Synced --health Healthy
engine_idle
expect_eq 0 "$(events Promoted acme-base/v3 staging)"
expect_ok as "$ARGO" cub release set-status --space acme-dev-2 --release "$(latest_release acme-dev-2)" \
  --sync Synced --health Healthy
wait_for "v3 promoted into staging" \
  "SELECT count(*) = 1 FROM events WHERE kind = 'Promoted' AND change_order = 'acme-base/v3' AND stage = 'staging'"
expect_eq automatic "$(db -c "SELECT username FROM events WHERE kind = 'Promoted' AND change_order = 'acme-base/v3' AND stage = 'staging'")"
# staging has no AutoRelease: nothing is published there.
engine_idle
expect_eq 0 "$(releases_of acme-staging acme-base/v3)"
expect_eq 2 "$(events StatusReported acme-base/v3)"
expect_ok cub changeorder get --space acme-base v3 -o json
expect_eq staging "$(jget Stage)"

section "prod is Manual: a promotion queued for two approvals in staging"
expect_fail 2 "--force excludes --queue" as "$DEPLOYER" cub variant promote \
  --change-order acme-base/v3 --queue --force --force-reason x
# The server refuses it too, whoever the client.
expect_ok curl -sS -X POST -H "Authorization: Bearer $DEPLOYER" \
  -d '{"ChangeOrder": "acme-base/v3", "Queue": true, "Force": true, "ForceReason": "x"}' \
  "http://$E2E_HTTP/v1/ChangeOrderService/Promote"
expect_contains "$OUT" "Queue and Force exclude each other"
expect_fail 1 "requires two-approvers" as "$DEPLOYER" cub variant promote --change-order acme-base/v3
expect_ok as "$DEPLOYER" cub variant promote --change-order acme-base/v3 --queue -o json
expect_eq prod "$(jget Queued.Stage)"
expect_eq deployer "$(jget Queued.QueuedBy)"
expect_contains "$(jget Queued.WaitingFor)" "two-approvers"
expect_eq 0 "$(jget Landed)"
expect_eq 1 "$(db -c "SELECT count(*) FROM queued_promotions")"
expect_eq 1 "$(events Queued acme-base/v3 prod)"
expect_ok cub promotion list --space acme-base
expect_contains "$OUT" "acme-base/v3"
expect_contains "$OUT" "two-approvers"

section "queueing another ChangeOrder into prod replaces it; queueing the first again replaces that"
expect_ok as "$DEPLOYER" cub variant promote --change-order acme-base/v2 --target-stage prod --queue -o json
expect_eq acme-base/v3 "$(jget Replaced)"
expect_eq 1 "$(events Replaced acme-base/v3 prod)"
expect_eq "$(co_id acme-base v2)" "$(db -c "SELECT change_order_id FROM queued_promotions")"
expect_ok as "$DEPLOYER" cub variant promote --change-order acme-base/v3 --target-stage prod --queue -o json
expect_eq acme-base/v2 "$(jget Replaced)"
expect_eq "$(co_id acme-base v3)" "$(db -c "SELECT change_order_id FROM queued_promotions")"
expect_ok as "$DEPLOYER" cub variant promote --change-order acme-base/v2 --target-stage prod --queue
expect_contains "$OUT" "Replaced the queued promotion of acme-base/v3"
expect_ok as "$DEPLOYER" cub promotion withdraw --change-order acme-base/v2 --target-stage prod
expect_eq 0 "$(db -c "SELECT count(*) FROM queued_promotions")"
expect_ok as "$DEPLOYER" cub variant promote --change-order acme-base/v2 --target-stage prod --queue
expect_contains "$OUT" "Queued promotion of acme-base/v2 into stage prod"
section "aborting a ChangeOrder withdraws its queued promotion"
expect_ok as "$DEPLOYER" cub changeorder update --space acme-base v2 --aborted-reason "superseded by v3"
expect_eq 0 "$(db -c "SELECT count(*) FROM queued_promotions")"
expect_eq 2 "$(events Withdrawn acme-base/v2 prod)"  # by hand, then by the abort
expect_ok as "$DEPLOYER" cub variant promote --change-order acme-base/v3 --target-stage prod --queue -o json
expect_eq "" "$(jget Replaced)"

section "the approvals arrive: the engine carries the queued promotion out, as the user who queued it"
expect_ok as "$ALICE" cub variant approve --change-order acme-base/v3 --stage staging
engine_idle
expect_eq 0 "$(events Promoted acme-base/v3 prod)"
expect_eq t "$(db -c "SELECT waiting_for LIKE '%has 1 of 2%' FROM queued_promotions")"
expect_ok as "$BOB" cub variant approve --change-order acme-base/v3 --stage staging
wait_for "v3 promoted into prod" \
  "SELECT count(*) = 1 FROM events WHERE kind = 'Promoted' AND change_order = 'acme-base/v3' AND stage = 'prod'"
expect_eq deployer "$(db -c "SELECT username FROM events WHERE kind = 'Promoted' AND change_order = 'acme-base/v3' AND stage = 'prod'")"
expect_contains "$(db -c "SELECT message FROM events WHERE kind = 'Promoted' AND change_order = 'acme-base/v3' AND stage = 'prod'")" "queued by deployer"
expect_eq 0 "$(db -c "SELECT count(*) FROM queued_promotions")"
expect_ok cub event list --change-order acme-base/v3 --where "Kind = 'Promoted'" -o json
expect_eq 3 "$(jget len)"
expect_eq '["Released","Healthy","two-approvers"]' "$(jget 2.Details | python3 -c 'import json,sys; print(json.dumps(json.loads(sys.stdin.read())["Gates"], separators=(",", ":")))')"
# prod is Manual: the engine publishes nothing there.
engine_idle
expect_eq 0 "$(releases_of acme-prod acme-base/v3)"
expect_ok as "$DEPLOYER" cub release publish acme-prod --revision ChangeOrder:acme-base/v3 --wait
expect_contains "$OUT" "cubd acted on acme-base/v3:"
expect_contains "$OUT" "Published by deployer"

section "rollback under an Automatic Stage with AutoRelease: switched to Manual, left so"
expect_ok cub changeworkflow update --space platform flow --stage-mode dev=Manual
first=$(db -c "SELECT min(r.release_num) FROM releases r JOIN spaces s ON s.id = r.space_id WHERE s.slug = 'acme-dev-1'")
expect_ok as "$DEPLOYER" cub release publish acme-dev-1 --release "$first" --wait
expect_contains "$OUT" "This Release carries no ChangeOrder: nothing to wait for"
expect_ok as "$DEPLOYER" cub function set --space acme-base --unit deployment \
  -- set-image-reference-by-uri ghcr.io/acme/acme ":v4"
expect_ok as "$DEPLOYER" cub changeorder create --space acme-base v4 --description v4 \
  --change-workflow platform/flow
before=$(db -c "SELECT count(*) FROM releases")
expect_ok as "$ARGO" cub release set-status --space acme-dev-1 --release "$(latest_release acme-dev-1)" \
  --sync Synced --health Healthy
engine_idle
expect_eq "$before" "$(db -c "SELECT count(*) FROM releases")"
expect_eq 0 "$(events Promoted acme-base/v4)"
expect_ok cub changeworkflow update --space platform flow --stage-mode dev=Automatic
wait_for "v4 promoted and published once dev is Automatic again" \
  "SELECT count(*) = 2 FROM releases WHERE change_order = 'acme-base/v4'"

section "events are append-only"
expect_fail 1 "append-only" db -c "UPDATE events SET message = 'x'"
expect_fail 1 "append-only" db -c "DELETE FROM events"

section "two replicas: one killed mid-stage, the other finishes, nothing applied twice"
e2e_start_cubd second
expect_ok cub space create fleet-base
expect_ok cub unit create --space fleet-base deployment "$E2E_TMP/v1.yaml"
for i in $(seq 1 24); do
  expect_ok cub variant create "fleet-$i" fleet-base --stage Development
  expect_ok cub space update "fleet-$i" --release-target platform/local
done
expect_ok cub function set --space fleet-base --unit deployment \
  -- set-image-reference-by-uri ghcr.io/acme/acme ":v7"
expect_ok cub changeorder create --space fleet-base v7 --description v7 --change-workflow platform/flow
# While a replica works on the ChangeOrder (it holds the engine's advisory lock: found by the
# session's client port), kill -9 it. AutoRelease publishes the whole Stage in one transaction,
# so the kill leaves either none of its Releases or all of them, never a part.
deadline=$((SECONDS + 30))
port=""
while ((SECONDS < deadline)) && [[ -z $port ]]; do
  port=$(db -c "SELECT a.client_port FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid WHERE l.locktype = 'advisory' AND l.classid = 1668637285 AND l.granted LIMIT 1")
  [[ -n $port ]] || sleep 0.01
done
[[ -n $port ]] || e2e_fail "no replica took the engine's lock for the new change order"
holder=$(ss -tnpH "sport = :$port" | grep -o 'pid=[0-9]*' | head -1 | cut -d= -f2)
victim=""
for name in main second; do [[ ${CUBD_PID[$name]} == "$holder" ]] && victim=$name; done
[[ -n $victim ]] || e2e_fail "the lock holder (pid '$holder', port $port) is not one of the replicas"
_e2e_pass "replica '$victim' holds the change order; killing it"
kill -9 "${CUBD_PID[$victim]}"
wait "${CUBD_PID[$victim]}" 2>/dev/null
unset "CUBD_PID[$victim]"
published=$(db -c "SELECT count(*) FROM releases WHERE change_order = 'fleet-base/v7'")
[[ $published == 0 || $published == 24 ]] ||
  e2e_fail "the kill left $published of the stage's 24 Releases: the stage publish is not one transaction"
_e2e_pass "the kill left $published of 24 Releases (none or all)"
wait_for "v7 published in all 24 Spaces" \
  "SELECT count(*) = 24 FROM releases WHERE change_order = 'fleet-base/v7'"
engine_idle
expect_eq 24 "$(db -c "SELECT count(DISTINCT space_id) FROM releases WHERE change_order = 'fleet-base/v7'")"
expect_eq 24 "$(db -c "SELECT count(*) FROM releases WHERE change_order = 'fleet-base/v7'")" "v7 Releases (none twice)"
expect_eq 1 "$(events Promoted fleet-base/v7 dev)"

section "--no-engine serves the API only; the work waits for a replica with the engine"
# Whichever replica survived the kill is stopped: no engine runs from here on.
for name in main second; do
  if [[ -n ${CUBD_PID[$name]:-} ]]; then e2e_stop_cubd "$name"; fi
done
e2e_start_cubd apionly --no-engine
export CUB_SERVER=${CUBD_GRPC[apionly]}
expect_contains "$(cat "${CUBD_LOG[apionly]}")" "engine off (--no-engine)"
cat >"$E2E_TMP/manual.yaml" <<'YAML'
Stages:
  - Name: dev
    WhereSpace: "Labels.Stage = 'Development'"
  - Name: prod
    WhereSpace: "Labels.Stage = 'Production'"
    Prerequisites: [Released]
YAML
expect_ok cub changeworkflow create --space platform manual --filename "$E2E_TMP/manual.yaml"
expect_ok cub space create gate-base
expect_ok cub unit create --space gate-base deployment "$E2E_TMP/v1.yaml"
expect_ok cub variant create gate-dev gate-base --stage Development
expect_ok cub variant create gate-prod gate-base --stage Production
expect_ok cub space update gate-dev --release-target platform/local
expect_ok cub function set --space gate-base --unit deployment \
  -- set-image-reference-by-uri ghcr.io/acme/acme ":v8"
expect_ok cub changeorder create --space gate-base v8 --description v8 --change-workflow platform/manual
# The promotion lands; --wait then finds no engine to wait for.
expect_fail 1 "is a cubd with the promotion engine running?" \
  cub variant promote --change-order gate-base/v8 --wait --timeout 2
expect_contains "$OUT" "gate-dev"
expect_ok cub release publish gate-dev --revision ChangeOrder:gate-base/v8
expect_ok cub changeorder get --space gate-base v8 -o json
expect_eq true "$(jget Engine.Pending)"
expect_ok cub changeorder get --space gate-base v8
expect_contains "$OUT" "pending: cubd has yet to act"
expect_eq 0 "$(events GateOpened gate-base/v8)"

section "a Manual stage whose gates now hold is recorded as GateOpened, once"
e2e_start_cubd engine
wait_for "GateOpened for prod" \
  "SELECT count(*) = 1 FROM events WHERE kind = 'GateOpened' AND change_order = 'gate-base/v8' AND stage = 'prod'"
engine_idle
expect_ok cub changeorder get --space gate-base v8 -o json
expect_eq false "$(jget Engine.Pending)"
expect_ok cub release set-status --space gate-dev --release "$(latest_release gate-dev)" \
  --sync Synced --health Healthy
engine_idle
expect_eq 1 "$(events GateOpened gate-base/v8 prod)"
expect_eq 0 "$(events Promoted gate-base/v8 prod)"  # Manual: left to people

section "a Space that fails is retried with backoff, not in a hot loop"
# The user who queues may not write one prod Space: carried out, that Space fails every time.
LIMITED=$(create_user limited) || e2e_fail "user"
expect_ok cub space create fail-base
expect_ok cub unit create --space fail-base deployment "$E2E_TMP/v1.yaml"
expect_ok cub variant create fail-dev fail-base --stage Development
expect_ok cub variant create fail-prod-1 fail-base --stage Production
expect_ok cub variant create fail-prod-2 fail-base --stage Production
expect_ok cub space update fail-dev --release-target platform/local
for s in fail-base fail-dev fail-prod-1; do expect_ok cub space grant "$s" editor --user limited; done
expect_ok cub space grant fail-prod-2 viewer --user limited
expect_ok cub space grant platform viewer --user limited
expect_ok cub function set --space fail-base --unit deployment \
  -- set-image-reference-by-uri ghcr.io/acme/acme ":v9"
expect_ok cub changeorder create --space fail-base v9 --description v9 --change-workflow platform/manual
expect_ok as "$LIMITED" cub variant promote --change-order fail-base/v9
expect_ok as "$LIMITED" cub variant promote --change-order fail-base/v9 --queue
expect_contains "$OUT" "Queued promotion of fail-base/v9 into stage prod"
expect_ok cub release publish fail-dev --revision ChangeOrder:fail-base/v9
wait_for "the queued promotion carried out, fail-prod-1 landed" \
  "SELECT count(*) = 1 FROM events WHERE kind = 'Promoted' AND change_order = 'fail-base/v9' AND stage = 'prod'"
sleep 3
failures=$(events PromotionFailed fail-base/v9 prod)
((failures >= 1 && failures <= 4)) ||
  e2e_fail "expected 1 to 4 PromotionFailed events within about 3 s (backoff 1 s, 2 s, ...), got $failures"
_e2e_pass "backoff: $failures PromotionFailed events in about 3 s"
expect_eq t "$(db -c "SELECT attempts >= 1 AND due_at > now() AND last_error LIKE '%failed%' FROM engine_work WHERE change_order_id = '$(co_id fail-base v9)'")"
expect_ok cub changeorder get --space fail-base v9
expect_contains "$OUT" "retries at"
expect_ok cub promotion list --space fail-base
expect_contains "$OUT" "fail-base/v9"

section "cubd refuses a token for the engine's own user"
expect_fail 1 "promotion engine" cubd user token automatic --database-url "$E2E_DB_URL"

e2e_finish
