#!/usr/bin/env bash
# The outbox through the real binaries: a publish records its Release and then delivers it; a
# Target that fails leaves the Release recorded and Failed (exit 1, telling not to publish
# again), with a DeliveryFailed event, and cubd's delivery workers retry with backoff until
# the Target takes it. Release numbers count per Space, across Targets. A Release left Pending
# with no cubd delivering (as a kill -9 leaves it) is delivered by the next cubd that starts.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
e2e_init delivery
e2e_start_cubd main
export CUB_SERVER=$E2E_SERVER CUB_TOKEN=$ADMIN_TOKEN

state() {  # state SPACE NUM: the Release's DeliveryState
  db -c "SELECT delivery_state FROM releases WHERE space_slug = '$1' AND release_num = $2"
}

section "setup: a Space releasing to a directory"
expect_ok cub space create platform
expect_ok cub target create --space platform local --provider Directory \
  --param "path=$E2E_TMP/deploy"
expect_ok cub target create --space platform other --provider Directory \
  --param "path=$E2E_TMP/other"
expect_ok cub space create acme-dev
printf 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: acme\ndata:\n  v: "1"\n' \
  >"$E2E_TMP/cm.yaml"
expect_ok cub unit create --space acme-dev config "$E2E_TMP/cm.yaml"
expect_ok cub space update acme-dev --release-target platform/local

section "a publish delivers at once"
expect_ok cub release publish acme-dev
expect_contains "$OUT" "Release 1 of acme-dev published to platform/local"
expect_contains "$OUT" "Delivery: Delivered"
expect_ok cub release get --space acme-dev --release 1 -o json
expect_eq Delivered "$(jget DeliveryState)"
expect_eq 1 "$(jget DeliveryAttempts)"
expect_ne "" "$(jget DeliveredAt)" "DeliveredAt"
expect_eq "$E2E_TMP/deploy/acme-dev" "$(jget Location)"
[[ -f $E2E_TMP/deploy/acme-dev/config.yaml ]] || e2e_fail "config.yaml was not written"
expect_ok cub release list --space acme-dev
expect_contains "$OUT" "DELIVERY"
expect_contains "$OUT" "Delivered"

section "a failing Target: recorded Failed, an event, and no second publish asked for"
# The Space's directory is a file: the Directory provider cannot write there.
rm -rf "$E2E_TMP/deploy/acme-dev"
echo "not a directory" >"$E2E_TMP/deploy/acme-dev"
printf 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: acme\ndata:\n  v: "2"\n' \
  >"$E2E_TMP/cm2.yaml"
expect_ok cub unit update --space acme-dev config "$E2E_TMP/cm2.yaml"
expect_fail 1 "do not publish again" cub release publish acme-dev
expect_contains "$OUT" "Release 2 of acme-dev published to platform/local"
expect_contains "$OUT" "Delivery: Failed (attempt 1)"
expect_contains "$OUT" "is not a directory"
expect_contains "$ERR" "Release 2 of acme-dev is recorded and signed, but its delivery to platform/local failed"
expect_contains "$ERR" "cubd retries it from"
expect_ok cub release get --space acme-dev --release 2 -o json
expect_eq Failed "$(jget DeliveryState)"
expect_eq 1 "$(jget DeliveryAttempts)"
expect_contains "$(jget DeliveryError)" "not a directory"
expect_ne "" "$(jget NextDeliveryAt)" "NextDeliveryAt"
expect_ok cub event list --space acme-dev --where "Kind = 'DeliveryFailed'" -o json
expect_ne 0 "$(jget len)" "DeliveryFailed events"
expect_contains "$(jget 0.Message)" "delivery of Release 2 of space 'acme-dev' to target 'platform/local' failed"
details=$(jget 0.Details)
expect_eq 2 "$(jget ReleaseNum "$details")"
expect_eq 1 "$(jget Attempt "$details")"
expect_ne "" "$(jget NextAttemptAt "$details")" "NextAttemptAt"
# The JSON answer says the same, for scripts (and exits 1 too).
expect_fail 1 "do not publish again" cub release publish acme-dev --release 1 -o json
expect_eq Failed "$(jget DeliveryState)"
expect_eq 3 "$(jget ReleaseNum)"

section "retried with backoff until the Target takes it"
wait_for "a second failed attempt (backoff)" \
  "SELECT delivery_attempts >= 2 FROM releases WHERE space_slug = 'acme-dev' AND release_num = 2"
rm -f "$E2E_TMP/deploy/acme-dev"
wait_for "Releases 2 and 3 delivered by the workers" \
  "SELECT count(*) = 2 FROM releases WHERE space_slug = 'acme-dev' AND release_num IN (2, 3)
     AND delivery_state = 'Delivered'"
expect_ok cub release get --space acme-dev --release 2 -o json
expect_eq "" "$(jget DeliveryError)" "the error is cleared once delivered"
# Release 3 (a rollback to 1) was published after 2, so it is what the directory holds.
expect_contains "$(cat "$E2E_TMP/deploy/acme-dev/config.yaml")" 'v: "1"'

section "release numbers count per Space, whatever the Target"
expect_ok cub space update acme-dev --release-target platform/other
expect_ok cub release publish acme-dev
expect_contains "$OUT" "Release 4 of acme-dev published to platform/other"
expect_eq Delivered "$(state acme-dev 4)"
[[ -f $E2E_TMP/other/acme-dev/config.yaml ]] || e2e_fail "the other target got nothing"

section "a Release left Pending is delivered by the next cubd"
e2e_stop_cubd main
# As a cubd killed between its commit and the delivery leaves it: Pending, in no Target.
db -c "ALTER TABLE releases DISABLE TRIGGER releases_state_only;
       UPDATE releases SET delivery_state = 'Pending', delivered_at = NULL, location = '',
         commit_id = '', delivery_attempts = 0
       WHERE space_slug = 'acme-dev' AND release_num = 4;
       ALTER TABLE releases ENABLE TRIGGER releases_state_only;" || e2e_fail "could not reset"
rm -rf "$E2E_TMP/other/acme-dev"
e2e_start_cubd second
wait_for "Release 4 delivered after the restart" \
  "SELECT delivery_state = 'Delivered' FROM releases WHERE space_slug = 'acme-dev'
     AND release_num = 4"
[[ -f $E2E_TMP/other/acme-dev/config.yaml ]] || e2e_fail "Release 4 was not written again"

section "the trigger keeps the delivery moving forward"
expect_fail 1 "is Delivered; its delivery is final" db -c \
  "UPDATE releases SET delivery_state = 'Pending' WHERE space_slug = 'acme-dev' AND release_num = 2"
expect_fail 1 "is Delivered; its delivery is final" db -c \
  "UPDATE releases SET delivery_state = 'Failed' WHERE space_slug = 'acme-dev' AND release_num = 2"

e2e_finish
