-- Releases: what a Space publishes to its release Target, the live status a GitOps operator
-- reports back, and the deployment history built from both.

-- Reporters (GitOps status writers) get a role of their own: they may report live status
-- and read, nothing else.
ALTER TABLE space_permissions DROP CONSTRAINT space_permissions_role_check;
ALTER TABLE space_permissions ADD CONSTRAINT space_permissions_role_check
  CHECK (role IN ('viewer', 'editor', 'approver', 'admin', 'reporter'));

CREATE TABLE targets (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  space_id uuid NOT NULL REFERENCES spaces(id) ON DELETE CASCADE,
  slug text NOT NULL,
  provider text NOT NULL CHECK (provider IN ('Directory', 'Git')),
  params jsonb NOT NULL DEFAULT '{}',
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  version bigint NOT NULL DEFAULT 1,
  UNIQUE (space_id, slug)
);

-- RESTRICT: a Target that Spaces release to is not deleted from under them.
ALTER TABLE spaces ADD COLUMN release_target_id uuid REFERENCES targets(id) ON DELETE RESTRICT;

CREATE TABLE releases (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  space_id uuid NOT NULL REFERENCES spaces(id) ON DELETE CASCADE,
  target_id uuid NOT NULL REFERENCES targets(id) ON DELETE RESTRICT,
  release_num bigint NOT NULL,
  -- The ChangeOrder a publish named with --revision ChangeOrder:..., if any. No foreign key:
  -- a Release outlives the ChangeOrder it shipped.
  change_order_id uuid,
  change_order text NOT NULL DEFAULT '',
  revision_selector text NOT NULL DEFAULT '',
  description text NOT NULL DEFAULT '',
  bundle_digest text NOT NULL,
  published_by uuid REFERENCES users(id),
  published_at timestamptz NOT NULL DEFAULT now(),
  location text NOT NULL DEFAULT '',
  commit_id text NOT NULL DEFAULT '',
  -- The signed provenance record (a DSSE envelope, JSON) naming the bundle digest.
  provenance text NOT NULL,
  -- Live status, as the GitOps operator last reported it.
  sync_status text NOT NULL DEFAULT 'Unknown',
  health_status text NOT NULL DEFAULT 'Unknown',
  operation_state text NOT NULL DEFAULT '',
  status_message text NOT NULL DEFAULT '',
  status_at timestamptz,
  UNIQUE (target_id, release_num)
);
CREATE INDEX releases_space ON releases(space_id, published_at DESC);
CREATE INDEX releases_change_order ON releases(change_order_id) WHERE change_order_id IS NOT NULL;

-- What a Release bundled: one row per Unit. Written once (a trigger refuses updates).
CREATE TABLE release_units (
  release_id uuid NOT NULL REFERENCES releases(id) ON DELETE CASCADE,
  unit_id uuid NOT NULL,
  unit_slug text NOT NULL,
  revision_num bigint NOT NULL,
  data_hash text NOT NULL,
  PRIMARY KEY (release_id, unit_slug)
);
CREATE TRIGGER release_units_immutable BEFORE UPDATE ON release_units
  FOR EACH ROW EXECUTE FUNCTION cub_forbid_update();

-- Deployment history per Space: a new entry per publish, and per recovery after Degraded.
CREATE TABLE deployments (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  space_id uuid NOT NULL REFERENCES spaces(id) ON DELETE CASCADE,
  release_id uuid NOT NULL REFERENCES releases(id) ON DELETE CASCADE,
  started_at timestamptz NOT NULL DEFAULT now(),
  healthy_at timestamptz,
  ended_at timestamptz,
  end_reason text NOT NULL DEFAULT '' CHECK (end_reason IN ('', 'Superseded', 'Degraded')),
  -- Signed once the deployment is first reported healthy (a DSSE envelope, JSON).
  record text NOT NULL DEFAULT ''
);
CREATE INDEX deployments_space ON deployments(space_id, started_at DESC);
