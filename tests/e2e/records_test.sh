#!/usr/bin/env bash
# The records are append-only, checked with psql: cubd's runtime role cannot change or remove
# them, nor drop their triggers or alter their tables; even the owner is refused by the
# triggers; the live status of a Release still changes through cub; deleting a Space keeps its
# records; an explicit purge (as the owner) removes them and is recorded; cubd serve refuses
# to run as the owner or on a schema that is not current; edited signed fields read as
# tampered; and the embedded database is served as the runtime role.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
e2e_init records
e2e_start_cubd main
export CUB_SERVER=$E2E_SERVER CUB_TOKEN=$ADMIN_TOKEN
owner() { "$E2E_PSQL" -X -q -A -t -v ON_ERROR_STOP=1 "$E2E_DB_URL" "$@"; }
runtime() { "$E2E_PSQL" -X -q -A -t -v ON_ERROR_STOP=1 "$E2E_SERVE_URL" "$@"; }

cat >"$E2E_TMP/cm.yaml" <<'YAML'
apiVersion: v1
kind: ConfigMap
metadata:
  name: app
data:
  greeting: hello
YAML

section "setup: a space with a release and an attestation"
ALICE=$(create_user alice) || e2e_fail "create_user alice"
expect_ok cub space create doomed
expect_ok cub target create --space doomed out --provider Directory --param "path=$E2E_TMP/out"
expect_ok cub space update doomed --release-target doomed/out
expect_ok cub unit create --space doomed app "$E2E_TMP/cm.yaml"
expect_ok cub release publish doomed
expect_ok cub space grant doomed approver --user alice
expect_ok as "$ALICE" cub variant approve doomed
SPACE_ID=$(owner -c "SELECT id FROM spaces WHERE slug = 'doomed'")
[[ -n $SPACE_ID ]] || e2e_fail "no space id"

section "the runtime role cannot change or remove records"
expect_eq cub_serve "$(runtime -c 'SELECT current_user')" "cubd's role in the tests"
run runtime -c "DELETE FROM revisions"
expect_ne 0 "$RC" "runtime DELETE revisions"
expect_contains "$ERR" "permission denied for table revisions"
run runtime -c "UPDATE revisions SET data = 'x'"
expect_contains "$ERR" "permission denied for table revisions"
run runtime -c "UPDATE releases SET description = 'edited'"
expect_contains "$ERR" "permission denied for table releases"
run runtime -c "UPDATE releases SET sync_status = 'Synced'"
expect_contains "$ERR" "permission denied for table releases"
run runtime -c "DELETE FROM releases"
expect_contains "$ERR" "permission denied for table releases"
run runtime -c "TRUNCATE attestations CASCADE"
expect_contains "$ERR" "permission denied for table attestations"
run runtime -c "DELETE FROM attestation_revisions"
expect_contains "$ERR" "permission denied for table attestation_revisions"
run runtime -c "DELETE FROM release_units"
expect_contains "$ERR" "permission denied for table release_units"
run runtime -c "DELETE FROM deployments"
expect_contains "$ERR" "permission denied for table deployments"
run runtime -c "DROP TRIGGER revisions_append_only ON revisions"
expect_contains "$ERR" "must be owner of relation revisions"
run runtime -c "ALTER TABLE releases DISABLE TRIGGER releases_state_only"
expect_contains "$ERR" "must be owner of table releases"
run runtime -c "ALTER TABLE attestations ADD COLUMN x int"
expect_contains "$ERR" "must be owner of table attestations"
run runtime -c "CREATE TABLE sneaky (x int)"
expect_contains "$ERR" "permission denied for schema public"
run runtime -c "SELECT cub_purge_space('$SPACE_ID', 'no', 'me')"
expect_contains "$ERR" "permission denied for function cub_purge_space"
expect_eq 1 "$(runtime -c 'SELECT count(*) FROM releases')" "releases untouched"

section "even the owner is refused by the triggers"
for table in revisions release_units attestations attestation_revisions releases deployments; do
  run owner -c "DELETE FROM $table"
  expect_contains "$ERR" "$table is append-only: DELETE refused"
  run owner -c "TRUNCATE $table CASCADE"
  expect_contains "$ERR" "is append-only: TRUNCATE refused"
done
run owner -c "UPDATE revisions SET data = 'x'"
expect_contains "$ERR" "revisions is append-only: UPDATE refused"
run owner -c "UPDATE release_units SET revision_num = 0"
expect_contains "$ERR" "release_units is append-only: UPDATE refused"
run owner -c "UPDATE attestations SET note = 'x'"
expect_contains "$ERR" "attestations is append-only: UPDATE refused"
run owner -c "UPDATE attestation_revisions SET revision_num = 0"
expect_contains "$ERR" "attestation_revisions is append-only: UPDATE refused"
run owner -c "UPDATE releases SET description = 'edited', bundle_digest = 'sha256:00'"
expect_contains "$ERR" "UPDATE of bundle_digest, description refused"
run owner -c "UPDATE deployments SET started_at = now() - interval '1 day'"
expect_contains "$ERR" "deployments is append-only: UPDATE of started_at refused"
run owner -c "UPDATE releases SET location = 'elsewhere'"
expect_contains "$ERR" "its location and commit are written once"
# The state functions check what they are given.
RELEASE_ID=$(owner -c "SELECT id FROM releases LIMIT 1")
run runtime -c "SELECT cub_set_release_status('$RELEASE_ID', 'Bogus', 'Healthy', '', '')"
expect_contains "$ERR" "release status: sync Bogus"
# A runtime cannot borrow the purge's way past the triggers.
run runtime -c "SELECT set_config('cub.purge', (SELECT id::text FROM releases LIMIT 1), false);
                DELETE FROM revisions"
expect_contains "$ERR" "permission denied"

section "live status still changes, through cub"
expect_ok cub release set-status --space doomed --release 1 --sync Synced --health Healthy
expect_ok cub release get --space doomed --release 1 -o json
expect_eq Synced "$(jget LiveStatus.Sync)"
expect_eq Healthy "$(jget LiveStatus.Health)"
expect_ok cub release verify --space doomed --release 1
expect_contains "$OUT" "Verified"
expect_ok cub release history --space doomed -o json
expect_ne "" "$(jget 0.HealthyAt)" "the deployment's healthy time"
run owner -c "UPDATE deployments SET record = 'forged', healthy_at = now()"
expect_contains "$ERR" "deployments is append-only: UPDATE of healthy_at, record refused"

section "serve refuses the owner role and a schema that is not current"
expect_fail 1 "may alter cub's records (it is a superuser" \
  cubd serve --database-url "$E2E_DB_URL" --listen 127.0.0.1:0 --signing-key "$E2E_TMP/k.pem"
FRESH="e2e_records_fresh_$$_$RANDOM"
_e2e_psql -c "CREATE DATABASE $FRESH" >/dev/null || e2e_fail "CREATE DATABASE"
expect_fail 1 "has no cub schema yet: run cubd migrate" \
  cubd serve --database-url "$(_e2e_serve_url "$(_e2e_db_url "$FRESH")")" --listen 127.0.0.1:0 \
  --signing-key "$E2E_TMP/k.pem"
_e2e_psql -c "DROP DATABASE $FRESH" >/dev/null

section "deleting a space keeps its records"
expect_ok cub space delete doomed
expect_eq 1 "$(owner -c "SELECT count(*) FROM releases WHERE space_id = '$SPACE_ID'")" "release kept"
expect_eq doomed "$(owner -c "SELECT space_slug FROM releases WHERE space_id = '$SPACE_ID'")"
expect_eq 1 "$(owner -c "SELECT count(*) FROM release_units ru JOIN releases r ON r.id = ru.release_id
                        WHERE r.space_id = '$SPACE_ID'")" "release units kept"
expect_eq 1 "$(owner -c "SELECT count(*) FROM revisions WHERE space_id = '$SPACE_ID'")" "revision kept"
expect_ok cub attestation list --where "SpaceSlug = 'doomed'" -o json
expect_eq 1 "$(jget len)" "attestation kept and readable"
# A server administrator reads the kept Releases through cub, as attestations, by the slug
# while no live Space has it, and by the Space's ID always; nobody else sees them.
expect_ok cub release list --space doomed -o json
expect_eq 1 "$(jget len)" "the deleted space's releases, by slug"
expect_eq doomed "$(jget 0.SpaceSlug)"
expect_eq doomed/out "$(jget 0.Target)"
expect_ok cub release verify --space doomed --release 1
expect_contains "$OUT" "Verified"
expect_fail 1 "not found" as "$ALICE" cub release list --space "$SPACE_ID"
# The slug is free again, and the new space starts its own history.
expect_ok cub space create doomed
expect_ok cub target create --space doomed out --provider Directory --param "path=$E2E_TMP/out2"
expect_ok cub space update doomed --release-target doomed/out
expect_ok cub unit create --space doomed app "$E2E_TMP/cm.yaml"
expect_ok cub release publish doomed
expect_ok cub release list --space doomed -o json
expect_eq 1 "$(jget len)" "one release in the new space"
expect_eq 1 "$(jget 0.ReleaseNum)"
expect_ne "$SPACE_ID" "$(jget 0.SpaceID)" "the new space's release"
expect_ok cub release get --space "$SPACE_ID" --release 1 -o json
expect_eq "$SPACE_ID" "$(jget SpaceID)" "the deleted space's release, by ID"
expect_ok cub release history --space "$SPACE_ID" -o json
expect_eq 1 "$(jget len)" "the deleted space's deployment history"

section "a purge removes them, as the owner, and is recorded"
expect_fail 1 "still exists" cubd purge space doomed --reason "test" --database-url "$E2E_DB_URL"
expect_fail 1 "permission denied" cubd purge space "$SPACE_ID" --reason "test" \
  --database-url "$E2E_SERVE_URL"
run cubd purge space "$SPACE_ID" --database-url "$E2E_DB_URL"
expect_ne 0 "$RC" "purge without a reason"
expect_contains "$ERR" "--reason is required"
expect_ok cubd purge space "$SPACE_ID" --reason "retention expired" --by auditor \
  --database-url "$E2E_DB_URL"
expect_contains "$OUT" "purged the records of space $SPACE_ID (doomed)"
expect_contains "$OUT" '"revisions": 1'
expect_eq 0 "$(owner -c "SELECT count(*) FROM revisions WHERE space_id = '$SPACE_ID'")" "revisions purged"
expect_eq 0 "$(owner -c "SELECT count(*) FROM releases WHERE space_id = '$SPACE_ID'")" "releases purged"
expect_eq 0 "$(owner -c "SELECT count(*) FROM attestations WHERE space_id = '$SPACE_ID'")" \
  "attestations purged"
expect_eq "doomed|retention expired|auditor|cub_test" \
  "$(owner -c "SELECT space_slug, reason, requested_by, database_role FROM purges
               WHERE space_id = '$SPACE_ID'")" "the purge record"
run owner -c "DELETE FROM purges"
expect_contains "$ERR" "purges is append-only: DELETE refused"
# The new space's records are untouched.
expect_ok cub release verify --space doomed --release 1
expect_contains "$OUT" "Verified"
expect_fail 1 "no records of a space" cubd purge space "$SPACE_ID" --reason again \
  --database-url "$E2E_DB_URL"

section "a release unit's signed DataHash edited reads as tampered"
owner -c "ALTER TABLE release_units DISABLE TRIGGER release_units_append_only;
          UPDATE release_units SET data_hash = 'sha256:edited' WHERE release_id =
            (SELECT id FROM releases WHERE space_slug = 'doomed' AND release_num = 1);
          ALTER TABLE release_units ENABLE TRIGGER release_units_append_only;" ||
  e2e_fail "tampering failed"
expect_fail 1 "does not verify" cub release verify --space doomed --release 1
expect_contains "$OUT" "Units (signed app@1 sha256:"
expect_contains "$OUT" "stored app@1 sha256:edited)"

section "the embedded database is migrated by its superuser and served as cub_serve"
chmod 0711 "$E2E_TMP"  # as root the embedded server runs as postgres, which must pass through
emb_port=$(free_port)
cubd serve --data-dir "$E2E_TMP/embedded" --listen "127.0.0.1:$emb_port" \
  >>"$E2E_TMP/cubd-embedded.log" 2>&1 </dev/null &
CUBD_PID[embedded]=$!
CUBD_LOG[embedded]=$E2E_TMP/cubd-embedded.log
for _ in $(seq 600); do
  grep -q "serving gRPC" "$E2E_TMP/cubd-embedded.log" 2>/dev/null && break
  kill -0 "${CUBD_PID[embedded]}" 2>/dev/null || break
  sleep 0.2
done
expect_contains "$(cat "$E2E_TMP/cubd-embedded.log")" "serving gRPC" "embedded cubd log"
EMB_TOKEN=$(cubd user create emb --admin --data-dir "$E2E_TMP/embedded") || e2e_fail "user create"
expect_ok cub space create on-embedded --server "127.0.0.1:$emb_port" --token "$EMB_TOKEN"
EMB_URL=$(cat "$E2E_TMP/embedded/database-url")
expect_eq cub_serve "$("$E2E_PSQL" -X -q -A -t "$EMB_URL" -c "SELECT string_agg(DISTINCT usename,
  ',') FROM pg_stat_activity WHERE datname = 'cub' AND pid <> pg_backend_pid()")" \
  "the embedded cubd's database connections"
expect_eq cub "$("$E2E_PSQL" -X -q -A -t "$EMB_URL" -c "SELECT tableowner FROM pg_tables
  WHERE tablename = 'revisions'")" "the embedded tables' owner"
e2e_stop_cubd embedded
expect_eq 0 "$CUBD_RC" "embedded cubd exit code"

e2e_finish
