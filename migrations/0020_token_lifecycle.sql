-- cub's own API tokens get a lifetime, a description, and the name of who revoked them.
--
-- Upgrade: tokens created before this migration never expired. They are given an expiry of
-- 90 days from the moment the migration runs (docs/operations.md, "Upgrading"), so a long-lived
-- CI secret keeps working for that long and must then be replaced.
ALTER TABLE tokens ADD COLUMN expires_at timestamptz;
UPDATE tokens SET expires_at = now() + interval '90 days' WHERE expires_at IS NULL;
ALTER TABLE tokens ALTER COLUMN expires_at SET NOT NULL;
ALTER TABLE tokens ADD COLUMN description text NOT NULL DEFAULT '';
-- Who revoked it. Tokens revoked in SQL before this migration keep an empty revoked_by.
ALTER TABLE tokens ADD COLUMN revoked_by uuid REFERENCES users(id);
ALTER TABLE tokens ADD CONSTRAINT tokens_revoked_by_with_revoked_at
  CHECK (revoked_by IS NULL OR revoked_at IS NOT NULL);
CREATE INDEX tokens_user_created ON tokens(user_id, created_at DESC);

-- A token is a record of what was issued: whoever asks (the owner included), the only changes
-- are revoking it once (revoked_at, with revoked_by) and bringing its expiry forward. A revoked
-- token stays revoked, and no row ever gets another hash, holder or a longer life.
CREATE FUNCTION cub_token_guard() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.id <> OLD.id OR NEW.user_id <> OLD.user_id OR NEW.token_hash <> OLD.token_hash
     OR NEW.created_at <> OLD.created_at OR NEW.description <> OLD.description THEN
    RAISE EXCEPTION 'tokens: UPDATE of token % refused: only revoked_at and revoked_by may be set (once), and expires_at brought forward', OLD.id
      USING ERRCODE = 'restrict_violation';
  END IF;
  IF OLD.revoked_at IS NOT NULL AND (NEW.revoked_at IS DISTINCT FROM OLD.revoked_at
                                     OR NEW.revoked_by IS DISTINCT FROM OLD.revoked_by) THEN
    RAISE EXCEPTION 'tokens: token % was revoked at %: it stays revoked', OLD.id, OLD.revoked_at
      USING ERRCODE = 'restrict_violation';
  END IF;
  IF NEW.expires_at > OLD.expires_at THEN
    RAISE EXCEPTION 'tokens: token % expires at %: its expiry may be brought forward, not put off', OLD.id, OLD.expires_at
      USING ERRCODE = 'restrict_violation';
  END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER tokens_guard BEFORE UPDATE ON tokens
  FOR EACH ROW EXECUTE FUNCTION cub_token_guard();

-- The runtime issues, reads and revokes tokens; it neither deletes them nor changes anything
-- else of them (the default privileges of 0012 had granted all of it).
REVOKE UPDATE, DELETE, TRUNCATE ON tokens FROM cub_runtime;
GRANT UPDATE (revoked_at, revoked_by) ON tokens TO cub_runtime;
