-- Attestations: immutable records that a user approved or rejected (or otherwise attested to)
-- specific revisions in one Space. Kept after their Space or ChangeOrder is deleted (no
-- foreign keys to them; slugs are copied), never updated or deleted: withdrawing one is a new
-- record of result Revoke naming it.
CREATE TABLE attestations (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  space_id uuid NOT NULL,
  space_slug text NOT NULL,
  type text NOT NULL,
  result text NOT NULL CHECK (result IN ('Pass', 'Fail', 'Revoke')),
  revokes_id uuid REFERENCES attestations(id),
  -- Who, as their token said when they attested: never taken from the request.
  user_id uuid NOT NULL REFERENCES users(id),
  username text NOT NULL,
  groups text[] NOT NULL DEFAULT '{}',
  change_order_id uuid,
  change_order text NOT NULL DEFAULT '',
  note text NOT NULL DEFAULT '',
  claims jsonb NOT NULL DEFAULT '{}',
  expires_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  CHECK ((result = 'Revoke') = (revokes_id IS NOT NULL))
);
CREATE INDEX attestations_space ON attestations(space_id, created_at);
CREATE INDEX attestations_revokes ON attestations(revokes_id) WHERE revokes_id IS NOT NULL;

-- The revisions an attestation covers, with the content hash that lets it cover later
-- revisions of identical content.
CREATE TABLE attestation_revisions (
  attestation_id uuid NOT NULL REFERENCES attestations(id),
  unit_id uuid NOT NULL,
  unit_slug text NOT NULL,
  revision_num bigint NOT NULL,
  data_hash text NOT NULL,
  PRIMARY KEY (attestation_id, unit_id)
);
CREATE INDEX attestation_revisions_unit ON attestation_revisions(unit_id, data_hash);

CREATE FUNCTION cub_forbid_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION '% rows cannot be deleted', TG_TABLE_NAME USING ERRCODE = 'restrict_violation';
END $$;
CREATE TRIGGER attestations_immutable BEFORE UPDATE ON attestations
  FOR EACH ROW EXECUTE FUNCTION cub_forbid_update();
CREATE TRIGGER attestations_kept BEFORE DELETE ON attestations
  FOR EACH ROW EXECUTE FUNCTION cub_forbid_delete();
CREATE TRIGGER attestation_revisions_immutable BEFORE UPDATE ON attestation_revisions
  FOR EACH ROW EXECUTE FUNCTION cub_forbid_update();
CREATE TRIGGER attestation_revisions_kept BEFORE DELETE ON attestation_revisions
  FOR EACH ROW EXECUTE FUNCTION cub_forbid_delete();

-- The votes a Release's ReleasePrerequisites were satisfied by, sealed when it was published:
-- a DSSE envelope over an approval statement.
ALTER TABLE releases ADD COLUMN sealed_approvals text NOT NULL DEFAULT '';
