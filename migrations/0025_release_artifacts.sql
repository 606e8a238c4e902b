-- The OCI artifact a Release was pushed as (lib/targets/oci.cc): its manifest's digest and the
-- reference "HOST/PATH:TAG" it was tagged under. Written once, in the statement that records the
-- Release Delivered (lib/store/deliveries.cc), so a Release is never Delivered to an OCI Target
-- without it. A record: the runtime reads and inserts only, and a row goes only with its
-- Release, when a purge removes it.
CREATE TABLE release_artifacts (
  release_id uuid PRIMARY KEY REFERENCES releases(id) ON DELETE CASCADE,
  digest text NOT NULL CHECK (digest ~ '^sha256:[0-9a-f]{64}$'),
  ref text NOT NULL CHECK (ref <> ''),
  recorded_at timestamptz NOT NULL DEFAULT now()
);

REVOKE UPDATE, DELETE, TRUNCATE ON release_artifacts FROM cub_runtime;
-- cub_refuse_change lets a DELETE through inside cub_purge_space only (the cascade from the
-- Release it removes).
CREATE TRIGGER release_artifacts_append_only BEFORE UPDATE OR DELETE ON release_artifacts
  FOR EACH ROW EXECUTE FUNCTION cub_refuse_change();
CREATE TRIGGER release_artifacts_no_truncate BEFORE TRUNCATE ON release_artifacts
  FOR EACH STATEMENT EXECUTE FUNCTION cub_refuse_change();

-- Targets may be OCI registries now.
ALTER TABLE targets DROP CONSTRAINT targets_provider_check;
ALTER TABLE targets ADD CONSTRAINT targets_provider_check
  CHECK (provider IN ('Directory', 'Git', 'OCI'));
