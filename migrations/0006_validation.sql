-- Validation on write: saved vet Invocations a Space runs on every new revision of its Units.
ALTER TABLE spaces ADD COLUMN validating_invocations text[] NOT NULL DEFAULT '{}';
