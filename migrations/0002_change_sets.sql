-- ChangeSets: a named, bounded change within one Space. While open, the Units it has been
-- opened on accept only writes that name it; its Tags mark where it started and ended.
CREATE TABLE change_sets (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  space_id uuid NOT NULL REFERENCES spaces(id) ON DELETE CASCADE,
  slug text NOT NULL,
  description text NOT NULL DEFAULT '',
  start_tag_id uuid NOT NULL REFERENCES tags(id),
  end_tag_id uuid NOT NULL REFERENCES tags(id),
  closed_at timestamptz,
  closed_by uuid REFERENCES users(id),
  created_by uuid REFERENCES users(id),
  created_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (space_id, slug)
);

-- The open ChangeSet a Unit is in, if any.
ALTER TABLE units ADD COLUMN change_set_id uuid REFERENCES change_sets(id) ON DELETE SET NULL;
CREATE INDEX units_change_set ON units(change_set_id) WHERE change_set_id IS NOT NULL;

-- The ChangeSet a revision was written in.
-- NO ACTION, not SET NULL: revisions are never updated (a trigger refuses).
ALTER TABLE revisions ADD COLUMN change_set_id uuid REFERENCES change_sets(id);
