-- Scan findings for Releases and the scanner role (docs/concepts.md, "Scans and checks").

-- Scanners (a vulnerability scanner's or an external check's identity) get a role of their
-- own: they may record scan findings and check attestations and read, nothing else.
ALTER TABLE space_permissions DROP CONSTRAINT space_permissions_role_check;
ALTER TABLE space_permissions ADD CONSTRAINT space_permissions_role_check
  CHECK (role IN ('viewer', 'editor', 'approver', 'admin', 'reporter', 'scanner'));

-- One row per scan recorded for a Release; the newest is the Release's findings. A severity
-- the scan did not report is NULL (not known), never 0. A record: the runtime reads and
-- inserts only, and rows go only with their Release, when a purge removes it.
CREATE TABLE release_scans (
  seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  release_id uuid NOT NULL REFERENCES releases(id) ON DELETE CASCADE,
  space_id uuid NOT NULL,
  critical integer CHECK (critical >= 0),
  high integer CHECK (high >= 0),
  medium integer CHECK (medium >= 0),
  low integer CHECK (low >= 0),
  -- Who recorded it; the name is copied, as records outlive their users.
  scanned_by uuid,
  scanned_by_name text NOT NULL DEFAULT '',
  scanned_at timestamptz NOT NULL DEFAULT now(),
  CHECK (num_nonnulls(critical, high, medium, low) > 0)
);
CREATE INDEX release_scans_release ON release_scans(release_id, seq DESC);

REVOKE UPDATE, DELETE ON release_scans FROM cub_runtime;
-- cub_refuse_change lets a DELETE through inside cub_purge_space only (the cascade from the
-- Release it removes).
CREATE TRIGGER release_scans_append_only BEFORE UPDATE OR DELETE ON release_scans
  FOR EACH ROW EXECUTE FUNCTION cub_refuse_change();
CREATE TRIGGER release_scans_no_truncate BEFORE TRUNCATE ON release_scans
  FOR EACH STATEMENT EXECUTE FUNCTION cub_refuse_change();
