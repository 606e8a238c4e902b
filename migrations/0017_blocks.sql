-- Blocked changes: a ChangeOrder aborted with --block keeps the content it brought out of every
-- Space that does not already run it (docs/design.md, "Blocked changes").
--
-- Who blocked it and when; NULL while it is not blocked.
ALTER TABLE change_orders ADD COLUMN blocked_at timestamptz;
ALTER TABLE change_orders ADD COLUMN blocked_by uuid REFERENCES users(id) ON DELETE SET NULL;

-- The content it brought, recorded when it was blocked: the end DataHash of each Unit it changed
-- in every Space it reached (its end mark's revision, where that differs from its start mark's),
-- the base included. Removed when the block is lifted. No foreign key to units: the content
-- stays blocked after the Unit it was recorded from is deleted.
CREATE TABLE blocked_content (
  change_order_id uuid NOT NULL REFERENCES change_orders(id) ON DELETE CASCADE,
  space_id uuid NOT NULL,
  unit_id uuid NOT NULL,
  unit_slug text NOT NULL,
  data_hash text NOT NULL,
  PRIMARY KEY (change_order_id, unit_id)
);
-- Every promotion, upgrade and publish looks its planned hashes up here.
CREATE INDEX blocked_content_hash ON blocked_content(data_hash);
