-- The signed records a Release carries, compressed with lz4 rather than pglz (issue 16).
--
-- A provenance envelope is about 2.6 KB of JSON, most of it base64: enough for PostgreSQL to
-- try compressing every row it inserts. pglz spent about 47 ms on the 1,000 envelopes of a
-- Stage publish and kept them as they were (base64 saves it less than the quarter it asks
-- for); lz4 took about 17 ms and stored them in a quarter less room (a scratch table of 1,000
-- such rows, PostgreSQL 15). Rows written before keep pglz; PostgreSQL reads either.
--
-- A server built without lz4 refuses the clause with feature_not_supported; it then keeps
-- pglz, which is slower but no less correct, rather than failing the migration.
DO $$
BEGIN
  ALTER TABLE releases ALTER COLUMN provenance SET COMPRESSION lz4,
                       ALTER COLUMN sealed_approvals SET COMPRESSION lz4;
EXCEPTION WHEN feature_not_supported THEN
  RAISE NOTICE 'this PostgreSQL has no lz4: releases keep pglz compression';
END
$$;

-- release_units rows are checked against releases once per statement rather than once per row.
--
-- The foreign key ran its check as a query of its own for each of the 10,000 rows of a Stage
-- publish (1,000 Spaces x 10 Units) and locked the Release row each time: about 40 of the
-- insert's 95 ms on a scratch table. The rows only ever arrive in the transaction that inserts
-- their Releases (store::InsertReleases), and a Release is removed only by cub_purge_space,
-- which deletes its release_units first (0012), so no lock on the Release is needed to keep it
-- there. What the key guarded, a row naming no Release, this trigger refuses with one
-- anti-join over the statement's new rows.
ALTER TABLE release_units DROP CONSTRAINT release_units_release_id_fkey;

CREATE FUNCTION cub_release_units_name_releases() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  missing uuid;
BEGIN
  SELECT n.release_id INTO missing
    FROM (SELECT DISTINCT release_id FROM new_rows) n
   WHERE NOT EXISTS (SELECT 1 FROM releases r WHERE r.id = n.release_id)
   LIMIT 1;
  IF FOUND THEN
    RAISE EXCEPTION 'release_units: release % does not exist', missing
      USING ERRCODE = 'foreign_key_violation';
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER release_units_name_releases AFTER INSERT ON release_units
  REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION cub_release_units_name_releases();
