-- Identities, Spaces, Units, Revisions, Tags, Links and Filters.
CREATE EXTENSION IF NOT EXISTS pgcrypto;

CREATE TABLE users (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  username text NOT NULL UNIQUE,
  admin boolean NOT NULL DEFAULT false,
  service_account boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE user_groups (
  user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  group_name text NOT NULL,
  PRIMARY KEY (user_id, group_name)
);

-- Only the SHA-256 of a token is kept; the token itself is shown once, at creation.
CREATE TABLE tokens (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  token_hash bytea NOT NULL UNIQUE,
  created_at timestamptz NOT NULL DEFAULT now(),
  revoked_at timestamptz
);

CREATE TABLE components (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  slug text NOT NULL UNIQUE,
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE spaces (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  slug text NOT NULL UNIQUE,
  display_name text NOT NULL DEFAULT '',
  labels jsonb NOT NULL DEFAULT '{}',
  annotations jsonb NOT NULL DEFAULT '{}',
  component_id uuid REFERENCES components(id),
  upstream_space_id uuid REFERENCES spaces(id),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  version bigint NOT NULL DEFAULT 1
);
CREATE INDEX spaces_upstream ON spaces(upstream_space_id);

-- A role for a user or for a group on one Space.
CREATE TABLE space_permissions (
  space_id uuid NOT NULL REFERENCES spaces(id) ON DELETE CASCADE,
  role text NOT NULL CHECK (role IN ('viewer', 'editor', 'approver', 'admin')),
  user_id uuid REFERENCES users(id) ON DELETE CASCADE,
  group_name text,
  created_at timestamptz NOT NULL DEFAULT now(),
  CHECK ((user_id IS NULL) <> (group_name IS NULL))
);
CREATE UNIQUE INDEX space_permissions_user ON space_permissions(space_id, user_id, role)
  WHERE user_id IS NOT NULL;
CREATE UNIQUE INDEX space_permissions_group ON space_permissions(space_id, group_name, role)
  WHERE group_name IS NOT NULL;
CREATE INDEX space_permissions_by_user ON space_permissions(user_id);
CREATE INDEX space_permissions_by_group ON space_permissions(group_name);

CREATE TABLE units (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  space_id uuid NOT NULL REFERENCES spaces(id) ON DELETE CASCADE,
  slug text NOT NULL,
  toolchain_type text NOT NULL DEFAULT 'Kubernetes/YAML',
  labels jsonb NOT NULL DEFAULT '{}',
  annotations jsonb NOT NULL DEFAULT '{}',
  head_revision_num bigint NOT NULL DEFAULT 0,
  last_released_revision_num bigint NOT NULL DEFAULT 0,
  upstream_unit_id uuid REFERENCES units(id) ON DELETE SET NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  version bigint NOT NULL DEFAULT 1,
  UNIQUE (space_id, slug)
);
CREATE INDEX units_upstream ON units(upstream_unit_id);

-- Revisions are immutable: written once, never updated; removed only with their Unit.
CREATE TABLE revisions (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  unit_id uuid NOT NULL REFERENCES units(id) ON DELETE CASCADE,
  space_id uuid NOT NULL REFERENCES spaces(id) ON DELETE CASCADE,
  revision_num bigint NOT NULL,
  data text NOT NULL,
  data_hash text NOT NULL,
  author_id uuid REFERENCES users(id),
  description text NOT NULL DEFAULT '',
  upstream_unit_id uuid,
  upstream_revision_num bigint NOT NULL DEFAULT 0,
  restored_from_num bigint NOT NULL DEFAULT 0,
  validation_errors jsonb NOT NULL DEFAULT '[]',
  created_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (unit_id, revision_num)
);

CREATE FUNCTION cub_forbid_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION '% rows are immutable', TG_TABLE_NAME USING ERRCODE = 'restrict_violation';
END $$;
CREATE TRIGGER revisions_immutable BEFORE UPDATE ON revisions
  FOR EACH ROW EXECUTE FUNCTION cub_forbid_update();

CREATE TABLE tags (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  space_id uuid NOT NULL REFERENCES spaces(id) ON DELETE CASCADE,
  slug text NOT NULL,
  description text NOT NULL DEFAULT '',
  labels jsonb NOT NULL DEFAULT '{}',
  created_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (space_id, slug)
);

-- A Tag marks at most one revision per Unit: the unique key is what makes "a change reaches
-- a Unit once" hold under concurrent writers.
CREATE TABLE tag_marks (
  tag_id uuid NOT NULL REFERENCES tags(id) ON DELETE CASCADE,
  unit_id uuid NOT NULL REFERENCES units(id) ON DELETE CASCADE,
  revision_num bigint NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (tag_id, unit_id)
);
CREATE INDEX tag_marks_unit ON tag_marks(unit_id);

CREATE TABLE links (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  space_id uuid NOT NULL REFERENCES spaces(id) ON DELETE CASCADE,
  slug text NOT NULL,
  from_unit_id uuid NOT NULL REFERENCES units(id) ON DELETE CASCADE,
  to_unit_id uuid NOT NULL REFERENCES units(id) ON DELETE RESTRICT,
  update_type text NOT NULL DEFAULT 'UpgradeUnit',
  auto_update boolean NOT NULL DEFAULT false,
  protect boolean NOT NULL DEFAULT false,
  upstream_revision_num bigint NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  version bigint NOT NULL DEFAULT 1,
  UNIQUE (space_id, slug)
);
CREATE INDEX links_to_unit ON links(to_unit_id);
CREATE INDEX links_from_unit ON links(from_unit_id);

CREATE TABLE filters (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  space_id uuid NOT NULL REFERENCES spaces(id) ON DELETE CASCADE,
  slug text NOT NULL,
  from_entity text NOT NULL CHECK (from_entity IN ('Space', 'Unit')),
  where_field text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (space_id, slug)
);
