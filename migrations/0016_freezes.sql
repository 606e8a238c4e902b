-- Freezes: while one is in force, nothing is promoted or published into the Spaces it covers
-- (docs/design.md, "Freezes"). A freeze lives in a Space, as a ChangeWorkflow does; its scope
-- is a ChangeWorkflow of any Space and some of its Stages, or nothing (every Space). Its
-- schedule is none (in force until deleted), one window, or windows recurring at the times of
-- a cron expression in a time zone; lib/ops/freeze_schedule.h reads it.
CREATE TABLE freezes (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  space_id uuid NOT NULL REFERENCES spaces(id) ON DELETE CASCADE,
  slug text NOT NULL,
  reason text NOT NULL CHECK (reason <> ''),
  -- A workflow with a freeze on it cannot be deleted: the freeze would quietly end.
  change_workflow_id uuid REFERENCES change_workflows(id) ON DELETE RESTRICT,
  stages text[] NOT NULL DEFAULT '{}',
  starts_at timestamptz,
  ends_at timestamptz,
  cron text NOT NULL DEFAULT '',
  duration_seconds bigint NOT NULL DEFAULT 0,
  time_zone text NOT NULL DEFAULT '',
  created_by uuid REFERENCES users(id) ON DELETE SET NULL,
  created_by_name text NOT NULL DEFAULT '',
  created_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (space_id, slug),
  CHECK ((starts_at IS NULL) = (ends_at IS NULL)),
  CHECK (starts_at IS NULL OR ends_at > starts_at),
  CHECK (starts_at IS NULL OR cron = ''),
  CHECK ((cron = '') = (duration_seconds = 0)),
  CHECK (cardinality(stages) = 0 OR change_workflow_id IS NOT NULL)
);
CREATE INDEX freezes_change_workflow ON freezes(change_workflow_id)
  WHERE change_workflow_id IS NOT NULL;
