-- The Spaces that have a release Target, indexed by ID (issue 19).
--
-- A ChangeOrder's release state starts from the Spaces of its scope that have a release Target
-- (store::ReadReleaseStates, and the counts of a Basic list). Probing the primary key for each
-- of 10,000 in-scope Spaces and reading each row to test the column took about 11 ms of a
-- `changeorder get`; probing this index reads no row and finds nothing for a Space without a
-- Target (about 1 ms when none has one). Where every Space has a Target the probes cost what
-- the primary key's did.
CREATE INDEX spaces_with_release_target ON spaces (id) WHERE release_target_id IS NOT NULL;
