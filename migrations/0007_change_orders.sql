-- ChangeOrders: one named change, made in its base Space, moving through a workflow's stages.
-- Only what cannot be derived is stored: the scope fixed at creation, the workflow copied then,
-- the recorded Stage, and the history of failed and forced promotions. Where the change has
-- got to (Resolved/Released Spaces, State) is read from the Tags promotions leave.
CREATE TABLE change_orders (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  space_id uuid NOT NULL REFERENCES spaces(id) ON DELETE CASCADE,
  slug text NOT NULL,
  description text NOT NULL DEFAULT '',
  change_workflow text NOT NULL DEFAULT '',
  workflow jsonb,
  update_type text NOT NULL DEFAULT 'UpgradeUnit',
  prior_revisions text NOT NULL DEFAULT 'Include'
    CHECK (prior_revisions IN ('Include', 'Skip', 'Error', 'All')),
  -- The scope selection as given, so --refresh-spaces can evaluate it again.
  where_space text NOT NULL DEFAULT '',
  in_scope_spaces text[] NOT NULL DEFAULT '{}',
  in_scope_space_ids uuid[] NOT NULL DEFAULT '{}',
  skipped_units jsonb NOT NULL DEFAULT '[]',
  start_tag_id uuid NOT NULL REFERENCES tags(id),
  end_tag_id uuid NOT NULL REFERENCES tags(id),
  publish_tag_id uuid NOT NULL REFERENCES tags(id),
  stage text NOT NULL DEFAULT '',
  aborted_reason text NOT NULL DEFAULT '',
  promotion_failures jsonb NOT NULL DEFAULT '[]',
  promotion_overrides jsonb NOT NULL DEFAULT '[]',
  created_by uuid REFERENCES users(id),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  version bigint NOT NULL DEFAULT 1,
  UNIQUE (space_id, slug)
);

-- The ChangeOrder a promotion wrote a revision for. No foreign key: revisions are immutable
-- (a trigger refuses updates), so neither SET NULL nor a blocking reference would let a
-- ChangeOrder's base Space be deleted while its downstream revisions remain.
ALTER TABLE revisions ADD COLUMN change_order_id uuid;
CREATE INDEX revisions_change_order ON revisions(change_order_id)
  WHERE change_order_id IS NOT NULL;
