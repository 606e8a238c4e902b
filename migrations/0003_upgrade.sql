-- Upgrades: paths a Unit holds against merges, and the changes a merge withheld.
ALTER TABLE units ADD COLUMN protected_paths text[] NOT NULL DEFAULT '{}';

-- [{"Path": ..., "Reason": ..., "UpstreamValue": ..., "DownstreamValue": ...}, ...]
ALTER TABLE revisions ADD COLUMN conflicts jsonb NOT NULL DEFAULT '[]';
