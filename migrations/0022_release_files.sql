-- The file name each bundled Unit was delivered under. Units of non-YAML toolchains get their
-- own extension (lib/ops/release_files.h), so the name is recorded with the Release: the bundle
-- digest signed over it must be recomputed from the same names. Rows written before this column
-- existed are NULL, which reads as "<unit_slug>.yaml", what every file was named then, so older
-- Releases still verify as signed. Written once with the row (release_units are append-only).
ALTER TABLE release_units ADD COLUMN file_name text;
