-- The promotion engine: the work it is told of, promotions queued for it, and the events it and
-- every promotion leave (docs/design.md, "The promotion engine").

-- The identity the engine promotes and publishes as. It has no token, so nobody can call the
-- API as it; a service account, so it can never vote on an approval.
INSERT INTO users (username, admin, service_account) VALUES ('automatic', true, true)
  ON CONFLICT (username) DO NOTHING;

-- One row per ChangeOrder the engine may have to move. Whatever may open one of its gates
-- upserts the row due now and bumps `generation`; a replica works on a row while holding an
-- advisory lock on it (never a row lock, so such writers never wait for the engine), and
-- removes it afterwards only if `generation` is still the one it read: a wake-up that arrived
-- during the work is not lost.
CREATE TABLE engine_work (
  change_order_id uuid PRIMARY KEY REFERENCES change_orders(id) ON DELETE CASCADE,
  due_at timestamptz NOT NULL DEFAULT now(),
  generation bigint NOT NULL DEFAULT 1,
  attempts integer NOT NULL DEFAULT 0,
  last_error text NOT NULL DEFAULT '',
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX engine_work_due ON engine_work(due_at);

-- A promotion somebody asked for that waits for its gates: one per base Space and Stage.
CREATE TABLE queued_promotions (
  base_space_id uuid NOT NULL REFERENCES spaces(id) ON DELETE CASCADE,
  stage text NOT NULL,
  change_order_id uuid NOT NULL REFERENCES change_orders(id) ON DELETE CASCADE,
  queued_by uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  queued_at timestamptz NOT NULL DEFAULT now(),
  -- What held it at the last evaluation (the gate and the Space), and when that was.
  waiting_for text NOT NULL DEFAULT '',
  checked_at timestamptz,
  PRIMARY KEY (base_space_id, stage)
);
CREATE INDEX queued_promotions_change_order ON queued_promotions(change_order_id);

-- What happened, in order: promotions, publishes, queueing, the engine's decisions. Append-only
-- like the other records; `space_id` is the Space the event is about (the base Space for a
-- ChangeOrder's promotion), `change_order_id` the ChangeOrder if any. No foreign keys: events
-- outlive what they name, so the names a reader needs are copied.
CREATE TABLE events (
  id bigserial PRIMARY KEY,
  at timestamptz NOT NULL DEFAULT now(),
  kind text NOT NULL,
  space_id uuid,
  space_slug text NOT NULL DEFAULT '',
  change_order_id uuid,
  change_order text NOT NULL DEFAULT '',  -- "BASE/NAME"
  stage text NOT NULL DEFAULT '',
  user_id uuid,
  username text NOT NULL DEFAULT '',
  message text NOT NULL DEFAULT '',
  details jsonb NOT NULL DEFAULT '{}'
);
CREATE INDEX events_space ON events(space_id, id);
CREATE INDEX events_change_order ON events(change_order_id, id);
-- "Has a ChangeOrder of this base Space newer than mine been promoted into this Stage?"
CREATE INDEX events_promoted ON events(stage, change_order_id) WHERE kind = 'Promoted';

CREATE TRIGGER events_append_only BEFORE UPDATE OR DELETE ON events
  FOR EACH ROW EXECUTE FUNCTION cub_refuse_change();
CREATE TRIGGER events_no_truncate BEFORE TRUNCATE ON events
  FOR EACH STATEMENT EXECUTE FUNCTION cub_refuse_change();
REVOKE UPDATE, DELETE ON events FROM cub_runtime;
