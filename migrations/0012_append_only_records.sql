-- Append-only records and the runtime role.
--
-- The records are revisions, releases, release_units, deployments, attestations,
-- attestation_revisions and purges. Triggers refuse UPDATE, DELETE and TRUNCATE on them
-- whoever asks (the owner and superusers included); of a Release only its live status and,
-- once, its delivery may change; of a deployment each of its later facts is written once.
-- They outlive their Unit and Space (no foreign keys to those; the slugs a reader needs are
-- copied). Removing them is cub_purge_space, which records itself in purges.
--
-- cubd serve connects as a member of the group role cub_runtime, which may read and write the
-- working tables, only read and insert the records, and owns nothing (no DDL, TRIGGER or
-- TRUNCATE). Whoever runs the migrations owns the schema.

-- The group role, cluster-wide: created once (several databases may migrate at once).
DO $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'cub_runtime') THEN
    BEGIN
      CREATE ROLE cub_runtime NOLOGIN;
    EXCEPTION
      WHEN duplicate_object OR unique_violation THEN NULL;  -- created meanwhile
      WHEN insufficient_privilege THEN
        RAISE EXCEPTION 'the role cub_runtime does not exist and % may not create it',
          current_user
          USING HINT = 'as a superuser or a CREATEROLE role: CREATE ROLE cub_runtime NOLOGIN';
    END;
  END IF;
END $$;

-- Records outlive their Unit, Space, ChangeSet and Target.
ALTER TABLE revisions DROP CONSTRAINT revisions_unit_id_fkey;
ALTER TABLE revisions DROP CONSTRAINT revisions_space_id_fkey;
ALTER TABLE revisions DROP CONSTRAINT revisions_change_set_id_fkey;
ALTER TABLE releases DROP CONSTRAINT releases_space_id_fkey;
ALTER TABLE releases DROP CONSTRAINT releases_target_id_fkey;
ALTER TABLE deployments DROP CONSTRAINT deployments_space_id_fkey;
-- Kept, but no longer cascading: a Release is removed only by a purge, children first.
ALTER TABLE release_units DROP CONSTRAINT release_units_release_id_fkey;
ALTER TABLE release_units ADD CONSTRAINT release_units_release_id_fkey
  FOREIGN KEY (release_id) REFERENCES releases(id);
ALTER TABLE deployments DROP CONSTRAINT deployments_release_id_fkey;
ALTER TABLE deployments ADD CONSTRAINT deployments_release_id_fkey
  FOREIGN KEY (release_id) REFERENCES releases(id);
CREATE INDEX revisions_space ON revisions(space_id);
CREATE INDEX release_units_release ON release_units(release_id);

-- What a Release is read by once its Space and Target are gone, as the provenance names them.
ALTER TABLE releases ADD COLUMN space_slug text NOT NULL DEFAULT '';
ALTER TABLE releases ADD COLUMN target text NOT NULL DEFAULT '';
UPDATE releases r SET space_slug = s.slug, target = ts.slug || '/' || t.slug
  FROM spaces s, targets t, spaces ts
  WHERE s.id = r.space_id AND t.id = r.target_id AND ts.id = t.space_id;

-- Each purge: what was removed, by whom, why. txid ties it to the transaction that removes.
CREATE TABLE purges (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  space_id uuid NOT NULL,
  space_slug text NOT NULL DEFAULT '',
  reason text NOT NULL,
  requested_by text NOT NULL DEFAULT '',
  database_role text NOT NULL DEFAULT session_user,
  removed jsonb NOT NULL,
  txid bigint NOT NULL DEFAULT txid_current(),
  purged_at timestamptz NOT NULL DEFAULT now()
);

-- True inside cub_purge_space: its purges row, written by this transaction, is named by the
-- transaction-local setting cub.purge. Only a role that may insert purges gets here.
CREATE FUNCTION cub_purging() RETURNS boolean LANGUAGE sql STABLE AS $$
  SELECT EXISTS (SELECT 1 FROM purges
                 WHERE id::text = current_setting('cub.purge', true) AND txid = txid_current())
$$;

CREATE FUNCTION cub_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' AND cub_purging() THEN
    RETURN OLD;
  END IF;
  RAISE EXCEPTION '% is append-only: % refused', TG_TABLE_NAME, TG_OP
    USING ERRCODE = 'restrict_violation',
          HINT = 'records are removed only by cubd purge, which is itself recorded';
END $$;

-- Of a Release, only the live status changes, and the delivery (location, commit) is written
-- once. Any other column, including columns added later, is refused.
CREATE FUNCTION cub_release_state_only() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  changed text;
BEGIN
  SELECT string_agg(o.key, ', ' ORDER BY o.key) INTO changed
    FROM jsonb_each(to_jsonb(OLD)) o JOIN jsonb_each(to_jsonb(NEW)) n USING (key)
   WHERE o.key NOT IN ('sync_status', 'health_status', 'operation_state', 'status_message',
                       'status_at', 'location', 'commit_id')
     AND o.value IS DISTINCT FROM n.value;
  IF changed IS NOT NULL THEN
    RAISE EXCEPTION 'releases is append-only: UPDATE of % refused (only the live status and the delivery may change)', changed
      USING ERRCODE = 'restrict_violation';
  END IF;
  IF (OLD.location <> '' OR OLD.commit_id <> '')
     AND (NEW.location, NEW.commit_id) IS DISTINCT FROM (OLD.location, OLD.commit_id) THEN
    RAISE EXCEPTION 'releases: release % was delivered already; its location and commit are written once', OLD.release_num
      USING ERRCODE = 'restrict_violation';
  END IF;
  RETURN NEW;
END $$;

-- A deployment's end, its healthy time and its signed record are each written once, later;
-- nothing else of it changes.
CREATE FUNCTION cub_deployment_write_once() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  changed text;
BEGIN
  SELECT string_agg(o.key, ', ' ORDER BY o.key) INTO changed
    FROM jsonb_each(to_jsonb(OLD)) o JOIN jsonb_each(to_jsonb(NEW)) n USING (key)
   WHERE o.value IS DISTINCT FROM n.value
     AND (o.key NOT IN ('healthy_at', 'ended_at', 'end_reason', 'record')
          OR o.value NOT IN ('null'::jsonb, '""'::jsonb));
  IF changed IS NOT NULL THEN
    RAISE EXCEPTION 'deployments is append-only: UPDATE of % refused (healthy_at, ended_at, end_reason and record are written once)', changed
      USING ERRCODE = 'restrict_violation';
  END IF;
  RETURN NEW;
END $$;

DROP TRIGGER revisions_immutable ON revisions;
DROP TRIGGER release_units_immutable ON release_units;
DROP TRIGGER attestations_immutable ON attestations;
DROP TRIGGER attestations_kept ON attestations;
DROP TRIGGER attestation_revisions_immutable ON attestation_revisions;
DROP TRIGGER attestation_revisions_kept ON attestation_revisions;

CREATE TRIGGER revisions_append_only BEFORE UPDATE OR DELETE ON revisions
  FOR EACH ROW EXECUTE FUNCTION cub_refuse_change();
CREATE TRIGGER revisions_no_truncate BEFORE TRUNCATE ON revisions
  FOR EACH STATEMENT EXECUTE FUNCTION cub_refuse_change();
CREATE TRIGGER release_units_append_only BEFORE UPDATE OR DELETE ON release_units
  FOR EACH ROW EXECUTE FUNCTION cub_refuse_change();
CREATE TRIGGER release_units_no_truncate BEFORE TRUNCATE ON release_units
  FOR EACH STATEMENT EXECUTE FUNCTION cub_refuse_change();
CREATE TRIGGER attestations_append_only BEFORE UPDATE OR DELETE ON attestations
  FOR EACH ROW EXECUTE FUNCTION cub_refuse_change();
CREATE TRIGGER attestations_no_truncate BEFORE TRUNCATE ON attestations
  FOR EACH STATEMENT EXECUTE FUNCTION cub_refuse_change();
CREATE TRIGGER attestation_revisions_append_only BEFORE UPDATE OR DELETE ON attestation_revisions
  FOR EACH ROW EXECUTE FUNCTION cub_refuse_change();
CREATE TRIGGER attestation_revisions_no_truncate BEFORE TRUNCATE ON attestation_revisions
  FOR EACH STATEMENT EXECUTE FUNCTION cub_refuse_change();
CREATE TRIGGER releases_state_only BEFORE UPDATE ON releases
  FOR EACH ROW EXECUTE FUNCTION cub_release_state_only();
CREATE TRIGGER releases_append_only BEFORE DELETE ON releases
  FOR EACH ROW EXECUTE FUNCTION cub_refuse_change();
CREATE TRIGGER releases_no_truncate BEFORE TRUNCATE ON releases
  FOR EACH STATEMENT EXECUTE FUNCTION cub_refuse_change();
CREATE TRIGGER deployments_write_once BEFORE UPDATE ON deployments
  FOR EACH ROW EXECUTE FUNCTION cub_deployment_write_once();
CREATE TRIGGER deployments_append_only BEFORE DELETE ON deployments
  FOR EACH ROW EXECUTE FUNCTION cub_refuse_change();
CREATE TRIGGER deployments_no_truncate BEFORE TRUNCATE ON deployments
  FOR EACH STATEMENT EXECUTE FUNCTION cub_refuse_change();
CREATE TRIGGER purges_append_only BEFORE UPDATE OR DELETE ON purges
  FOR EACH ROW EXECUTE FUNCTION cub_refuse_change();
CREATE TRIGGER purges_no_truncate BEFORE TRUNCATE ON purges
  FOR EACH STATEMENT EXECUTE FUNCTION cub_refuse_change();

-- The runtime's only ways to change a Release row; they check the values. SECURITY DEFINER:
-- they run as the owner, and the trigger above still checks what they change.
CREATE FUNCTION cub_set_release_status(p_release_id uuid, p_sync text, p_health text,
                                       p_operation text, p_message text)
  RETURNS void LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
BEGIN
  IF p_sync IS NULL OR p_sync NOT IN ('Synced', 'OutOfSync', 'Unknown') THEN
    RAISE EXCEPTION 'release status: sync %', coalesce(p_sync, 'NULL')
      USING ERRCODE = 'invalid_parameter_value';
  END IF;
  IF p_health IS NULL OR p_health NOT IN ('Healthy', 'Progressing', 'Degraded', 'Suspended',
                                          'Missing', 'Unknown') THEN
    RAISE EXCEPTION 'release status: health %', coalesce(p_health, 'NULL')
      USING ERRCODE = 'invalid_parameter_value';
  END IF;
  IF p_operation IS NULL OR p_operation NOT IN ('', 'Running', 'Succeeded', 'Failed') THEN
    RAISE EXCEPTION 'release status: operation %', coalesce(p_operation, 'NULL')
      USING ERRCODE = 'invalid_parameter_value';
  END IF;
  UPDATE releases SET sync_status = p_sync, health_status = p_health,
                      operation_state = p_operation, status_message = coalesce(p_message, ''),
                      status_at = now()
   WHERE id = p_release_id;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'release status: no release %', p_release_id USING ERRCODE = 'no_data_found';
  END IF;
END $$;

CREATE FUNCTION cub_set_release_delivery(p_release_id uuid, p_location text, p_commit text)
  RETURNS void LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
BEGIN
  UPDATE releases SET location = coalesce(p_location, ''), commit_id = coalesce(p_commit, '')
   WHERE id = p_release_id;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'release delivery: no release %', p_release_id
      USING ERRCODE = 'no_data_found';
  END IF;
END $$;

-- Removes every record of a deleted Space and records that it did; returns what it removed.
-- Not for the runtime role (EXECUTE is revoked from PUBLIC; run it as the owner).
CREATE FUNCTION cub_purge_space(p_space_id uuid, p_reason text, p_requested_by text)
  RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE
  purge_id uuid;
  slug text;
  removed jsonb;
BEGIN
  IF coalesce(btrim(p_reason), '') = '' THEN
    RAISE EXCEPTION 'purge: a reason is required' USING ERRCODE = 'invalid_parameter_value';
  END IF;
  IF EXISTS (SELECT 1 FROM spaces WHERE id = p_space_id) THEN
    RAISE EXCEPTION 'purge: space % still exists; delete it first', p_space_id
      USING ERRCODE = 'object_in_use';
  END IF;
  SELECT coalesce((SELECT space_slug FROM releases WHERE space_id = p_space_id LIMIT 1),
                  (SELECT space_slug FROM attestations WHERE space_id = p_space_id LIMIT 1), '')
    INTO slug;
  removed := jsonb_build_object(
    'revisions', (SELECT count(*) FROM revisions WHERE space_id = p_space_id),
    'releases', (SELECT count(*) FROM releases WHERE space_id = p_space_id),
    'release_units', (SELECT count(*) FROM release_units ru JOIN releases r ON r.id = ru.release_id
                      WHERE r.space_id = p_space_id),
    'deployments', (SELECT count(*) FROM deployments WHERE space_id = p_space_id),
    'attestations', (SELECT count(*) FROM attestations WHERE space_id = p_space_id),
    'attestation_revisions', (SELECT count(*) FROM attestation_revisions ar
                              JOIN attestations a ON a.id = ar.attestation_id
                              WHERE a.space_id = p_space_id));
  INSERT INTO purges (space_id, space_slug, reason, requested_by, removed)
    VALUES (p_space_id, slug, p_reason, p_requested_by, removed) RETURNING id INTO purge_id;
  PERFORM set_config('cub.purge', purge_id::text, true);
  DELETE FROM attestation_revisions ar USING attestations a
   WHERE a.id = ar.attestation_id AND a.space_id = p_space_id;
  -- Revokes first: they reference what they revoke.
  DELETE FROM attestations WHERE space_id = p_space_id AND revokes_id IS NOT NULL;
  DELETE FROM attestations WHERE space_id = p_space_id;
  DELETE FROM release_units ru USING releases r
   WHERE r.id = ru.release_id AND r.space_id = p_space_id;
  DELETE FROM deployments d USING releases r
   WHERE r.id = d.release_id AND r.space_id = p_space_id;
  DELETE FROM deployments WHERE space_id = p_space_id;
  DELETE FROM releases WHERE space_id = p_space_id;
  DELETE FROM revisions WHERE space_id = p_space_id;
  PERFORM set_config('cub.purge', '', true);
  RETURN jsonb_build_object('purge_id', purge_id, 'space_slug', slug, 'removed', removed);
END $$;

-- Privileges of the runtime: DML on the working tables, SELECT and INSERT on the records
-- (and UPDATE on deployments, whose trigger allows only the write-once facts), SELECT on the
-- bookkeeping, the Release state functions; nothing else.
GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO cub_runtime;
REVOKE UPDATE, DELETE ON revisions, releases, release_units, attestations, attestation_revisions
  FROM cub_runtime;
REVOKE INSERT, UPDATE, DELETE ON schema_migrations, purges FROM cub_runtime;
REVOKE DELETE ON deployments FROM cub_runtime;
GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO cub_runtime;
REVOKE ALL ON FUNCTION cub_set_release_status(uuid, text, text, text, text) FROM PUBLIC;
REVOKE ALL ON FUNCTION cub_set_release_delivery(uuid, text, text) FROM PUBLIC;
REVOKE ALL ON FUNCTION cub_purge_space(uuid, text, text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION cub_set_release_status(uuid, text, text, text, text) TO cub_runtime;
GRANT EXECUTE ON FUNCTION cub_set_release_delivery(uuid, text, text) TO cub_runtime;
-- Tables later migrations add are working tables unless they say otherwise (a record table
-- revokes UPDATE and DELETE from cub_runtime and gets the triggers above).
ALTER DEFAULT PRIVILEGES IN SCHEMA public
  GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO cub_runtime;
ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT USAGE, SELECT ON SEQUENCES TO cub_runtime;
