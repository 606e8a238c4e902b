-- What cubd found each time it checked a Release's artifact and evidence in an OCI registry
-- before deploying it (lib/oci/verify.h): one row per check, the newest is the Release's
-- Verification. A record like release_scans: the runtime reads and inserts only, rows go only
-- with their Release, when a purge removes it.
CREATE TABLE release_verifications (
  seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  release_id uuid NOT NULL REFERENCES releases(id) ON DELETE CASCADE,
  digest text NOT NULL,  -- the manifest checked; empty when the tag resolved to none
  reason text NOT NULL CHECK (reason IN ('Verified', 'SignatureMissing', 'SignatureInvalid',
                                         'ProvenanceMismatch', 'ApprovalsMissing',
                                         'SigningKeyNotReady', 'RegistryUnavailable')),
  message text NOT NULL,
  key_id text NOT NULL DEFAULT '',
  checked_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX release_verifications_release ON release_verifications(release_id, seq DESC);

REVOKE UPDATE, DELETE, TRUNCATE ON release_verifications FROM cub_runtime;
CREATE TRIGGER release_verifications_append_only BEFORE UPDATE OR DELETE ON release_verifications
  FOR EACH ROW EXECUTE FUNCTION cub_refuse_change();
CREATE TRIGGER release_verifications_no_truncate BEFORE TRUNCATE ON release_verifications
  FOR EACH STATEMENT EXECUTE FUNCTION cub_refuse_change();
