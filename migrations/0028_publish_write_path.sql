-- The writes of a Stage publish (issue 16), lighter.
--
-- release_units_release duplicated the leading column of release_units' primary key
-- (release_id, unit_slug), which already serves every lookup by release_id; each inserted row
-- paid for both indexes (10,000 rows for a Stage of 1,000 Spaces x 10 Units).
DROP INDEX IF EXISTS release_units_release;

-- Units are updated in place on every promotion (head_revision_num) and every publish
-- (last_released_revision_num), and no index covers either column, so the new row version can
-- stay on its page (a HOT update, no index entries written) when the page has room. Full pages
-- made every such update move the row and add an entry to each of the table's indexes. Pages
-- written from now on keep a fifth free; existing pages gain room as VACUUM reclaims them.
ALTER TABLE units SET (fillfactor = 80);
