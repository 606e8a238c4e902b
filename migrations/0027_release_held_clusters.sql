-- The clusters a Release's delivery left alone by the Argo CD opt-in rule (lib/targets/
-- argocd_files.h): a pre-existing argocd/<name>.yaml that cub did not write and that does not
-- carry cub.dev/allowed-space: <space>. Shown as Release.HeldClusters. A record, written in the
-- transaction that records the delivery: the runtime reads and inserts only, and rows go only
-- with their Release, when a purge removes it.
CREATE TABLE release_held_clusters (
  release_id uuid NOT NULL REFERENCES releases(id) ON DELETE CASCADE,
  cluster text NOT NULL,
  reason text NOT NULL,
  message text NOT NULL DEFAULT '',
  recorded_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (release_id, cluster)
);

REVOKE UPDATE, DELETE ON release_held_clusters FROM cub_runtime;
CREATE TRIGGER release_held_clusters_append_only BEFORE UPDATE OR DELETE ON release_held_clusters
  FOR EACH ROW EXECUTE FUNCTION cub_refuse_change();
CREATE TRIGGER release_held_clusters_no_truncate BEFORE TRUNCATE ON release_held_clusters
  FOR EACH STATEMENT EXECUTE FUNCTION cub_refuse_change();
