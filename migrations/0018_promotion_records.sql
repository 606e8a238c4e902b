-- Signed promotion records: one row per promotion into a Space (typed, queued, automatic or
-- forced), holding the DSSE envelope of the in-toto statement cubd signed about it
-- (docs/concepts.md, "Promotion records").
--
-- A record, like those of 0012_append_only_records.sql: the triggers refuse UPDATE, DELETE and
-- TRUNCATE whoever asks (a purge aside), the runtime role may only read and insert, and there
-- are no foreign keys: a record outlives its ChangeOrder and Space, so the slugs and the names
-- a reader needs are copied into the row (they are signed in the envelope as well).
CREATE TABLE promotion_records (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  change_order_id uuid NOT NULL,
  change_order text NOT NULL,  -- "BASE/NAME"
  space_id uuid NOT NULL,
  space_slug text NOT NULL,
  stage text NOT NULL DEFAULT '',  -- empty for a promotion into named Spaces outside any Stage
  promoted_by text NOT NULL,       -- the user name; `automatic` for the engine's own
  queued_by text NOT NULL DEFAULT '',
  forced boolean NOT NULL DEFAULT false,
  at timestamptz NOT NULL,
  envelope text NOT NULL,          -- the DSSE envelope (JSON)
  statement_digest text NOT NULL   -- "sha256:<hex>" of the signed statement (the payload)
);
CREATE INDEX promotion_records_change_order ON promotion_records(change_order_id, at);
CREATE INDEX promotion_records_space ON promotion_records(space_id, change_order_id);

CREATE TRIGGER promotion_records_append_only BEFORE UPDATE OR DELETE ON promotion_records
  FOR EACH ROW EXECUTE FUNCTION cub_refuse_change();
CREATE TRIGGER promotion_records_no_truncate BEFORE TRUNCATE ON promotion_records
  FOR EACH STATEMENT EXECUTE FUNCTION cub_refuse_change();

-- The default privileges of 0012 granted everything; a record table keeps SELECT and INSERT.
REVOKE UPDATE, DELETE, TRUNCATE ON promotion_records FROM cub_runtime;
