-- The public keys cubd trusts for signatures on Releases, records and OCI evidence
-- (lib/ops/keys.h): every key a cubd signed with (origin Server, recorded when it first loads
-- the key) and keys an admin added (origin Trusted, `cub key trust`).
--
-- A record: rows are never deleted and nothing of a key changes but, once, its revocation
-- (revoked_at, revoked_by, revoke_reason). A revoked key stays revoked, so what it signed
-- never verifies again. The trigger holds whoever asks; the runtime role may insert, read and
-- set the three revocation columns only.
CREATE TABLE trusted_keys (
  key_id text PRIMARY KEY CHECK (key_id ~ '^sha256:[0-9a-f]{64}$'),
  pem text NOT NULL,  -- SubjectPublicKeyInfo PEM of an Ed25519 key
  origin text NOT NULL CHECK (origin IN ('Server', 'Trusted')),
  note text NOT NULL DEFAULT '',
  created_at timestamptz NOT NULL DEFAULT now(),
  created_by text NOT NULL DEFAULT '',  -- a username; empty for a Server key cubd recorded
  revoked_at timestamptz,
  revoked_by text,
  revoke_reason text NOT NULL DEFAULT '',
  CONSTRAINT trusted_keys_revoked_together CHECK ((revoked_at IS NULL) = (revoked_by IS NULL))
);

CREATE FUNCTION cub_trusted_key_guard() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    RAISE EXCEPTION 'trusted_keys is append-only: DELETE of key % refused (revoke it instead)', OLD.key_id
      USING ERRCODE = 'restrict_violation';
  END IF;
  IF NEW.key_id <> OLD.key_id OR NEW.pem <> OLD.pem OR NEW.origin <> OLD.origin
     OR NEW.note <> OLD.note OR NEW.created_at <> OLD.created_at
     OR NEW.created_by <> OLD.created_by THEN
    RAISE EXCEPTION 'trusted_keys: UPDATE of key % refused: only its revocation may be recorded (once)', OLD.key_id
      USING ERRCODE = 'restrict_violation';
  END IF;
  IF OLD.revoked_at IS NOT NULL AND (NEW.revoked_at IS DISTINCT FROM OLD.revoked_at
                                     OR NEW.revoked_by IS DISTINCT FROM OLD.revoked_by
                                     OR NEW.revoke_reason <> OLD.revoke_reason) THEN
    RAISE EXCEPTION 'trusted_keys: key % was revoked at %: it stays revoked', OLD.key_id, OLD.revoked_at
      USING ERRCODE = 'restrict_violation';
  END IF;
  IF OLD.revoked_at IS NULL AND NEW.revoked_at IS NULL AND NEW.revoke_reason <> OLD.revoke_reason THEN
    RAISE EXCEPTION 'trusted_keys: key % is not revoked: a reason comes with the revocation', OLD.key_id
      USING ERRCODE = 'restrict_violation';
  END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER trusted_keys_guard BEFORE UPDATE OR DELETE ON trusted_keys
  FOR EACH ROW EXECUTE FUNCTION cub_trusted_key_guard();
CREATE TRIGGER trusted_keys_no_truncate BEFORE TRUNCATE ON trusted_keys
  FOR EACH STATEMENT EXECUTE FUNCTION cub_refuse_change();

-- The default privileges of 0012 granted everything.
REVOKE UPDATE, DELETE, TRUNCATE ON trusted_keys FROM cub_runtime;
GRANT SELECT, INSERT ON trusted_keys TO cub_runtime;
GRANT UPDATE (revoked_at, revoked_by, revoke_reason) ON trusted_keys TO cub_runtime;
