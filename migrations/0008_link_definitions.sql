-- Links that write values or copy resources (TransformPaths, Insert, Upsert).
--
-- definition: {"UpstreamPaths": [...], "DownstreamSetters": [...]} in the API's JSON shape
-- (cub.v1.Link), empty for the other types. Validated by cubd when the Link is created.
ALTER TABLE links ADD COLUMN definition jsonb NOT NULL DEFAULT '{}';

-- Writing a Unit looks up the AutoUpdate Links that point at it, in every write.
CREATE INDEX links_auto_update_to_unit ON links (to_unit_id) WHERE auto_update;
